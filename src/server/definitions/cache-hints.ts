import type { JsonObject } from '../../jsonrpc/types.js';
import type { CacheHint } from '../../spec/modern.js';
import type { Registry } from './registry.js';
import type { ResourceDef, ResourceUpdate, TemplateDef, TemplateUpdate } from './resources.js';

/** The hint of a cacheable stateless result when neither the resource nor the server options give one. */
export const DEFAULT_CACHE_HINT: CacheHint = Object.freeze({ ttlMs: 0, cacheScope: 'private' });

/**
 * The cache hint of a cacheable stateless result: for `resources/read`, the resource's own hint or that
 * of the first matching template with one; else the server's hint for the method, else the default.
 */
export function cacheHintOf(
  method: string,
  params: JsonObject,
  resources: Registry<ResourceDef, ResourceUpdate>,
  templates: Registry<TemplateDef, TemplateUpdate>,
  hints: Partial<Record<CacheableMethod, CacheHint>> | undefined,
): CacheHint {
  if (method === 'resources/read' && typeof params.uri === 'string') {
    const own = resources.get(params.uri)?.def.config.cache;
    if (own) return own;
    for (const t of templates.enabled()) {
      if (t.def.config.cache && t.def.template.match(params.uri)) return t.def.config.cache;
    }
  }
  return hints?.[method as CacheableMethod] ?? DEFAULT_CACHE_HINT;
}

/** Methods whose stateless results carry cache hints. */
export type CacheableMethod =
  | 'server/discover'
  | 'tools/list'
  | 'prompts/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read'
  | 'skills/list';
