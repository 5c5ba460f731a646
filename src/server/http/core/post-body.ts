import { ErrorCode } from '../../../jsonrpc/errors.js';
import { classify, type Parsed } from '../../../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import { httpError } from './errors.js';
import type { HttpReply, HttpRequestLike } from './http.js';

/** A POST body read and checked: its messages (at least one), whether it was a batch, whether it initializes. */
export interface PostBody {
  readonly messages: JsonRpcMessage[];
  readonly batch: boolean;
  /** True when a message is `initialize` (then it is the only one). */
  readonly init: boolean;
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * The checks of a POST before its body is read: 406 unless the client accepts both JSON and SSE, 415
 * unless it sends JSON, 413 when the declared length passes `maxBody` bytes.
 */
export function refusePostHeaders(req: HttpRequestLike, maxBody: number): HttpReply | undefined {
  const accept = req.header('accept') ?? '';
  if (
    !(accept.includes('application/json') || accept.includes('*/*')) ||
    !(accept.includes('text/event-stream') || accept.includes('*/*'))
  ) {
    return httpError(
      406,
      'Not Acceptable: the client must accept both application/json and text/event-stream',
    );
  }
  const notJson = refuseNonJson(req);
  if (notJson) return notJson;
  const length = Number(req.header('content-length') ?? '0');
  if (length > maxBody) return payloadTooLarge(maxBody);
  return undefined;
}

/** 415 unless the request says its body is JSON (`Content-Type: application/json`, parameters allowed). */
export function refuseNonJson(req: HttpRequestLike): HttpReply | undefined {
  if (JSON_TYPE.test(req.header('content-type') ?? '')) return undefined;
  return httpError(415, 'Unsupported Media Type: the body must be application/json');
}

/** 413: the body passes `maxBody` bytes. */
export function payloadTooLarge(maxBody: number): HttpReply {
  return httpError(413, `Payload Too Large: the body exceeds ${maxBody} bytes`);
}

/**
 * Parses a POST body into JSON-RPC messages. 400 for invalid JSON (-32700), an empty or nested batch, an
 * invalid message (its own JSON-RPC error) and an `initialize` sent with other messages.
 */
export function parseBody(text: string): PostBody | HttpReply {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return httpError(400, 'Parse error: the body is not valid JSON', ErrorCode.ParseError);
  }
  if (!Array.isArray(value)) {
    const parsed = classify(value);
    if (parsed.kind !== 'message') return refuseItem(parsed);
    return { messages: [parsed.message], batch: false, init: isInitialize(parsed.message) };
  }
  if (value.length === 0) return httpError(400, 'Invalid Request: empty batch');
  const messages: JsonRpcMessage[] = [];
  let init = false;
  for (const item of value) {
    const parsed = classify(item);
    if (parsed.kind !== 'message') return refuseItem(parsed);
    messages.push(parsed.message);
    if (!init && isInitialize(parsed.message)) init = true;
  }
  if (init && messages.length > 1) return httpError(400, 'Invalid Request: initialize must be sent alone');
  return { messages, batch: true, init };
}

/** Whether a parse step answered with an error reply instead of a value. */
export function isReply<T extends object>(value: T | HttpReply): value is HttpReply {
  return 'status' in value;
}

function isInitialize(message: JsonRpcMessage): boolean {
  return 'method' in message && message.method === 'initialize';
}

function refuseItem(parsed: Exclude<Parsed, { kind: 'message' }>): HttpReply {
  if (parsed.kind === 'invalid')
    return httpError(400, parsed.error.error.message, parsed.error.error.code, parsed.error.id);
  return httpError(400, 'Invalid Request: nested batch');
}
