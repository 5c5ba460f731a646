import type { JsonObject } from '../jsonrpc/types.js';
import type { RequestContext } from './context.js';

/** One incoming request as middleware sees it. */
export interface MiddlewareRequest {
  readonly method: string;
  readonly params: JsonObject;
  readonly ctx: RequestContext;
}

/**
 * Runs around every incoming request before its handler: rate limits, audit logs, authorization,
 * caching and tracing are middleware. Call `next()` to continue; return or throw to answer early.
 */
export type Middleware = (request: MiddlewareRequest, next: () => Promise<JsonObject>) => Promise<JsonObject>;

/** Runs `last` behind a chain of middleware (no chain: a direct call). */
export function runChain(
  chain: readonly Middleware[],
  request: MiddlewareRequest,
  last: () => Promise<JsonObject> | JsonObject,
): Promise<JsonObject> | JsonObject {
  if (chain.length === 0) return last();
  const step = (i: number): Promise<JsonObject> => {
    const mw = chain[i];
    return mw ? mw(request, () => step(i + 1)) : Promise.resolve(last());
  };
  return step(0);
}
