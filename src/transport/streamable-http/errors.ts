import { ErrorCode } from '../../jsonrpc/errors.js';
import type { RequestId } from '../../jsonrpc/types.js';
import type { HttpReply } from './exchange.js';

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
