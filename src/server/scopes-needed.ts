import type { JsonRpcMessage } from '../jsonrpc/types.js';
import { scopesOf } from './handler/auth.js';
import type { Mountable } from './mount/mount.js';

const NO_SCOPES: readonly string[] = Object.freeze([]);

/**
 * The OAuth scopes a request needs by what it names (a tool, prompt, resource or template registered with
 * `requiredScopes`): the HTTP endpoints' gate answers 403 `insufficient_scope` before dispatch without them
 * (`McpServer.scopesNeeded`).
 */
export function scopesNeeded(def: Mountable, message: JsonRpcMessage): readonly string[] {
  if (!('method' in message) || !('id' in message)) return NO_SCOPES;
  const params = message.params;
  switch (message.method) {
    case 'tools/call':
      return def.tools.scoped && typeof params?.name === 'string'
        ? scopesOf(def.tools.get(params.name)?.def)
        : NO_SCOPES;
    case 'prompts/get':
      return def.prompts.scoped && typeof params?.name === 'string'
        ? scopesOf(def.prompts.get(params.name)?.def)
        : NO_SCOPES;
    case 'resources/read':
    case 'resources/subscribe': {
      const uri = params?.uri;
      if (typeof uri !== 'string' || !(def.resources.scoped || def.templates.scoped)) return NO_SCOPES;
      const fixed = def.resources.get(uri);
      if (fixed) return scopesOf(fixed.def);
      for (const entry of def.templates.enabled())
        if (entry.def.template.match(uri)) return scopesOf(entry.def);
      return NO_SCOPES;
    }
    case 'completion/complete': {
      const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === 'ref/prompt' && typeof ref.name === 'string' && def.prompts.scoped)
        return scopesOf(def.prompts.get(ref.name)?.def);
      if (ref?.type === 'ref/resource' && typeof ref.uri === 'string' && def.templates.scoped)
        return scopesOf(def.templates.get(ref.uri)?.def);
      return NO_SCOPES;
    }
    default:
      return NO_SCOPES;
  }
}
