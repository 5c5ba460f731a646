import { ErrorCode, errorMessage, McpkitError, toError } from '../../jsonrpc/errors.js';
import { encodeMessage, errorResponse } from '../../jsonrpc/parse.js';
import type {
  JsonObject,
  JsonRpcErrorObject,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from '../../jsonrpc/types.js';
import type { MessageContext, SendOptions, Transport, TransportReceiver } from '../../protocol/transport.js';
import { MODERN_ERROR_CODES } from '../../spec/modern.js';
import { type FetchLike, readText } from '../fetch.js';
import { authorizedFetch, type HttpAuthorizer } from './auth-hook.js';
import { encodeParamHeaders, isModernMessage, ModernExchanges } from './modern.js';
import { EVENT_STREAM, StreamResumer } from './resumer.js';
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
  type ReconnectOptions,
  reconnectPolicy,
  requestIds,
} from './shared.js';
import { type Stream, StreamBook } from './streams.js';

/** Options of {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientTransportOptions {
  /** Extra headers on every request (POST, GET, DELETE): an object, or a function called per request. */
  headers?: HeadersOption;
  /** The fetch to use instead of the global one (proxies, tests, custom agents). */
  fetch?: FetchLike;
  /**
   * Authorization for every request (POST, GET, DELETE), e.g. `mcpkit/auth`'s `OAuthClient`: a 401 or 403
   * runs its flow and the request goes again; a stream resumed after a 401 carries the fresh token.
   */
  auth?: HttpAuthorizer;
  /** A session id to use from the start (resuming a session known from earlier). */
  sessionId?: string;
  /** How lost SSE streams are re-opened when the server sent no `retry` field. */
  reconnect?: ReconnectOptions;
  /** The `MCP-Protocol-Version` to send, instead of the one read from the `initialize` result. */
  protocolVersion?: string;
  /** Longest accepted JSON body or SSE event, in characters. Default 16 Mi. */
  maxMessageChars?: number;
  /**
   * HTTP statuses of the POST carrying `initialize` for which `send()` rejects with {@link HttpStatusError}
   * instead of answering the request with an error response. `HttpClientTransport` uses 400, 404 and 405
   * to detect a legacy HTTP+SSE server.
   */
  initializeRejectStatuses?: readonly number[];
}

const ACCEPT_POST = 'application/json, text/event-stream';
/** How long a transparent re-initialization may take before the message that needed it fails. */
const RENEW_TIMEOUT_MS = 30_000;
/** How long `close()` waits for the server to answer the session DELETE. */
const DELETE_TIMEOUT_MS = 5_000;

/**
 * The client side of the Streamable HTTP transport (protocol revisions 2025-03-26 and later): every message
 * is a POST to one endpoint, replies come as JSON or SSE, a GET stream carries server-initiated messages,
 * lost streams resume with `Last-Event-ID` after the server's `retry` interval, and a session the server
 * forgot (404) is re-established once, transparently. A 2026-07-28 message (a protocol version in its
 * `_meta`) goes statelessly instead: `Mcp-*` headers, no session, no resumption, cancelled by closing its
 * stream (see `ModernExchanges`). Runtime-neutral: it needs only `fetch`.
 *
 * @example
 * const client = new Client({ name: 'my-host', version: '1.0.0' });
 * await client.connect(new StreamableHttpClientTransport('http://127.0.0.1:3000/mcp'));
 */
export class StreamableHttpClientTransport implements Transport {
  readonly #url: URL;
  readonly #options: StreamableHttpClientTransportOptions;
  readonly #fetch: FetchLike;
  readonly #maxChars: number;
  readonly #abort = new AbortController();
  readonly #book = new StreamBook();
  readonly #streams: StreamResumer;
  readonly #modern: ModernExchanges;
  /** Requests the transport sent on its own (re-initialization): their responses are not delivered. */
  readonly #internal = new Map<RequestId, (response: JsonRpcResponse) => void>();
  #receiver: TransportReceiver | undefined;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  /** The `initialize` request that went through, replayed when the session must be re-established. */
  #initialize: JsonRpcRequest | undefined;
  #standalone: Stream | undefined;
  #renewing: Promise<void> | undefined;
  #renewals = 0;
  #closing: Promise<void> | undefined;

