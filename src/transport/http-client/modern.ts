import { ErrorCode, errorMessage, McpkitError } from '../../jsonrpc/errors.js';
import { encodeMessage, errorResponse, type Parsed } from '../../jsonrpc/parse.js';
import type {
  JsonObject,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from '../../jsonrpc/types.js';
import { claimsModern, META } from '../../spec/modern.js';
import { readText } from '../fetch.js';
import { encodeHeaderValue, nameOf } from '../http-headers.js';
import {
  describe,
  discard,
  eachMessage,
  errorFromResponse,
  HttpStatusError,
  mediaType,
  networkError,
} from './shared.js';
import { readEvents } from './sse-reader.js';

/** A message of protocol revision 2026-07-28 or later: one request or notification whose `_meta` names it. */
export type ModernMessage = JsonRpcRequest | JsonRpcNotification;

/** True when `message` travels statelessly: one POST of its own, no session, no resumption. */
export function isModernMessage(message: JsonRpcMessage | JsonRpcMessage[]): message is ModernMessage {
  return !Array.isArray(message) && 'method' in message && claimsModern(message.params);
}

/**
 * The `data` of the error response that ends a modern request whose response stream broke: such streams
 * cannot be resumed, so the caller may re-issue the request (with a new id).
 */
export const STREAM_BROKEN_DATA = { reason: 'stream-broken' } as const;

/** What {@link ModernExchanges} needs from the transport that owns it. */
export interface ModernHost {
  /** POSTs `body`: the user's headers, then `extra`, then `own` (which win; undefined removes), on `signal`. */
  post(
    own: Readonly<Record<string, string | undefined>>,
    body: string,
    extra: Readonly<Record<string, string>> | undefined,
    signal: AbortSignal,
  ): Promise<Response>;
  /** Hands one received message to the receiver (`related`: the request whose stream carried a notification). */
  deliver(message: JsonRpcMessage, related?: RequestId): void;
  /** Hands a payload that was not one well-formed message to the receiver. */
  invalid(parsed: Exclude<Parsed, { kind: 'message' }>): void;
  /** Reports a problem that ends nothing. */
  report(error: Error): void;
  /** Longest accepted JSON body or SSE event, in characters. */
  readonly maxChars: number;
}

interface Exchange {
  readonly request: JsonRpcRequest;
  readonly controller: AbortController;
  done: boolean;
}

const EVENT_STREAM = 'text/event-stream';

/**
 * The stateless requests of a Streamable HTTP client (protocol revision 2026-07-28): each is its own POST
 * with the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers and no session; its reply is JSON or
 * an SSE stream scoped to it. Cancelling one closes its stream; a stream that breaks is not resumed, the
 * request gets an error response instead. No timers: a `subscriptions/listen` stream lives as long as
 * the server keeps it open.
 */
export class ModernExchanges {
  readonly #host: ModernHost;
  readonly #live = new Map<RequestId, Exchange>();
  /** Aborts notification POSTs under way when the transport closes. */
  readonly #closed = new AbortController();

  constructor(host: ModernHost) {
    this.#host = host;
  }

  /** Number of modern requests still awaiting their response. */
  get inFlight(): number {
    return this.#live.size;
  }

  /**
   * POSTs one modern message. A request resolves once the server accepted it (its reply is read on);
   * any failure after the POST went out becomes its error response. A notification rejects when refused.
   */
  send(message: ModernMessage, extra?: Readonly<Record<string, string>>): Promise<void> {
    return 'id' in message ? this.#request(message, extra) : this.#notify(message, extra);
  }

  /** Cancels the modern request `id` by closing its POST and stream; false when no such request is live. */
  cancel(id: unknown): boolean {
    if (typeof id !== 'string' && typeof id !== 'number') return false;
    const exchange = this.#live.get(id);
    if (exchange === undefined) return false;
    this.#end(exchange);
    exchange.controller.abort();
    return true;
  }

  /** Ends every exchange without answering it (the transport is closing). */
  closeAll(): void {
    this.#closed.abort();
    for (const exchange of [...this.#live.values()]) {
      this.#end(exchange);
      exchange.controller.abort();
    }
  }

  async #request(request: JsonRpcRequest, extra: Readonly<Record<string, string>> | undefined) {
    if (this.#live.has(request.id)) {
      throw new McpkitError('TRANSPORT_ERROR', `${describe(request)} reuses the id of a request in flight`);
    }
    const exchange: Exchange = { request, controller: new AbortController(), done: false };
    this.#live.set(request.id, exchange);
    let response: Response;
    try {
      response = await this.#host.post(
        headersOf(request),
        encodeMessage(request),
        extra,
        exchange.controller.signal,
      );
    } catch (e) {
      if (exchange.done) return; // cancelled (or closed) before the server answered
      this.#end(exchange);
      throw networkError(`POST of ${describe(request)}`, e);
    }
    if (exchange.done) return discard(response);
    if (!response.ok) {
      // 4xx carries the server's JSON-RPC error (-32020, -32021, -32022, -32601, -32602, ...): that is the answer.
      const error = await errorFromResponse(response, `POST of ${describe(request)}`);
      return this.#answer(exchange, errorResponse(request.id, error.code, error.message, error.data));
    }
    const type = mediaType(response);
    if (type === EVENT_STREAM) {
      void this.#stream(exchange, response);
      return;
    }
    if (response.status === 202 || type !== 'application/json') {
      await discard(response);
      return this.#fail(
        exchange,
        response.status === 202
          ? `The server accepted ${describe(request)} (HTTP 202) but sent no response`
          : `The server answered with an unexpected content type "${type}"`,
      );
    }
    let text: string;
    try {
      text = await readText(response.body, this.#host.maxChars);
    } catch (e) {
      return this.#fail(exchange, `The server's JSON reply could not be read: ${errorMessage(e)}`);
    }
    this.#payload(exchange, text);
    this.#fail(exchange, `The server's JSON reply carried no response to ${describe(request)}`);
  }

  async #notify(message: JsonRpcNotification, extra: Readonly<Record<string, string>> | undefined) {
    let response: Response;
    try {
      response = await this.#host.post(
        headersOf(message),
        encodeMessage(message),
        extra,
        this.#closed.signal,
      );
    } catch (e) {
      throw networkError(`POST of ${describe(message)}`, e);
    }
    if (response.ok) return discard(response);
    const error = await errorFromResponse(response, `POST of ${describe(message)}`);
    throw new HttpStatusError(response.status, error.message, error);
  }

  /** Reads a request's SSE stream until its response; a stream that ends first fails the request. */
  async #stream(exchange: Exchange, response: Response): Promise<void> {
    let failure: unknown;
    try {
      await readEvents(
        response.body,
        (event) => {
          // Empty data carries nothing (a priming event); other event types are not MCP messages.
          if (event.data !== '' && (event.event === undefined || event.event === 'message')) {
            this.#payload(exchange, event.data);
          }
          return !exchange.done;
        },
        () => undefined,
        this.#host.maxChars,
      );
    } catch (e) {
      failure = e;
    }
    if (exchange.done) return;
    const why = failure === undefined ? 'the server ended it' : errorMessage(failure);
    this.#fail(
      exchange,
      `The response stream of ${describe(exchange.request)} broke before its response arrived (${why}); ` +
        'streams of protocol revision 2026-07-28 cannot be resumed: re-issue the request with a new id',
      STREAM_BROKEN_DATA,
    );
  }

  #payload(exchange: Exchange, text: string): void {
    eachMessage(
      text,
      (message) => this.#receive(exchange, message),
      (parsed) => this.#host.invalid(parsed),
    );
  }

  #receive(exchange: Exchange, message: JsonRpcMessage): void {
    if (exchange.done) return;
    const id = exchange.request.id;
    if ('method' in message) {
      if ('id' in message) {
        const what = `${describe(message)} on the stream of ${describe(exchange.request)}`;
        this.#host.report(
          new McpkitError('INVALID_MESSAGE', `Dropped a server ${what}: 2026-07-28 servers send no requests`),
        );
        return;
      }
      this.#host.deliver(message, id);
      // A server ending a `subscriptions/listen` stream may say so this way: no response follows.
      if (message.method === 'notifications/cancelled' && message.params?.requestId === id) {
        this.#end(exchange);
      }
      return;
    }
    if (message.id === id) this.#end(exchange);
    this.#host.deliver(message);
  }

  #answer(exchange: Exchange, response: JsonRpcResponse): void {
    if (exchange.done) return;
    this.#end(exchange);
    this.#host.deliver(response);
  }

  #fail(exchange: Exchange, message: string, data?: unknown): void {
    this.#answer(exchange, errorResponse(exchange.request.id, ErrorCode.InternalError, message, data));
  }

  #end(exchange: Exchange): void {
    exchange.done = true;
    if (this.#live.get(exchange.request.id) === exchange) this.#live.delete(exchange.request.id);
  }
}

/**
 * The headers given for one message, with the values of `Mcp-Param-*` headers (raw argument values, as
 * the Client mirrors them) encoded for the wire; other headers pass unchanged.
 */
export function encodeParamHeaders(
  headers: Readonly<Record<string, string>> | undefined,
): Readonly<Record<string, string>> | undefined {
  if (headers === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = /^mcp-param-/i.test(name) ? encodeHeaderValue(value) : value;
  }
  return out;
}

/** The transport's own headers of a modern POST: they win over user headers and remove session state. */
function headersOf(message: ModernMessage): Record<string, string | undefined> {
  const version = (message.params?._meta as JsonObject | undefined)?.[META.protocolVersion];
  const name = nameOf(message);
  return {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': typeof version === 'string' ? version : undefined,
    'mcp-method': encodeHeaderValue(message.method),
    'mcp-name': name === undefined ? undefined : encodeHeaderValue(name),
    'mcp-session-id': undefined,
    'last-event-id': undefined,
  };
}
