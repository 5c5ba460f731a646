/**
 * Caching of tool results. A tool is marked safe to cache by its own definition: `cache: { ttlMs }` in its config
 * (the author's promise that the same arguments give the same result for that long). Results are kept per
 * principal by default (`scope: 'shared'` shares them between callers), keyed by the arguments' JSON, in a bounded
 * in-memory map; an update of the tool forgets them. Only successful results are kept.
 */
import { McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { grants, principalOf, scopesOf } from '../auth.js';
import type { Middleware } from '../middleware.js';
import { isInputRequired } from '../modern/mrtr.js';
import type { Registry } from '../registry.js';
import type { ToolDef, ToolUpdate } from '../tools.js';
import type { AccessPolicy } from './access.js';
import { failureOf } from './failure.js';
import { positiveInteger } from './rate.js';

/** How a tool's results may be cached (the tool config's `cache`). */
export interface ToolCacheConfig {
  /** How long a result is answered again, in ms. */
  readonly ttlMs: number;
  /** "principal" (default): per caller; "shared": one result for every caller (the result depends on no identity). */
  readonly scope?: 'principal' | 'shared';
}

/** The `resultCache` option of a server. */
export interface ResultCacheOptions {
  /** Most results kept (least recently used dropped). Default 1000. */
  readonly maxEntries?: number;
  /** The clock, in ms (tests). Default `Date.now`. */
  readonly now?: () => number;
}

interface Cached {
  readonly def: ToolDef;
  readonly expires: number;
  readonly result: JsonObject;
}

/** Checks a tool's `cache` config at registration. */
export function checkToolCache(name: string, cache: ToolCacheConfig): void {
  const ttl = (cache as { ttlMs?: unknown } | undefined)?.ttlMs;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1)
    throw new McpkitError('INVALID_DEFINITION', `Tool ${name}: cache.ttlMs must be a positive integer`);
  if (cache.scope !== undefined && cache.scope !== 'principal' && cache.scope !== 'shared')
    throw new McpkitError('INVALID_DEFINITION', `Tool ${name}: cache.scope must be "principal" or "shared"`);
}

/** The result cache: a middleware over the tools registry. */
export function resultCache(
  tools: Registry<ToolDef, ToolUpdate>,
  access: AccessPolicy | undefined,
  options: ResultCacheOptions = {},
): Middleware {
  const max =
    options.maxEntries === undefined ? 1000 : positiveInteger(options.maxEntries, 'resultCache.maxEntries');
  const now = options.now ?? Date.now;
  const entries = new Map<string, Cached>();
  return (request, next) => {
    if (request.method !== 'tools/call') return next();
    const name = request.params.name;
    if (typeof name !== 'string') return next();
    const def = tools.get(name)?.def;
    const cache = def?.config.cache;
    if (def === undefined || cache === undefined) return next();
    // A caller the tool is not for gets no cached answer: the call itself refuses it.
    const auth = request.ctx.authInfo;
    if (auth !== undefined && !grants(auth.scopes, scopesOf(def))) return next();
    if (access !== undefined && !access.allows('tool', name, auth)) return next();
    const who = cache.scope === 'shared' ? '' : (principalOf(request.ctx.authInfo) ?? '');
    const key = `${who}\u0000${name}\u0000${JSON.stringify(request.params.arguments ?? {})}`;
    const hit = entries.get(key);
    const t = now();
    if (hit !== undefined) {
      entries.delete(key);
      if (hit.def === def && hit.expires > t) {
        entries.set(key, hit);
        return Promise.resolve(hit.result);
      }
    }
    return next().then((result) => {
      if (
        result.isError !== true &&
        !isInputRequired(result) &&
        failureOf(result) === undefined &&
        'content' in result
      ) {
        if (entries.size >= max) {
          const oldest = entries.keys().next();
          if (!oldest.done) entries.delete(oldest.value);
        }
        entries.set(key, { def, expires: now() + cache.ttlMs, result });
      }
      return result;
    });
  };
}
