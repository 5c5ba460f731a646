import { formatSseEvent, SSE_KEEPALIVE } from '../../../framing/sse.js';
import { ErrorCode, JsonRpcError, toError } from '../../../jsonrpc/errors.js';
import { encodeMessage, errorResponse, resultResponse } from '../../../jsonrpc/parse.js';
import type { JsonObject, JsonRpcRequest, JsonRpcResponse, RequestId } from '../../../jsonrpc/types.js';
import type { IncomingRequest } from '../../../protocol/peer.js';
import { type MessageContext, SENT } from '../../../protocol/transport.js';
import type { RevisionPolicy } from '../../../spec/revision.js';
import type { Notifier } from '../../dispatch/setup.js';
import type { McpServer } from '../../server.js';
import { retryHeaders } from '../core/errors.js';
import { type HttpReply, type HttpRequestLike, SSE_HEADERS, type SseSink, whenGone } from '../core/http.js';
import type { StreamSettings } from './stream-settings.js';

/**
 * One stateless-revision (2026-07-28) request answered on its POST without a session, Peer or transport: the
 * request is self-contained, so the server's dispatch runs directly with this object as the request (its signal is
 * aborted when the client goes away), its message context (`authInfo`, `closeStream`) and its notifier (progress and
 * logs go on the response). The reply is one JSON body, or SSE once a notification must stream first (or always,
 * in 'sse' mode; never in 'json' mode, where notifications are dropped); the result is encoded once.
 */
