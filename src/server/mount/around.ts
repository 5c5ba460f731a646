import type { JsonObject } from '../../jsonrpc/types.js';
import type { MiddlewareSource } from '../definitions/watch.js';
import { addAskHook } from '../dispatch/request-context.js';
import { type Around, intercept } from '../handler/middleware.js';
import type { MountNaming } from './names.js';

/**
 * The child's middleware around a request for one of its entries, inside the parent's (and around what the
 * child's own mounts put inside it): it sees the request with the child's names. Nothing is renamed while the child
 * has no middleware. The requests the entry's handler makes of the client pass the child's hook around them (its
 * audit, its limits) inside the parent's.
 */
export function around(
  child: MiddlewareSource,
  inner: Around | undefined,
  rename: (method: string, params: JsonObject) => JsonObject,
): Around {
  return (method, params, ctx, run) => {
    const chain = child.middleware;
    const guards = child.guards();
    // What the child's handler asks of the client passes the child's own hook too, inside the parent's.
    const asks = child.asks();
    if (asks !== undefined) addAskHook(ctx, asks);
    if (chain.length === 0 && guards === undefined && inner === undefined) return run();
    const own = rename(method, params);
    const last = inner === undefined ? run : () => inner(method, own, ctx, run);
    return intercept(guards, chain, { method, params: own, ctx }, last);
  };
}

/** The rename of a tool's or prompt's requests: its name (a completion's `ref.name`) as the child knows it. */
export function namedAs(key: string) {
  return (method: string, params: JsonObject): JsonObject =>
    method === 'completion/complete'
      ? { ...params, ref: { ...(params.ref as JsonObject), name: key } }
      : { ...params, name: key };
}

/** The child's URI of a URI the parent offers through a mounted template. */
export function originalUri(naming: MountNaming): (uri: string) => string {
  return (uri) => {
    try {
      return naming.original(uri);
    } catch {
      return uri;
    }
  };
}
