import type { SseEvent } from '../../framing/sse.js';
import { errorMessage, McpkitError, toError } from '../../jsonrpc/errors.js';
import { encodeMessage, errorResponse } from '../../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import type { Transport, TransportReceiver } from '../../protocol/transport.js';
import type { FetchLike } from '../fetch.js';
import { authorizedFetch, type HttpAuthorizer } from './auth-hook.js';
import {
  buildHeaders,
  DEFAULT_MAX_MESSAGE_CHARS,
  describe,
  discard,
  eachMessage,
  errorFromResponse,
  type HeadersOption,
  HttpStatusError,
  mediaType,
  networkError,
  requestIds,
} from './shared.js';
import { readEvents } from './sse-reader.js';

/** Options of {@link SseLegacyClientTransport}. */
export interface SseLegacyClientTransportOptions {
  /** Extra headers on every request (the GET and each POST): an object, or a function called per request. */
  headers?: HeadersOption;
  /** The fetch to use instead of the global one. */
  fetch?: FetchLike;
  /** Authorization for the GET and every POST (e.g. `mcpkit/auth`'s `OAuthClient`): a 401 or 403 runs its flow and the request goes again. */
  auth?: HttpAuthorizer;
  /** How long `start()` waits for the server's `endpoint` event, in ms. Default 10 000. */
  endpointTimeoutMs?: number;
  /** Longest accepted SSE event, in characters. Default 16 Mi. */
  maxMessageChars?: number;
}

/** Default wait for the `endpoint` event. */
const DEFAULT_ENDPOINT_TIMEOUT_MS = 10_000;

/**
 * The client side of the HTTP+SSE transport of protocol revision 2024-11-05: a GET opens an event stream
 * whose first event, `endpoint`, names the URL to POST messages to (it must have the stream's origin);
 * the server's messages arrive as `message` events. The stream cannot be resumed: when it ends, the
 * connection is closed. Runtime-neutral: it needs only `fetch`.
 *
 * @example
 * await client.connect(new SseLegacyClientTransport('http://127.0.0.1:3000/sse'));
 */
export class SseLegacyClientTransport implements Transport {
  readonly #url: URL;
  readonly #options: SseLegacyClientTransportOptions;
  readonly #fetch: FetchLike;
  readonly #abort = new AbortController();
  #receiver: TransportReceiver | undefined;
  #endpoint: URL | undefined;
  #waiting: { resolve: () => void; reject: (error: Error) => void } | undefined;
  #cancel: (() => void) | undefined;
  #state: 'new' | 'starting' | 'open' | 'closed' = 'new';

  constructor(url: string | URL, options: SseLegacyClientTransportOptions = {}) {
    this.#url = new URL(url);
    this.#options = options;
    const base: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
    this.#fetch = options.auth === undefined ? base : authorizedFetch(base, options.auth);
  }

  /** The URL messages are POSTed to, once the server named it. */
  get endpoint(): URL | undefined {
    return this.#endpoint;
  }

