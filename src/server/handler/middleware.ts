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
 * Runs around every notification the server sends its clients (`notifications/message`, `…/list_changed`,
 * progress…): call `send` once, with the params or others (what `mcpkit/otel` uses to put the trace context in
 * `_meta`), and return what it returns.
 */
export type SentNotificationHook = (
  method: string,
  params: JsonObject | undefined,
  sessionId: string | undefined,
  protocolVersion: string | undefined,
  send: (params: JsonObject | undefined) => Promise<void>,
) => Promise<void>;

/** An HTTP request a Streamable HTTP endpoint (or relay) refused before any of its messages reached the server. */
export interface HttpRefusal {
  /** The reply's HTTP status (400 a body that is not JSON-RPC, 401/403 the auth gate, 403 an Origin or Host, 406, 413…). */
  readonly status: number;
  /** The JSON-RPC error code of the reply's body (`-32700` for a body that is not JSON). */
  readonly code: number | undefined;
  /** The reply's error message. */
  readonly message: string;
  /** The peer's address, when known. */
  readonly remoteAddress: string | undefined;
  /** The revision its `MCP-Protocol-Version` header names, when it has one. */
  readonly protocolVersion: string | undefined;
}

/** Sees each HTTP request a Streamable HTTP endpoint (or relay) refuses before any of its messages reaches the server. */
export type RefusalHook = (refusal: HttpRefusal) => void;

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
