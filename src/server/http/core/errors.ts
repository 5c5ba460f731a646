import { ErrorCode, toError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/types.js';
import type { HttpReply } from './http.js';

/** JSON-RPC code for an unknown or expired HTTP session (the convention of existing servers). */
export const SESSION_NOT_FOUND = -32001;

/** An HTTP error reply whose body is a proper JSON-RPC error. */
export function httpError(
  status: number,
  message: string,
  code: number = ErrorCode.InvalidRequest,
  id: RequestId | null = null,
  extraHeaders?: Record<string, string>,
): HttpReply {
  return {
    status,
    headers: { 'content-type': 'application/json', ...extraHeaders },
    body: JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }),
  };
}

/** 400 for a stateful request without its `Mcp-Session-Id`. */
export function missingSessionId(): HttpReply {
  return httpError(400, 'Bad Request: Mcp-Session-Id header is required');
}

/** 404 for an unknown, closed or expired session (the client then starts a new one). */
export function sessionNotFound(): HttpReply {
  return httpError(404, 'Session not found', SESSION_NOT_FOUND);
}

/**
 * Whether a JSON reply carrying this one message refuses the whole HTTP request for a rate limit (or a concurrency
 * cap): such a reply goes out as 429 with `Retry-After`, in every era, when it is the POST's only answer and no
 * response has started (an SSE stream already open carries the JSON-RPC error as its event instead).
 */
export function isRateLimited(message: JsonRpcMessage): boolean {
  return 'error' in message && message.error.code === ErrorCode.RateLimited;
}

/**
 * The headers of a 429: `Retry-After` in whole seconds (at least 1) when the error's `data.retryAfterMs` says when
 * to retry; none when it does not (a concurrency cap, a cost above the limit).
 */
export function retryHeaders(
  message: JsonRpcMessage,
  headers: Record<string, string>,
): Record<string, string> {
  const ms =
    'error' in message
      ? (message.error.data as { retryAfterMs?: unknown } | undefined)?.retryAfterMs
      : undefined;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return headers;
  return { ...headers, 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) };
}

/** 503 with a JSON-RPC error: the cluster's store could not be reached. */
export function unavailable(error: unknown): HttpReply {
  return httpError(
    503,
    `Service Unavailable: the session store cannot be reached (${toError(error).message})`,
    ErrorCode.InternalError,
  );
}
