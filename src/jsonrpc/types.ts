/** A JSON-RPC request id: a string or an integer, never null. */
export type RequestId = string | number;

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object, as used for params and results. */
export type JsonObject = { [key: string]: unknown };

/** True when `value` is a JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A request: expects exactly one response with the same id. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: JsonObject;
}

/** A notification: no id, never answered. */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}

/** A successful response. */
export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: JsonObject;
}

/** The error object carried by an error response. */
export type JsonRpcErrorObject = {
  code: number;
  message: string;
  data?: unknown;
};

/** An error response; `id` is null (or absent) only when the request's id could not be read. */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

/** Either kind of response. */
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;

/** Any single JSON-RPC 2.0 message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** True for a request (has a method and an id). */
export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message;
}

/** True for a notification (has a method, no id). */
export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return 'method' in message && !('id' in message);
}

/** True for a response of either kind. */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !('method' in message);
}

/** True for an error response. */
export function isErrorResponse(message: JsonRpcMessage): message is JsonRpcErrorResponse {
  return 'error' in message && !('method' in message);
}