  constructor(url: string | URL, options: StreamableHttpClientTransportOptions = {}) {
    this.#url = new URL(url);
    this.#options = options;
    const base: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
    this.#fetch = options.auth === undefined ? base : authorizedFetch(base, options.auth);
    this.#maxChars = options.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
    this.#sessionId = options.sessionId;
    this.#streams = new StreamResumer(
      this.#book,
      {
        closing: () => this.#closing !== undefined,
        sessionId: () => this.#sessionId,
        get: (lastEventId) =>
          this.#http('GET', {
            accept: EVENT_STREAM,
            'last-event-id': lastEventId,
            'mcp-session-id': this.#sessionId,
            'mcp-protocol-version': this.protocolVersion,
          }),
        deliverText: (text, related) => this.#deliverText(text, related),
        deliver: (message) => this.#deliver(message),
        report: (error) => this.#report(error),
        renewSession: (lost) => {
          this.#renew(lost).catch((e: unknown) =>
            this.#report(
              new McpkitError(
                'TRANSPORT_ERROR',
                `The server ended the session ${JSON.stringify(lost)} under the standalone GET stream, and a new session could not be started: ${errorMessage(e)}`,
              ),
            ),
          );
        },
      },
      reconnectPolicy(options.reconnect),
      this.#maxChars,
    );
    this.#modern = new ModernExchanges({
      post: (own, body, extra, signal) => this.#http('POST', { ...own, body }, signal, extra),
      deliver: (message, related) =>
        this.#emit(() =>
          this.#receiver?.onmessage(
            message,
            related === undefined ? undefined : { relatedRequestId: related },
          ),
        ),
      invalid: (parsed) => this.#emit(() => this.#receiver?.oninvalid(parsed)),
      report: (error) => this.#report(error),
      maxChars: this.#maxChars,
    });
  }

  /** The session id the server assigned (sent as `MCP-Session-Id`), if any. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** The protocol revision sent as `MCP-Protocol-Version`, once known. */
  get protocolVersion(): string | undefined {
    return this.#options.protocolVersion ?? this.#protocolVersion;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    if (this.#receiver !== undefined) throw new McpkitError('ALREADY_CONNECTED', 'Transport already started');
    if (this.#closing !== undefined) throw new McpkitError('CONNECTION_CLOSED', 'The transport is closed');
    this.#receiver = receiver;
  }

  /**
   * POSTs one message. Resolves once the server accepted it (a reply stream goes on being read in the
   * background). A request the server refuses is answered with a JSON-RPC error response; a notification
   * or response the server refuses, or a server that cannot be reached, makes the returned promise reject.
   * `options.headers` go on the POST (under the transport's own headers; `Mcp-Param-*` values are raw
   * argument values, encoded here with the Base64 form where needed). A 2026-07-28 message is sent
   * statelessly; a `notifications/cancelled` for a 2026-07-28 request closes that request's POST instead
   * of being sent.
   */
  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.#closing !== undefined) throw new McpkitError('CONNECTION_CLOSED', 'The transport is closed');
    if (this.#receiver === undefined) throw new McpkitError('NOT_CONNECTED', 'The transport is not started');
    if (!Array.isArray(message) && 'method' in message && message.method === 'notifications/cancelled') {
      // 2026-07-28 over HTTP: closing the stream is the cancellation, and no notification is POSTed.
      if (this.#modern.cancel(message.params?.requestId) || isModernMessage(message)) return;
    }
    const extra = encodeParamHeaders(options?.headers);
    if (isModernMessage(message)) return this.#modern.send(message, extra);
    this.#observe(message);
    await this.#post(message, this.#book.forRequests(requestIds(message)), false, extra);
  }

  /** Stops every stream and pending reconnection, ends the session with DELETE (405 is fine), then closes. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  // ---- outgoing ----

  /** Notes what the transport must remember about messages passing through. */
  #observe(message: JsonRpcMessage | JsonRpcMessage[]): void {
    for (const m of Array.isArray(message) ? message : [message]) {
      if (!('method' in m)) continue;
      if (m.method === 'initialize' && 'id' in m) this.#initialize = m;
      // A request given up on needs no response, so its stream need not be resumed.
      if (m.method === 'notifications/cancelled') {
        const id = m.params?.requestId;
        if (typeof id === 'string' || typeof id === 'number') this.#book.settled(id);
      }
    }
  }

  async #post(
    message: JsonRpcMessage | JsonRpcMessage[],
    stream: Stream | undefined,
    renewed: boolean,
    extra?: Readonly<Record<string, string>>,
  ) {
    const initialize = !Array.isArray(message) && 'method' in message && message.method === 'initialize';
    // A session being re-established: wait for it rather than go out with no session id at all (its
    // failure, if any, belongs to the message that started it; this one then meets its own 404).
    if (this.#renewing && !initialize && !renewed) await this.#renewing.catch(() => undefined);
    // `initialize` starts a new session: it never carries the old one.
    const session = initialize ? undefined : this.#sessionId;
    let response: Response;
    try {
      response = await this.#http(
        'POST',
        {
          accept: ACCEPT_POST,
          'content-type': 'application/json',
          'mcp-session-id': session,
          'mcp-protocol-version': initialize ? undefined : this.protocolVersion,
          body: encodeMessage(message),
        },
        undefined,
        extra,
      );
    } catch (e) {
      if (stream) this.#book.finish(stream);
      throw this.#closing ? closedError() : networkError(`POST of ${describe(message)}`, e);
    }
    if (response.ok) this.#learnSession(response, initialize);
    if (response.status === 404 && session !== undefined) {
      await discard(response);
      return this.#sessionLost(message, stream, session, renewed, extra);
    }
    if (!response.ok) {
      const error = await errorFromResponse(response, `POST of ${describe(message)}`);
      const rejectOn = this.#options.initializeRejectStatuses;
      // A recognised stateless-revision error is the server's answer, not a sign of another transport: no fallback.
      const modern = MODERN_ERROR_CODES.has(error.code);
      if (
        initialize &&
        stream &&
        !modern &&
        !this.#isInternal(stream) &&
        rejectOn?.includes(response.status)
      ) {
        this.#book.finish(stream);
        throw new HttpStatusError(response.status, error.message, error);
      }
      return this.#refuse(message, stream, error, response.status);
    }
    if (stream === undefined || response.status === 202) {
      await discard(response);
      // A request answered 202 gets its response on another stream, which delivers it without an owner.
      if (stream) this.#book.finish(stream);
      if (isInitialized(message)) this.#openStandalone();
      return;
    }
    const type = mediaType(response);
    if (type === EVENT_STREAM) {
      void this.#streams.consume(stream, response);
      return;
    }
    if (type !== 'application/json') {
      await discard(response);
      return this.#streams.fail(stream, `The server answered with an unexpected content type "${type}"`);
    }
    try {
      this.#deliverText(await readText(response.body, this.#maxChars));
    } catch (e) {
      return this.#streams.fail(stream, `The server's JSON reply could not be read: ${errorMessage(e)}`);
    }
    this.#streams.fail(stream, `The server's JSON reply carried no response to this request`);
  }

  /** A POST carrying a session id got 404: the session is gone. Re-establish it once, then re-send. */
  async #sessionLost(
    message: JsonRpcMessage | JsonRpcMessage[],
    stream: Stream | undefined,
    session: string,
    renewed: boolean,
    extra: Readonly<Record<string, string>> | undefined,
  ): Promise<void> {
    const lost = `The server ended the session ${JSON.stringify(session)} (HTTP 404)`;
    if (renewed) {
      return this.#refuse(message, stream, {
        code: ErrorCode.InternalError,
        message: `${lost} again, right after a new session was started; giving up`,
      });
    }
    try {
      await this.#renew(session);
    } catch (e) {
      return this.#refuse(message, stream, {
        code: ErrorCode.InternalError,
        message: `${lost}, and a new session could not be started: ${errorMessage(e)}`,
      });
    }
    return this.#post(message, stream, true, extra);
  }

  /** The server refused a message: its requests get error responses; anything else rejects `send()`. */
  #refuse(
    message: JsonRpcMessage | JsonRpcMessage[],
    stream: Stream | undefined,
    error: JsonRpcErrorObject,
    status?: number,
  ): void {
    if (stream) {
      this.#streams.fail(stream, error);
      return;
    }
    if (status !== undefined) throw new HttpStatusError(status, error.message, error);
    throw new McpkitError('TRANSPORT_ERROR', `Sending ${describe(message)} failed: ${error.message}`);
  }

  #learnSession(response: Response, initialize: boolean): void {
    const id = response.headers.get('mcp-session-id');
    if (id !== null && /^[\x21-\x7e]+$/.test(id)) this.#sessionId = id;
    else if (id !== null)
      this.#report(new McpkitError('TRANSPORT_ERROR', 'Ignored an invalid MCP-Session-Id'));
    // A server that answers `initialize` without a session id runs sessionless from then on.
    else if (initialize) this.#sessionId = undefined;
  }

  /** Starts a new session with the remembered `initialize` (concurrent callers share one attempt). */
  #renew(failed: string): Promise<void> {
    if (this.#renewing) return this.#renewing;
    if (this.#sessionId !== failed) return Promise.resolve(); // another request already renewed it
    const initialize = this.#initialize;
    if (initialize === undefined) {
      return Promise.reject(new Error('no initialize request went through this transport to replay'));
    }
    this.#renewing = this.#handshake(initialize)
      .catch((e: unknown) => {
        // Keep the dead id: the next message gets its 404 and its own single attempt to renew.
        this.#sessionId ??= failed;
        throw e;
      })
      .finally(() => {
        this.#renewing = undefined;
      });
    return this.#renewing;
  }

  async #handshake(initialize: JsonRpcRequest): Promise<void> {
    this.#sessionId = undefined;
    this.#stopStandalone();
    const request: JsonRpcRequest = { ...initialize, id: `mcpkit-renew-${++this.#renewals}` };
    const response = await this.#internalRequest(request);
    if ('error' in response) throw new Error(`initialize failed: ${response.error.message}`);
    this.#learnVersion(response.result);
    await this.#post({ jsonrpc: '2.0', method: 'notifications/initialized' }, undefined, true);
  }

  async #internalRequest(request: JsonRpcRequest): Promise<JsonRpcResponse> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answer = new Promise<JsonRpcResponse>((resolve) => {
      this.#internal.set(request.id, resolve);
      timer = setTimeout(
        () =>
          resolve(errorResponse(request.id, ErrorCode.InternalError, `no answer in ${RENEW_TIMEOUT_MS} ms`)),
        RENEW_TIMEOUT_MS,
      );
    });
    try {
      await this.#post(request, this.#book.forRequests([request.id]), true);
      return await answer;
    } finally {
      clearTimeout(timer);
      this.#internal.delete(request.id);
    }
  }

  #isInternal(stream: Stream): boolean {
    for (const id of stream.pending) if (this.#internal.has(id)) return true;
    return false;
  }

  async #http(
    method: 'POST' | 'GET' | 'DELETE',
    own: Record<string, string | undefined>,
    signal?: AbortSignal,
    extra?: Readonly<Record<string, string>>,
  ) {
    const { body, ...rest } = own;
    const headers = await buildHeaders(this.#options.headers, rest, extra);
    const init: RequestInit = { method, headers, signal: signal ?? this.#abort.signal };
    if (body !== undefined) init.body = body;
    return this.#fetch(this.#url, init);
  }

  // ---- streams ----

  #openStandalone(): void {
    if (this.#closing || (this.#standalone && !this.#standalone.done)) return;
    const stream = this.#book.standalone();
    this.#standalone = stream;
    void this.#streams.reconnect(stream);
  }

  #stopStandalone(): void {
    if (this.#standalone) this.#book.finish(this.#standalone);
    this.#standalone = undefined;
  }

  // ---- incoming ----

  #deliverText(text: string, related?: RequestId): void {
    eachMessage(
      text,
      (message) => this.#deliver(message, related),
      (parsed) => this.#emit(() => this.#receiver?.oninvalid(parsed)),
    );
  }

  #deliver(message: JsonRpcMessage, related?: RequestId): void {
    if (!('method' in message) && message.id !== null) {
      const id = message.id;
      this.#book.settled(id);
      const waiter = this.#internal.get(id);
      if (waiter) {
        waiter(message);
        return;
      }
      if (id === this.#initialize?.id && 'result' in message) this.#learnVersion(message.result);
    }
    const context: MessageContext | undefined =
      related !== undefined && 'method' in message
        ? this.#sessionId === undefined
          ? { relatedRequestId: related }
          : { sessionId: this.#sessionId, relatedRequestId: related }
        : this.#sessionId === undefined
          ? undefined
          : { sessionId: this.#sessionId };
    this.#emit(() => this.#receiver?.onmessage(message, context));
  }

  #learnVersion(result: JsonObject): void {
    if (typeof result.protocolVersion === 'string') this.#protocolVersion = result.protocolVersion;
  }

  #emit(deliver: () => void): void {
    if (this.#closing) return;
    try {
      deliver();
    } catch (e) {
      this.#report(toError(e));
    }
  }

  #report(error: Error): void {
    try {
      this.#receiver?.onerror(error);
    } catch {
      // The receiver's own error handler failed; there is nowhere left to report that.
    }
  }

  // ---- close ----

  async #shutdown(): Promise<void> {
    this.#abort.abort();
    this.#book.finishAll();
    this.#modern.closeAll();
    for (const [id, waiter] of this.#internal) {
      waiter(errorResponse(id, ErrorCode.InternalError, 'The transport closed'));
    }
    this.#internal.clear();
    if (this.#sessionId !== undefined) await this.#endSession();
    this.#receiver?.onclose();
  }

  async #endSession(): Promise<void> {
    try {
      const response = await this.#http(
        'DELETE',
        { 'mcp-session-id': this.#sessionId, 'mcp-protocol-version': this.protocolVersion },
        AbortSignal.timeout(DELETE_TIMEOUT_MS),
      );
      await discard(response);
      // 405: the server does not let clients end sessions; 404: it is already gone.
      if (!response.ok && response.status !== 405 && response.status !== 404) {
        this.#report(
          new HttpStatusError(response.status, `Ending the session failed: HTTP ${response.status}`),
        );
      }
    } catch (e) {
      this.#report(networkError('Ending the session (DELETE)', e));
    }
  }
}

function isInitialized(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
  return !Array.isArray(message) && 'method' in message && message.method === 'notifications/initialized';
}

function closedError(): McpkitError {
  return new McpkitError('CONNECTION_CLOSED', 'The transport is closed');
}