  /** Opens the event stream; resolves once the server sent its `endpoint` event. */
  async start(receiver: TransportReceiver): Promise<void> {
    if (this.#state !== 'new') throw new McpkitError('ALREADY_CONNECTED', 'Transport already started');
    this.#state = 'starting';
    this.#receiver = receiver;
    let response: Response;
    try {
      response = await this.#fetch(this.#url, {
        method: 'GET',
        headers: await buildHeaders(this.#options.headers, { accept: 'text/event-stream' }),
        signal: this.#abort.signal,
      });
    } catch (e) {
      this.#state = 'closed';
      throw networkError(`GET ${this.#url.href}`, e);
    }
    if (!response.ok || mediaType(response) !== 'text/event-stream') {
      this.#state = 'closed';
      if (response.ok) {
        await discard(response);
        const type = mediaType(response) || 'no content type';
        throw new McpkitError(
          'TRANSPORT_ERROR',
          `GET ${this.#url.href} answered with ${type}, not an event stream`,
        );
      }
      const error = await errorFromResponse(response, `GET ${this.#url.href}`);
      throw new HttpStatusError(response.status, error.message, error);
    }
    const ms = this.#options.endpointTimeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      this.#waiting = { resolve, reject };
      timer = setTimeout(
        () =>
          this.#startFailed(
            new McpkitError('TRANSPORT_ERROR', `The server sent no endpoint event within ${ms} ms`),
          ),
        ms,
      );
    });
    void this.#read(response);
    try {
      await ready;
    } finally {
      clearTimeout(timer);
    }
  }

  /** POSTs one message to the endpoint. A refused request is answered with an error response. */
  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#state === 'closed') throw new McpkitError('CONNECTION_CLOSED', 'The transport is closed');
    const endpoint = this.#endpoint;
    if (this.#state !== 'open' || endpoint === undefined) {
      throw new McpkitError('NOT_CONNECTED', 'The transport is not started');
    }
    let response: Response;
    try {
      response = await this.#fetch(endpoint, {
        method: 'POST',
        headers: await buildHeaders(this.#options.headers, { 'content-type': 'application/json' }),
        body: encodeMessage(message),
        signal: this.#abort.signal,
      });
    } catch (e) {
      if (this.#abort.signal.aborted) throw new McpkitError('CONNECTION_CLOSED', 'The transport is closed');
      throw networkError(`POST of ${describe(message)}`, e);
    }
    if (response.ok) return discard(response);
    const error = await errorFromResponse(response, `POST of ${describe(message)}`);
    const ids = requestIds(message);
    if (ids.length === 0) throw new HttpStatusError(response.status, error.message, error);
    for (const id of ids) this.#deliver(errorResponse(id, error.code, error.message, error.data));
  }

  /** Stops the event stream and any POST under way; `onclose` follows once. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasOpen = this.#state === 'open';
    this.#shutdown();
    if (!wasOpen)
      this.#startFailed(new McpkitError('CONNECTION_CLOSED', 'The transport was closed while starting'));
    this.#receiver?.onclose();
  }

  async #read(response: Response): Promise<void> {
    let failure: unknown;
    try {
      await readEvents(
        response.body,
        (event) => this.#onEvent(event),
        (cancel) => {
          this.#cancel = cancel;
        },
        this.#options.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS,
      );
    } catch (e) {
      failure = e;
    }
    if (this.#state === 'closed') return;
    const detail = failure === undefined ? 'the server ended it' : errorMessage(failure);
    const error = new McpkitError('CONNECTION_CLOSED', `The SSE stream was lost: ${detail}`);
    if (this.#state === 'starting') return this.#startFailed(error);
    this.#shutdown();
    this.#receiver?.onclose(error);
  }

  #onEvent(event: SseEvent): boolean {
    if (event.event === 'endpoint') return this.#onEndpoint(event.data);
    if ((event.event === undefined || event.event === 'message') && event.data !== '')
      this.#deliverText(event.data);
    return this.#state !== 'closed';
  }

  #onEndpoint(data: string): boolean {
    if (this.#state !== 'starting') return true; // a repeated endpoint event changes nothing
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.#url);
    } catch {
      this.#startFailed(
        new McpkitError('TRANSPORT_ERROR', `The endpoint event named an invalid URL: ${data}`),
      );
      return false;
    }
    if (endpoint.origin !== this.#url.origin) {
      this.#startFailed(
        new McpkitError(
          'TRANSPORT_ERROR',
          `Refused the endpoint ${endpoint.origin}: it is not the origin of the SSE stream (${this.#url.origin})`,
        ),
      );
      return false;
    }
    this.#endpoint = endpoint;
    this.#state = 'open';
    this.#waiting?.resolve();
    this.#waiting = undefined;
    return true;
  }

  #startFailed(error: Error): void {
    this.#shutdown();
    this.#waiting?.reject(error);
    this.#waiting = undefined;
  }

  #shutdown(): void {
    this.#state = 'closed';
    this.#abort.abort();
    this.#cancel?.();
  }

  #deliverText(text: string): void {
    eachMessage(
      text,
      (message) => this.#deliver(message),
      (parsed) => this.#receiver?.oninvalid(parsed),
    );
  }

  #deliver(message: JsonRpcMessage): void {
    if (this.#state === 'closed') return;
    try {
      this.#receiver?.onmessage(message);
    } catch (e) {
      this.#receiver?.onerror(toError(e));
    }
  }
}
