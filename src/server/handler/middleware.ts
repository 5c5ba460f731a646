import type { JsonObject, JsonRpcNotification } from '../../jsonrpc/types.js';
import type { IncomingRequest } from '../../protocol/peer.js';
import type { RequestContext } from './context.js';

/** One incoming request as middleware sees it. */
export interface MiddlewareRequest {
  readonly method: string;
  readonly params: JsonObject;
  readonly ctx: RequestContext;
}

/**
 * A {@link MiddlewareRequest} as the dispatchers make it, once per request. A class instance rather than an object
 * literal, as `RequestSetup` (dispatch/setup.ts) explains: it points to the request's context, and a literal's
 * allocation site may be pretenured.
 */
export class IncomingCall implements MiddlewareRequest {
  constructor(
    readonly method: string,
    readonly params: JsonObject,
    readonly ctx: RequestContext,
  ) {}
}

/**
 * Runs around every incoming request before its handler: rate limits, audit logs, authorization,
 * caching and tracing are middleware. Call `next()` to continue; return or throw to answer early.
 */
export type Middleware = (request: MiddlewareRequest, next: () => Promise<JsonObject>) => Promise<JsonObject>;

/** An answer now, or later. */
export type Answer = JsonObject | Promise<JsonObject>;

/**
 * Runs around every request the server is given, before its revision, its method and the guards are checked, so it
 * sees the requests they refuse too (what `mcpkit/otel` traces): `sessionId` and `protocolVersion` as known at that
 * point (a request without a session: its header's or its `_meta` envelope's revision). Call `run` once and return
 * what it returns (or throws): an answer now stays an answer now.
 */
export type RequestHook = (
  incoming: IncomingRequest,
  sessionId: string | undefined,
  protocolVersion: string | undefined,
  run: () => Answer,
) => Answer;

/** Sees every notification the server is given by its clients (`session` undefined: a request without a session). */
export type NotificationHook = (
  notification: JsonRpcNotification,
  sessionId: string | undefined,
  protocolVersion: string | undefined,
) => void;

/**
 * The server's own guards in front of the middleware (see `guard/guards.ts`): unlike middleware they may answer
 * synchronously, so that a synchronous handler behind guards that decide synchronously keeps its fast path.
 */
export type GuardRunner = (request: MiddlewareRequest, last: () => Answer) => Answer;

/**
 * Runs a request for an entry another server's mount added through that server's own middleware, inside the
 * chain of the server it is mounted in: `params` as this server got them (renamed to the mounted server's names
 * before its middleware sees them), `run` the handler.
 */
export type Around = (
  method: string,
  params: JsonObject,
  ctx: RequestContext,
  run: () => Promise<JsonObject> | JsonObject,
) => Promise<JsonObject> | JsonObject;

/** Runs `last` behind a chain of middleware (no chain: a direct call). */
export function runChain(
  chain: readonly Middleware[],
  request: MiddlewareRequest,
  last: () => Answer,
): Answer {
  if (chain.length === 0) return last();
  const step = (i: number): Promise<JsonObject> => {
    const mw = chain[i];
    // A handler or middleware that throws synchronously rejects `next()`, as a middleware awaiting it expects.
    try {
      return mw ? mw(request, () => step(i + 1)) : Promise.resolve(last());
    } catch (e) {
      return Promise.reject(e);
    }
  };
  return step(0);
}

/** Runs `last` behind the guards (when any), then the middleware chain. */
export function intercept(
  guards: GuardRunner | undefined,
  chain: readonly Middleware[],
  request: MiddlewareRequest,
  last: () => Answer,
): Answer {
  if (guards === undefined) return runChain(chain, request, last);
  if (chain.length === 0) return guards(request, last);
  return guards(request, () => runChain(chain, request, last));
}

/**
 * Runs around one request a handler makes of its client (`sampling/createMessage`, `elicitation/create`,
 * `roots/list`): `send` makes it (a real request, or an input round of the stateless revision).
 */
export type AskHook = (
  method: string,
  params: JsonObject | undefined,
  ctx: RequestContext,
  send: () => Promise<unknown>,
) => Promise<unknown>;
