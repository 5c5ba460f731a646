/**
 * What a span says of a failure, as the MCP conventions ask: `error.type` the JSON-RPC error code, `tool_error` for a
 * tool result with `isError`, `timeout` and `cancelled` for requests given up on; the status message the error's.
 */
import { JsonRpcError, McpkitError } from '../jsonrpc/errors.js';

/** The `error.type`, the `rpc.response.status_code` when there was a JSON-RPC error, and the status message. */
export interface Failure {
  readonly type: string;
  readonly statusCode?: string | undefined;
  readonly message: string;
}

/** The failure an operation ended with (thrown, or a JSON-RPC error object from the wire). */
export function failureOf(error: unknown): Failure {
  if (error instanceof JsonRpcError)
    return { type: String(error.code), statusCode: String(error.code), message: error.message };
  if (error instanceof McpkitError) {
    const type =
      error.code === 'REQUEST_TIMEOUT'
        ? 'timeout'
        : error.code === 'REQUEST_CANCELLED'
          ? 'cancelled'
          : error.code.toLowerCase();
    return { type, message: error.message };
  }
  if (isWireError(error))
    return { type: String(error.code), statusCode: String(error.code), message: error.message };
  if (error instanceof Error)
    return { type: error.name === 'Error' ? '_OTHER' : error.name, message: error.message };
  return { type: '_OTHER', message: String(error) };
}

/** A result whose `isError` says the tool failed. */
export function isToolError(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true;
}

/** The failure of a tool result with `isError`. */
export const TOOL_ERROR: Failure = { type: 'tool_error', message: 'the tool returned isError' };

function isWireError(error: unknown): error is { code: number; message: string } {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'number' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}
