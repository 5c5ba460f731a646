import { formatSseEvent, SSE_KEEPALIVE } from '../../../framing/sse.js';
import { ErrorCode, JsonRpcError, McpkitError, toError } from '../../../jsonrpc/errors.js';
import { encodeMessage, errorResponse, resultResponse } from '../../../jsonrpc/parse.js';
import type {
  JsonObject,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from '../../../jsonrpc/types.js';
import type { IncomingRequest } from '../../../protocol/peer.js';
import { type MessageContext, SENT } from '../../../protocol/transport.js';
import type { RevisionPolicy } from '../../../spec/revision.js';
import type { Notifier } from '../../dispatch/setup.js';
import type { McpServer } from '../../server.js';
import { retryHeaders } from '../core/errors.js';
import { type HttpReply, type HttpRequestLike, SSE_HEADERS, type SseSink, whenGone } from '../core/http.js';
import type { StreamSettings } from './stream-settings.js';

/**
 * The reply of a POST answered without a session, Peer or transport (`Exchange`: one request, of either era;
 * `BatchExchange`: a 2025-03-26 batch): the server's dispatch runs directly, with this as the requests' message context
 * (`authInfo`, `remoteAddress`) and their notifier (progress and logs go on the response). The reply is one JSON body,
 * or SSE once a notification must stream first (or always, in 'sse' mode; never in 'json' mode, where notifications
 * are dropped); each response is encoded once. It has no `closeStream`: its stream cannot be resumed (no session, no
 * event store; 2026-07-28 has no resumption), so closing it would lose the answer, and `ctx.closeStream()` does nothing.
 */
export abstract class ExchangeReply implements MessageContext, Notifier {
  readonly authInfo: unknown;
  readonly remoteAddress: string | undefined;
  protected readonly settings: StreamSettings;
  /** Resolves the HTTP reply once `replied()` has promised it and it is still undecided (JSON or SSE). */
  #reply: ((reply: HttpReply) => void) | undefined;
  /** The reply decided before anything waited for it (a handler that answered synchronously): no promise is made. */
  #decided: HttpReply | undefined;
  /** True until the reply is decided. */
  #undecided = true;
  #sse = false;
  /** SSE events waiting for the connection (undefined once attached, or when nothing may be written). */
  #backlog: string[] | undefined;
  #sink: SseSink | undefined;
  #ended = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(authInfo: unknown, remoteAddress: string | undefined, settings: StreamSettings) {
    this.authInfo = authInfo;
    this.remoteAddress = remoteAddress;
    this.settings = settings;
  }

  /** True once nothing more can be delivered (every response sent, or the client gone). */
  abstract get closed(): boolean;

  /** Whether the reply streams server-sent events. */
  protected get sse(): boolean {
    return this.#sse;
  }

  /** Begins the reply: in 'sse' mode it is decided at once (SSE), else by the answer or the first event. */
  protected open(): void {
    if (this.settings.responseMode === 'sse') this.startSse();
  }

  /**
   * The HTTP reply: itself when already decided (a synchronous answer, or 'sse' mode; no promise is made), else a
   * promise resolved once it is.
   */
  protected replied(): HttpReply | Promise<HttpReply> {
    const decided = this.#decided;
    if (decided !== undefined) {
      this.#decided = undefined;
      return decided;
    }
    return new Promise<HttpReply>((resolve) => {
      this.#reply = resolve;
    });
  }

  /** The reply is decided (once): to whoever waits for it, or kept for `replied()`. */
  #decide(reply: HttpReply): void {
    if (!this.#undecided) return;
    this.#undecided = false;
    const resolve = this.#reply;
    this.#reply = undefined;
    if (resolve) resolve(reply);
    else this.#decided = reply;
  }

  notify(method: string, params: JsonObject, _related: RequestId, policy: RevisionPolicy): Promise<void> {
    if (this.closed || (!this.#sse && this.settings.responseMode === 'json')) return SENT;
    const fitting = policy.fitting;
    const fitted = fitting ? fitting.params(method, params) : params;
    this.startSse();
    this.write(formatSseEvent({ data: encodeMessage({ jsonrpc: '2.0', method, params: fitted }) }));
    return SENT;
  }

  /** The whole reply as one JSON body (`single`: its one response, whose error may make it a 429 or a 4xx). */
  protected replyJson(body: string, single: JsonRpcResponse | undefined, status?: number): void {
    if (!this.#undecided) return;
    status ??= single === undefined ? 200 : (this.settings.statusOf?.(single) ?? 200);
    this.#decide({
      status,
      headers:
        status === 429 && single !== undefined
          ? retryHeaders(single, { 'content-type': 'application/json' })
          : { 'content-type': 'application/json' },
      body,
    });
  }

  /** Switches the reply to server-sent events (once); `onSse` writes what waited for it. */
  protected startSse(): void {
    if (this.#sse) return;
    this.#sse = true;
    this.#backlog = [];
    this.#decide({ status: 200, headers: { ...SSE_HEADERS }, sse: (sink) => this.#attach(sink) });
    this.onSse();
  }

  /** What a reply had collected as JSON before it became SSE goes out first (a batch's earlier responses). */
  protected onSse(): void {}

  protected write(text: string): void {
    if (this.#sink) {
      if (!this.#sink.write(text)) this.#detach(false);
    } else this.#backlog?.push(text);
  }

  /** The stream has its last event: the connection closes once it is written. */
  protected end(): void {
    this.#ended = true;
    if (this.#sink) this.#detach(true);
  }

  /** A response's error: a JSON-RPC error as it is; anything else reported to the server, the client told no more. */
  protected failure(server: McpServer, id: RequestId, e: unknown): JsonRpcResponse {
    if (e instanceof JsonRpcError) return errorResponse(id, e.code, e.message, e.data);
    // Unexpected errors are reported locally; the client sees no stack or internal detail.
    server.error(toError(e), undefined);
    return errorResponse(id, ErrorCode.InternalError, 'Internal error');
  }

  #attach(sink: SseSink): void {
    for (const text of this.#backlog ?? []) sink.write(text);
    this.#backlog = undefined;
    if (this.#ended) {
      sink.close();
      return;
    }
    this.#sink = sink;
    sink.onclose = () => {
      if (this.#sink === sink) this.#detach(false);
    };
    const every = this.settings.keepAliveMs;
    if (every > 0) {
      this.#keepAlive = setInterval(() => sink.write(SSE_KEEPALIVE), every);
      (this.#keepAlive as { unref?: () => void }).unref?.();
    }
  }

  #detach(close: boolean): void {
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
    const sink = this.#sink;
    this.#sink = undefined;
    if (close && sink && !sink.closed) sink.close();
  }
}

/**
 * One request answered on its POST without a session, Peer or transport: this object is the request itself (its
 * signal is made when first read), its message context and its notifier. A 2026-07-28 request is cancelled when its
 * client goes away; a request of an earlier revision (`policy`: its header's, on an endpoint without sessions) is not,
 * as on a session (the spec's rule for those revisions), but nothing more is written for it once its client is gone.
 */
export class Exchange extends ExchangeReply implements IncomingRequest {
  readonly request: JsonRpcRequest;
  readonly #policy: RevisionPolicy | undefined;
  #controller: AbortController | undefined;
  #cancelled = false;
  #answered = false;
  /** Why the handler's signal is aborted (a disconnect, or the endpoint closing), once it is. */
  #aborted: string | undefined;

  constructor(
    request: JsonRpcRequest,
    authInfo: unknown,
    remoteAddress: string | undefined,
    settings: StreamSettings,
    policy?: RevisionPolicy,
  ) {
    super(authInfo, remoteAddress, settings);
    this.request = request;
    this.#policy = policy;
  }

  /** The request's message context is the exchange itself (`authInfo`, `remoteAddress`). */
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
   * Runs the request on `server` and resolves with its HTTP reply. While a handler's answer is pending the exchange is
   * in `inFlight`, so closing the endpoint can end it (`shutdown`).
   */
  run(
    server: McpServer,
    req: Pick<HttpRequestLike, 'onGone' | 'signal'>,
    inFlight: Set<ExchangeReply & { shutdown(): void }>,
  ): HttpReply | Promise<HttpReply> {
    this.open();
    let out: Promise<JsonObject> | JsonObject;
    try {
      out = server.dispatchAlone(this, this, this.#policy);
    } catch (e) {
      this.#respond(this.failure(server, this.request.id, e));
      return this.replied();
    }
    if (!(out instanceof Promise)) {
      // Answered synchronously: the reply is returned as it is, with no promise made for it.
      this.#respond(resultResponse(this.request.id, out));
      return this.replied();
    }
    const reply = this.replied();
    if (this.#policy === undefined) whenGone(req, () => this.#cancel());
    inFlight.add(this);
    out.then(
      (result) => {
        inFlight.delete(this);
        this.#respond(resultResponse(this.request.id, result));
      },
      (e: unknown) => {
        inFlight.delete(this);
        this.#respond(this.failure(server, this.request.id, e));
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

  #respond(response: JsonRpcResponse, status?: number): void {
    if (this.#answered) return;
    this.#answered = true;
    if (this.#cancelled) return;
    const body = encodeMessage(response);
    if (!this.sse) {
      this.replyJson(body, response, status);
      return;
    }
    this.write(formatSseEvent({ data: body }));
    this.end();
  }

  /** The client went away before the answer: the handler's signal aborts and nothing more is sent. */
  #cancel(): void {
    if (this.#answered || this.#cancelled) return;
    this.#cancelled = true;
    this.#aborted = 'client disconnected';
    this.#controller?.abort(this.#aborted);
    this.startSse();
    this.end();
  }
}

/**
 * A notification (or a response) that came without a session: a notification reaches the server as from a client
 * without one; a response answers nothing this side sent, and is reported.
 */
export function deliverAlone(server: McpServer, message: JsonRpcNotification | JsonRpcResponse): void {
  if ('method' in message) server.notificationAlone(message);
  else
    server.error(
      new McpkitError('INVALID_MESSAGE', `Received a response for unknown request id ${String(message.id)}`),
      undefined,
    );
}
