import { ErrorCode, errorMessage, McpkitError } from '../../jsonrpc/errors.js';
import { classify, type Parsed, parseMessage } from '../../jsonrpc/parse.js';
import type { JsonRpcErrorObject, JsonRpcMessage, RequestId } from '../../jsonrpc/types.js';
import { readText } from '../fetch.js';

/** Headers as `new Headers(...)` accepts them. */
export type HeadersLike = ConstructorParameters<typeof Headers>[0];

/** Extra headers for every HTTP request: fixed, or computed per request (an access token that refreshes). */
export type HeadersOption = HeadersLike | (() => HeadersLike | Promise<HeadersLike>);

/** How a lost SSE stream is re-opened when the server gave no `retry` field. */
export interface ReconnectOptions {
  /** Delay before the first reconnection attempt, in ms. Default 1000. */
  initialDelayMs?: number;
  /** Upper bound of the delay, in ms. Default 30 000. */
  maxDelayMs?: number;
  /** Growth of the delay per failed attempt. Default 1.5. */
  factor?: number;
  /** Consecutive failed attempts before giving up. Default 5. */
  maxRetries?: number;
}

/** {@link ReconnectOptions} with every default filled in. */
export type ReconnectPolicy = Required<ReconnectOptions>;

/** The defaults of {@link ReconnectOptions}. */
export const DEFAULT_RECONNECT: ReconnectPolicy = {
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  factor: 1.5,
  maxRetries: 5,
};

/** Fills in the defaults of a reconnection policy. */
export function reconnectPolicy(options: ReconnectOptions | undefined): ReconnectPolicy {
  return { ...DEFAULT_RECONNECT, ...options };
}

/** The delay before reconnection attempt number `attempt` (0-based): bounded exponential growth. */
export function backoffDelay(policy: ReconnectPolicy, attempt: number): number {
  return Math.min(policy.initialDelayMs * policy.factor ** attempt, policy.maxDelayMs);
}

/** Default upper bound of one message (a JSON body or one SSE event): 16 Mi characters. */
export const DEFAULT_MAX_MESSAGE_CHARS = 16 * 1024 * 1024;

/**
 * An HTTP request of a transport was answered with an error status. A local error (code `TRANSPORT_ERROR`)
 * that also carries the status and, when the body held one, the server's JSON-RPC error.
 */
export class HttpStatusError extends McpkitError {
  /** The HTTP status. */
  readonly status: number;
  /** The JSON-RPC error the response body carried, if any. */
  readonly body: JsonRpcErrorObject | undefined;

  constructor(status: number, message: string, body?: JsonRpcErrorObject) {
    super('TRANSPORT_ERROR', message);
    this.name = 'HttpStatusError';
    this.status = status;
    this.body = body;
  }
}

/**
 * Builds the headers of one request: the user's first, then those given for this one message (`extra`:
 * the `Mcp-Param-*` mirrors), then the transport's own, which win; an own header given as undefined is
 * removed (a user header must not invent a session id or an event cursor).
 */
export async function buildHeaders(
  option: HeadersOption | undefined,
  own: Readonly<Record<string, string | undefined>>,
  extra?: Readonly<Record<string, string>>,
): Promise<Headers> {
  const headers = new Headers(typeof option === 'function' ? await option() : option);
  if (extra !== undefined) for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  for (const [name, value] of Object.entries(own)) {
    if (value === undefined) headers.delete(name);
    else headers.set(name, value);
  }
  return headers;
}

/** The media type of a response, lower-cased, without parameters ('' when absent). */
export function mediaType(response: Response): string {
  const type = response.headers.get('content-type') ?? '';
  const semi = type.indexOf(';');
  return (semi < 0 ? type : type.slice(0, semi)).trim().toLowerCase();
}

/** Drops a response body that will not be read, so the connection is released. */
export async function discard(response: Response): Promise<void> {
  // Cancelling a body that already ended or errored rejects; there is nothing left to release then.
  await response.body?.cancel().catch(() => undefined);
}

