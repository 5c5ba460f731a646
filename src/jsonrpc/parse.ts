import { ErrorCode, errorMessage } from './errors.js';
import {
  isJsonObject,
  type JsonObject,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type JsonRpcResultResponse,
  type RequestId,
} from './types.js';

/** What one decoded payload turned out to be. */
export type Parsed =
  | { kind: 'message'; message: JsonRpcMessage }
  | { kind: 'batch'; items: unknown[] }
  | { kind: 'invalid'; error: JsonRpcErrorResponse };

/** Builds an error response (the id is null when it could not be read). */
export function errorResponse(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

function ResultResponse(this: JsonRpcResultResponse, id: RequestId, result: JsonObject): void {
  this.jsonrpc = '2.0';
  this.id = id;
  this.result = result;
}
// An ordinary object to every reader (deep equality included): only how it is allocated differs from a literal.
ResultResponse.prototype = Object.prototype;

// TypeScript types a plain function as callable only: this is the same function, typed as the constructor it is.
const NewResultResponse = ResultResponse as unknown as new (
  id: RequestId,
  result: JsonObject,
) => JsonRpcResultResponse;

/**
 * Builds a success response. Made with `new`, not as an object literal: V8 may pretenure a literal's allocation
 * site (see `RequestSetup` in server/dispatch/setup.ts), and a response allocated in the old generation keeps its
 * young result alive through every scavenge until the next full collection. Objects made with `new` have no
 * allocation site.
 */
export function resultResponse(id: RequestId, result: JsonObject): JsonRpcResultResponse {
  return new NewResultResponse(id, result);
}

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

function isParams(value: unknown): boolean {
  return value === undefined || isJsonObject(value);
}

/**
 * Checks the JSON-RPC 2.0 envelope of an already-parsed value, once, and classifies it.
 * Params and results are left to the method's own handler; only the envelope is checked here.
 */
export function classify(value: unknown): Parsed {
  if (Array.isArray(value)) return { kind: 'batch', items: value };
  if (typeof value !== 'object' || value === null) {
    return invalid(null, 'Invalid Request: a JSON-RPC message must be an object');
  }
  const m = value as Record<string, unknown>;
  const rawId = m.id;
  const id = isId(rawId) ? rawId : null;
  if (m.jsonrpc !== '2.0') return invalid(id, 'Invalid Request: "jsonrpc" must be "2.0"');
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method === '') {
      return invalid(id, 'Invalid Request: "method" must be a non-empty string');
    }
    if (!isParams(m.params)) return invalid(id, 'Invalid Request: "params" must be an object');
    if (!('id' in m)) return { kind: 'message', message: value as JsonRpcMessage };
    if (!isId(rawId)) return invalid(null, 'Invalid Request: "id" must be a string or an integer');
    return { kind: 'message', message: value as JsonRpcMessage };
  }
  if ('result' in m) {
    if (!isId(rawId)) return invalid(null, 'Invalid Request: a response "id" must be a string or an integer');
    if (typeof m.result !== 'object' || m.result === null || Array.isArray(m.result)) {
      return invalid(id, 'Invalid Request: "result" must be an object');
    }
    return { kind: 'message', message: value as JsonRpcMessage };
  }
  if ('error' in m) {
    const e = m.error as Record<string, unknown> | null;
    if (typeof e !== 'object' || e === null || !Number.isInteger(e.code) || typeof e.message !== 'string') {
      return invalid(id, 'Invalid Request: "error" must have an integer code and a string message');
    }
    if (rawId !== null && rawId !== undefined && !isId(rawId)) {
      return invalid(null, 'Invalid Request: an error response "id" must be a string, an integer or null');
    }
    return { kind: 'message', message: value as JsonRpcMessage };
  }
  return invalid(id, 'Invalid Request: a message needs "method", "result" or "error"');
}

/** Parses one JSON text and classifies it; malformed JSON gives a -32700 error with id null. */
export function parseMessage(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const detail = errorMessage(cause);
    return { kind: 'invalid', error: errorResponse(null, ErrorCode.ParseError, `Parse error: ${detail}`) };
  }
  return classify(value);
}

function invalid(id: RequestId | null, message: string): Parsed {
  return { kind: 'invalid', error: errorResponse(id, ErrorCode.InvalidRequest, message) };
}

const ENCODED: unique symbol = Symbol('mcpkit.encoded');
const utf8 = new TextEncoder();

/** A pre-encoded result: its JSON text, and its UTF-8 bytes once a byte transport has asked for them. */
interface Encoded {
  readonly text: string;
  bytes: Uint8Array | undefined;
}

/**
 * Marks a result object as immutable and stores its JSON text once, so every response carrying it
 * splices the text instead of serialising it again (used for cached list results).
 */
export function preEncode<T extends object>(result: T): T {
  const encoded: Encoded = { text: JSON.stringify(result), bytes: undefined };
  Object.defineProperty(result, ENCODED, { value: encoded, enumerable: false });
  return Object.freeze(result);
}

function preEncoded(message: JsonRpcMessage | JsonRpcMessage[]): Encoded | undefined {
  if (Array.isArray(message) || !('result' in message)) return undefined;
  // Only a response's result object can carry the mark; a message that merely has a `result` member (a request
  // with a stray one, say, which the envelope check lets through) is encoded as it is.
  const result: unknown = message.result;
  if (typeof result !== 'object' || result === null) return undefined;
  return (result as { [ENCODED]?: Encoded })[ENCODED];
}

/** Encodes one message (or a batch) as JSON text, without a trailing newline. */
export function encodeMessage(message: JsonRpcMessage | JsonRpcMessage[]): string {
  const encoded = preEncoded(message);
  if (encoded === undefined) return JSON.stringify(message);
  return `{"jsonrpc":"2.0","id":${JSON.stringify((message as JsonRpcResponse).id)},"result":${encoded.text}}`;
}

/**
 * A message ready for a byte stream: JSON text, or for a response carrying a pre-encoded result, the text around
 * that result's UTF-8 bytes (encoded once per result and shared by every response, so a large cached list costs a
 * few bytes of header per reply instead of a string splice and a fresh encoding).
 */
export type EncodedParts = string | readonly [head: string, result: Uint8Array, tail: string];

/** Encodes one message (or a batch) for a byte stream, followed by `terminator` (for example `'\n'`). */
export function encodeMessageParts(
  message: JsonRpcMessage | JsonRpcMessage[],
  terminator = '',
): EncodedParts {
  const encoded = preEncoded(message);
  if (encoded === undefined) return JSON.stringify(message) + terminator;
  encoded.bytes ??= utf8.encode(encoded.text);
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify((message as JsonRpcResponse).id)},"result":`;
  return [head, encoded.bytes, `}${terminator}`];
}