export class ModernExchange implements IncomingRequest, MessageContext, Notifier {
  readonly request: JsonRpcRequest;
  readonly authInfo: unknown;
  readonly remoteAddress: string | undefined;
  readonly #settings: StreamSettings;
  #controller: AbortController | undefined;
  #cancelled = false;
  #answered = false;
  /** Why the handler's signal is aborted (a disconnect, or the endpoint closing), once it is. */
  #aborted: string | undefined;
  /** Resolves the HTTP reply while it is still undecided (JSON or SSE). */
  #reply: ((reply: HttpReply) => void) | undefined;
  #sse = false;
  /** SSE events waiting for the connection (undefined once attached, or when nothing may be written). */
  #backlog: string[] | undefined;
  #sink: SseSink | undefined;
  #ended = false;
  #closeRequested = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(
    request: JsonRpcRequest,
    authInfo: unknown,
    remoteAddress: string | undefined,
    settings: StreamSettings,
  ) {
    this.request = request;
    this.authInfo = authInfo;
    this.remoteAddress = remoteAddress;
    this.#settings = settings;
  }

  /** The request's message context is the exchange itself (`authInfo`, `remoteAddress`, `closeStream`). */
  get context(): MessageContext {
    return this;
  }

  /** Made when first read: most handlers never look at it. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted !== undefined) this.#controller.abort(this.#aborted);
    }
    return this.#controller.signal;
  }

  /** True once the handler has answered: late progress and logs are dropped. */
  get finished(): boolean {
    return this.#answered;
  }

  get closed(): boolean {
    return this.#answered || this.#cancelled;
  }

  /**
   * Runs the request on `server` and resolves with its HTTP reply; a disconnect before the answer cancels it. While a
   * handler's answer is pending the exchange is in `inFlight`, so closing the endpoint can end it (`shutdown`).
   */
  run(
    server: McpServer,
    req: Pick<HttpRequestLike, 'onGone' | 'signal'>,
    inFlight: Set<ModernExchange>,
  ): Promise<HttpReply> {
    const reply = new Promise<HttpReply>((resolve) => {
      this.#reply = resolve;
    });
    if (this.#settings.responseMode === 'sse') this.#startSse();
    let out: Promise<JsonObject> | JsonObject;
    try {
      out = server.dispatchAlone(this, this);
    } catch (e) {
      this.#failed(server, e);
      return reply;
    }
    if (!(out instanceof Promise)) {
      this.#respond(resultResponse(this.request.id, out));
      return reply;
    }
    whenGone(req, () => this.#cancel());
    inFlight.add(this);
    out.then(
      (result) => {
        inFlight.delete(this);
        this.#respond(resultResponse(this.request.id, result));
      },
      (e: unknown) => {
        inFlight.delete(this);
        this.#failed(server, e);
      },
    );
    return reply;
  }

  /**
   * The endpoint is closing with the handler still at work: its signal aborts and the client is told so (503 and a
   * JSON-RPC error, or that error as the stream's last event); the handler's late answer is dropped.
   */
  shutdown(): void {
    if (this.#answered || this.#cancelled) return;
    this.#controller?.abort('server closing');
    this.#aborted = 'server closing';
    this.#respond(errorResponse(this.request.id, ErrorCode.InternalError, 'Server closing'), 503);
  }

  notify(method: string, params: JsonObject, _related: RequestId, policy: RevisionPolicy): Promise<void> {
    if (this.closed || (!this.#sse && this.#settings.responseMode === 'json')) return SENT;
    const fitting = policy.fitting;
    const fitted = fitting ? fitting.params(method, params) : params;
    this.#startSse();
    this.#write(formatSseEvent({ data: encodeMessage({ jsonrpc: '2.0', method, params: fitted }) }));
    return SENT;
  }

  /** Ends the connection carrying the stream (the stateless revision cannot resume it: later events are lost). */
  closeStream(): void {
    this.#startSse();
    if (this.#sink) this.#detach(true);
    else this.#closeRequested = true;
  }

  #failed(server: McpServer, e: unknown): void {
    let response: JsonRpcResponse;
    if (e instanceof JsonRpcError) response = errorResponse(this.request.id, e.code, e.message, e.data);
    else {
      // Unexpected errors are reported locally; the client sees no stack or internal detail.
      server.error(toError(e), undefined);
      response = errorResponse(this.request.id, ErrorCode.InternalError, 'Internal error');
    }
    this.#respond(response);
  }

  #respond(response: JsonRpcResponse, status?: number): void {
    if (this.#answered) return;
    this.#answered = true;
    if (this.#cancelled) return;
    const body = encodeMessage(response);
    if (!this.#sse) {
      const resolve = this.#reply;
      this.#reply = undefined;
      status ??= this.#settings.statusOf?.(response) ?? 200;
      resolve?.({
        status,
        headers:
          status === 429
            ? retryHeaders(response, { 'content-type': 'application/json' })
            : { 'content-type': 'application/json' },
        body,
      });
      return;
    }
    this.#write(formatSseEvent({ data: body }));
    this.#end();
  }

  /** The client went away before the answer: the handler's signal aborts and nothing more is sent. */
  #cancel(): void {
    if (this.#answered || this.#cancelled) return;
    this.#cancelled = true;
    this.#aborted = 'client disconnected';
    this.#controller?.abort(this.#aborted);
    this.#startSse();
    this.#end();
  }

  #startSse(): void {
    if (this.#sse) return;
    this.#sse = true;
    this.#backlog = [];
    const resolve = this.#reply;
    this.#reply = undefined;
    resolve?.({ status: 200, headers: { ...SSE_HEADERS }, sse: (sink) => this.#attach(sink) });
  }

  #attach(sink: SseSink): void {
    for (const text of this.#backlog ?? []) sink.write(text);
    this.#backlog = undefined;
    if (this.#closeRequested || this.#ended) {
      this.#closeRequested = false;
      sink.close();
      return;
    }
    this.#sink = sink;
    sink.onclose = () => {
      if (this.#sink === sink) this.#detach(false);
    };
    const every = this.#settings.keepAliveMs;
    if (every > 0) {
      this.#keepAlive = setInterval(() => sink.write(SSE_KEEPALIVE), every);
      (this.#keepAlive as { unref?: () => void }).unref?.();
    }
  }

  #write(text: string): void {
    if (this.#sink) {
      if (!this.#sink.write(text)) this.#detach(false);
    } else this.#backlog?.push(text);
  }

  /** The stream has its last event: the connection closes once it is written. */
  #end(): void {
    this.#ended = true;
    if (this.#sink) this.#detach(true);
  }

  #detach(close: boolean): void {
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
    const sink = this.#sink;
    this.#sink = undefined;
    if (close && sink && !sink.closed) sink.close();
  }
}