/** True for statuses worth retrying later: timeouts, conflicts, rate limits and server errors. */
export function isRetriableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

/** Ids of the requests in an outgoing message or batch (responses and notifications have none to wait for). */
export function requestIds(message: JsonRpcMessage | JsonRpcMessage[]): RequestId[] {
  const ids: RequestId[] = [];
  for (const m of Array.isArray(message) ? message : [message]) {
    if ('method' in m && 'id' in m) ids.push(m.id);
  }
  return ids;
}

/** A short human name for a message, for error texts: `request "tools/call" (id 4)`. */
export function describe(message: JsonRpcMessage | JsonRpcMessage[]): string {
  if (Array.isArray(message)) return `batch of ${message.length} messages`;
  if ('method' in message) {
    return 'id' in message
      ? `request "${message.method}" (id ${JSON.stringify(message.id)})`
      : `notification "${message.method}"`;
  }
  return `response (id ${JSON.stringify(message.id)})`;
}

const MAX_ERROR_BODY_CHARS = 64 * 1024;

/**
 * Reads an error response into a JSON-RPC error object: the body's own JSON-RPC error when it has one,
 * else one naming the status (4xx as Invalid Request, others as Internal Error) and the start of the body.
 */
export async function errorFromResponse(response: Response, what: string): Promise<JsonRpcErrorObject> {
  let text = '';
  try {
    text = await readText(response.body, MAX_ERROR_BODY_CHARS);
  } catch (e) {
    // An unreadable or oversized error body: the status alone still tells what happened.
    text = e instanceof Error ? `(body unreadable: ${e.message})` : '';
  }
  const fromBody = jsonRpcError(text);
  if (fromBody) return fromBody;
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const snippet = text.trim().slice(0, 200);
  return {
    code:
      response.status >= 400 && response.status < 500 ? ErrorCode.InvalidRequest : ErrorCode.InternalError,
    message: `${what} failed: ${status}${snippet ? `: ${snippet}` : ''}`,
    data: { status: response.status },
  };
}

function jsonRpcError(text: string): JsonRpcErrorObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // not JSON: the caller describes the body as text
  }
  const error = (value as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  if (typeof error !== 'object' || error === null) return undefined;
  if (!Number.isInteger(error.code) || typeof error.message !== 'string') return undefined;
  const result: JsonRpcErrorObject = { code: error.code as number, message: error.message };
  if (error.data !== undefined) result.data = error.data;
  return result;
}

/**
 * Wraps a failure to reach the server (DNS, refused connection, reset) as a local transport error. An
 * authorization failure (an `AUTH_*` error of the transport's `auth`) passes through with its own code.
 */
export function networkError(what: string, cause: unknown): McpkitError {
  if (cause instanceof McpkitError && cause.code.startsWith('AUTH_')) return cause;
  const detail = cause instanceof Error ? describeCause(cause) : errorMessage(cause);
  return new McpkitError('TRANSPORT_ERROR', `${what} failed: ${detail}`, { cause });
}

function describeCause(error: Error): string {
  // undici reports "fetch failed" and hides the useful part (ECONNREFUSED, ...) in `cause`.
  const inner = (error as { cause?: unknown }).cause;
  return inner instanceof Error && inner.message ? `${error.message} (${inner.message})` : error.message;
}

/**
 * Splits one received payload (a JSON body or one SSE event's data) into messages: a single message, or
 * each element of a JSON array; whatever is not a well-formed message goes to `invalid`.
 */
export function eachMessage(
  text: string,
  message: (message: JsonRpcMessage) => void,
  invalid: (parsed: Exclude<Parsed, { kind: 'message' }>) => void,
): void {
  const parsed = parseMessage(text);
  if (parsed.kind === 'message') message(parsed.message);
  else if (parsed.kind === 'invalid') invalid(parsed);
  else {
    // A JSON array: several messages in one body (JSON replies to batches, or 2025-03-26 servers).
    for (const item of parsed.items) {
      const one = classify(item);
      if (one.kind === 'message') message(one.message);
      else invalid(one);
    }
  }
}
