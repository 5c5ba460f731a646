import { ErrorCode, JsonRpcError, McpkitError, toError } from '../jsonrpc/errors.js';
import { IdMap } from '../jsonrpc/id-map.js';
import { classify, errorResponse, type Parsed, resultResponse } from '../jsonrpc/parse.js';
import type {
  JsonObject,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from '../jsonrpc/types.js';
import type { ProgressParams } from '../spec/types.js';
import { OutgoingRequests, type RequestOptions } from './outgoing.js';
import {
  type MessageContext,
  SENT,
  type SendOptions,
  type Transport,
  type TransportReceiver,
} from './transport.js';

/** What a request handler gets besides the request itself. */
export interface IncomingRequest {
  request: JsonRpcRequest;
  /** Aborted when the peer cancels the request or the connection closes. */
  signal: AbortSignal;
  /** True once the request has been answered (or given up): late progress and logs are dropped. */
  readonly finished?: boolean;
  context: MessageContext | undefined;
}

/** The side-specific behaviour a Peer delegates to (server session or client). */
export interface PeerHandlers {
  /** Answers one request; throw a JsonRpcError to answer with that error. */
  request(incoming: IncomingRequest): Promise<JsonObject> | JsonObject;
  /** Handles one notification other than progress and cancellation. */
  notification(notification: JsonRpcNotification, context: MessageContext | undefined): void;
  /** Whether a JSON-RPC batch is acceptable right now (only the 2025-03-26 revision allows them). */
  batchAllowed(): boolean;
  /** The reason batches are refused, for the error message. */
  batchRefusal(): string;
  /** Reports a problem that did not stop the connection. */
  error(error: Error): void;
  /** The connection closed. */
  closed(error: Error | undefined): void;
}

/** Options of a Peer. */
export interface PeerOptions {
  /** Whether malformed payloads are answered with a JSON-RPC error (servers) or only reported (clients). */
  answerInvalid: boolean;
}

/**
 * One end of a JSON-RPC connection: sends requests and correlates responses, runs incoming requests
 * with an AbortSignal, handles progress and cancellation, and answers malformed input. Side-agnostic.
 */
export class Peer {
  readonly transport: Transport;
  readonly #handlers: PeerHandlers;
  readonly #options: PeerOptions;
  /** Requests this side sent; made on the first one (most server sessions never send any). */
  #outgoing: OutgoingRequests | undefined;
  /** The requests being answered: usually one at a time, which an `IdMap` holds without a hash table. */
  readonly #incoming = new IdMap<RequestId, Cancellation>();
  #closed = false;
  /** The other side will send nothing more: close once every request being answered has its answer sent. */
  #ended = false;

  /**
   * What the transport calls: methods on a prototype holding one reference, rather than four closures per
   * connection (a server keeps one Peer per session, so this is per-session memory).
   */
  static readonly #Receiver = class implements TransportReceiver {
    readonly #peer: Peer;
    constructor(peer: Peer) {
      this.#peer = peer;
    }
    onmessage(message: JsonRpcMessage, context?: MessageContext): void {
      this.#peer.receive(message, context);
    }
    oninvalid(parsed: Exclude<Parsed, { kind: 'message' }>, context?: MessageContext): void {
      this.#peer.#invalid(parsed, context);
    }
    onerror(error: Error): void {
      this.#peer.#handlers.error(error);
    }
    onclose(error?: Error): void {
      this.#peer.#onclose(error);
    }
    onend(): void {
      this.#peer.#onend();
    }
  };

  constructor(transport: Transport, handlers: PeerHandlers, options: PeerOptions) {
    this.transport = transport;
    this.#handlers = handlers;
    this.#options = options;
  }

  /** Starts the transport and begins receiving. */
  start(): Promise<void> {
    return this.transport.start(new Peer.#Receiver(this));
  }

  #outgoingRequests(): OutgoingRequests {
    this.#outgoing ??= new OutgoingRequests((id, reason) => {
      this.notify('notifications/cancelled', { requestId: id, reason }).catch((e: unknown) =>
        this.#report(e),
      );
    });
    return this.#outgoing;
  }

  /** True once the connection has closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Number of incoming requests being handled. */
  get inFlight(): number {
    return this.#incoming.size;
  }

  /** Sends a request and resolves with its result (rejects with JsonRpcError or McpkitError). */
  request(
    method: string,
    params: JsonObject | undefined,
    options?: RequestOptions,
    send?: SendOptions,
  ): Promise<JsonObject> {
    return this.begin(method, params, options, send).promise;
  }

  /** Sends a request and returns its id with the promise of its result (for long-lived requests). */
  begin(
    method: string,
    params: JsonObject | undefined,
    options?: RequestOptions,
    send?: SendOptions,
  ): { id: RequestId; promise: Promise<JsonObject> } {
    if (this.#closed) {
      return {
        id: -1,
        promise: Promise.reject(new McpkitError('NOT_CONNECTED', 'The connection is closed')),
      };
    }
    const outgoing = this.#outgoingRequests();
    const { id, promise } = outgoing.begin(method, options);
    // Already cancelled: the request is never sent.
    if (options?.signal?.aborted) return { id, promise };
    let p = params;
    if (options?.onprogress) {
      const meta = (params?._meta as JsonObject | undefined) ?? {};
      p = { ...params, _meta: { ...meta, progressToken: id } };
    }
    const message: JsonRpcRequest =
      p === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: p };
    this.transport.send(message, send).catch((e: unknown) => outgoing.failSend(id, toError(e)));
    return { id, promise };
  }

  /** The options of an outgoing request still awaiting its response (a message related to it may need them). */
  outgoingOptions(id: RequestId): RequestOptions | undefined {
    return this.#outgoing?.options(id);
  }

  /** Sends a notification. */
  notify(method: string, params?: JsonObject, send?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new McpkitError('NOT_CONNECTED', 'The connection is closed'));
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.transport.send(message, send);
  }

  /** Closes the transport. */
  close(): Promise<void> {
    return this.transport.close();
  }

  /** Handles one incoming well-formed message. */
  receive(message: JsonRpcMessage, context?: MessageContext): void {
    if ('method' in message) {
      if ('id' in message) this.#runRequest(message, context);
      else this.#notification(message, context);
      return;
    }
    if (!this.#outgoing?.settle(message)) {
      this.#handlers.error(
        new McpkitError(
          'INVALID_MESSAGE',
          `Received a response for unknown request id ${String(message.id)}`,
        ),
      );
    }
  }

  #notification(notification: JsonRpcNotification, context: MessageContext | undefined): void {
    const params = notification.params;
    if (notification.method === 'notifications/cancelled') {
      const id = params?.requestId;
      // A cancel for an unknown or finished request is ignored, as the spec asks.
      if (typeof id === 'string' || typeof id === 'number')
        this.#incoming.get(id)?.cancel(params?.reason ?? 'cancelled');
      return;
    }
    if (notification.method === 'notifications/progress') {
      if (params && isProgress(params)) this.#outgoing?.progress(params);
      return;
    }
    this.#handlers.notification(notification, context);
  }

  /** Runs one request and sends its answer; a synchronous answer goes out in the turn the request arrived in. */
  #runRequest(request: JsonRpcRequest, context: MessageContext | undefined): void {
    const id = request.id;
    const answer = this.#answer(request, context);
    if (answer instanceof Promise) answer.then((response) => this.#reply(id, response));
    else this.#reply(id, answer);
  }

  /** Sends a request's answer (none when it was cancelled), then closes if that was the last one owed. */
  #reply(id: RequestId, response: JsonRpcResponse | undefined): void {
    if (response) this.#send(response, id);
    this.#closeIfDone();
  }

  #onend(): void {
    this.#ended = true;
    // Nothing more will arrive, so the requests this side sent can never be answered.
    this.#outgoing?.failAll(
      new McpkitError('CONNECTION_CLOSED', 'The other side closed its end of the connection'),
    );
    this.#closeIfDone();
  }

  #closeIfDone(): void {
    if (this.#ended && this.#incoming.size === 0 && !this.#closed)
      this.close().catch((e: unknown) => this.#report(e));
  }

  /**
   * Runs one request to its response (undefined when it was cancelled and must not be answered). A handler that
   * answers synchronously is answered at once, without a promise turn; a promise is followed with one `then`. Never
   * rejects: a failing handler becomes an error response.
   */
  #answer(
    request: JsonRpcRequest,
    context: MessageContext | undefined,
  ): Promise<JsonRpcResponse | undefined> | JsonRpcResponse | undefined {
    const id = request.id;
    if (this.#incoming.has(id)) return duplicate(id);
    const cancellation = new Cancellation();
    this.#incoming.set(id, cancellation);
    let out: Promise<JsonObject> | JsonObject;
    try {
      out = this.#handlers.request(new Incoming(request, context, cancellation));
    } catch (e) {
      return this.#failed(id, cancellation, e);
    }
    if (!(out instanceof Promise)) return this.#succeeded(id, cancellation, out);
    return out.then(
      (result) => this.#succeeded(id, cancellation, result),
      (e: unknown) => this.#failed(id, cancellation, e),
    );
  }

  /** A request's handler finished with `result`: its response, unless it was cancelled meanwhile. */
  #succeeded(id: RequestId, cancellation: Cancellation, result: JsonObject): JsonRpcResponse | undefined {
    this.#finished(id, cancellation);
    return cancellation.cancelled ? undefined : resultResponse(id, result);
  }

  /** A request's handler failed with `e`: its error response, unless it was cancelled meanwhile. */
  #failed(id: RequestId, cancellation: Cancellation, e: unknown): JsonRpcResponse | undefined {
    this.#finished(id, cancellation);
    return cancellation.cancelled ? undefined : errorResponse(id, ...this.#wireError(e));
  }

  #finished(id: RequestId, cancellation: Cancellation): void {
    cancellation.finished = true;
    this.#incoming.delete(id);
  }

  #wireError(e: unknown): [number, string, unknown?] {
    if (e instanceof JsonRpcError) return [e.code, e.message, e.data];
    // Unexpected errors are reported locally; the peer sees no stack or internal detail.
    this.#report(e);
    return [ErrorCode.InternalError, 'Internal error'];
  }

  #invalid(parsed: Exclude<Parsed, { kind: 'message' }>, context: MessageContext | undefined): void {
    if (parsed.kind === 'invalid') {
      const error = parsed.error;
      this.#handlers.error(new McpkitError('INVALID_MESSAGE', error.error.message));
      if (this.#options.answerInvalid) this.#send(error, undefined);
      return;
    }
    if (parsed.items.length > 0 && this.#handlers.batchAllowed()) {
      this.#runBatch(parsed.items, context).catch((e: unknown) => this.#report(e));
      return;
    }
    const why = parsed.items.length === 0 ? 'Invalid Request: empty batch' : this.#handlers.batchRefusal();
    if (this.#options.answerInvalid)
      this.#send(errorResponse(null, ErrorCode.InvalidRequest, why), undefined);
    else this.#handlers.error(new McpkitError('INVALID_MESSAGE', `Received a JSON-RPC batch: ${why}`));
  }

  async #runBatch(items: unknown[], context: MessageContext | undefined): Promise<void> {
    const answers = items.map(async (item): Promise<JsonRpcResponse | undefined> => {
      const parsed = classify(item);
      if (parsed.kind === 'batch')
        return errorResponse(null, ErrorCode.InvalidRequest, 'Invalid Request: nested batch');
      if (parsed.kind === 'invalid') return parsed.error;
      const message = parsed.message;
      if ('method' in message && 'id' in message) return this.#answer(message, context);
      this.receive(message, context);
      return undefined;
    });
    const responses = (await Promise.all(answers)).filter((r): r is JsonRpcResponse => r !== undefined);
    if (responses.length > 0 && !this.#closed) {
      this.transport.send(responses).catch((e: unknown) => this.#report(e));
    }
    this.#closeIfDone();
  }

  #send(message: JsonRpcMessage, relatedRequestId: RequestId | undefined): void {
    if (this.#closed) return;
    const options = relatedRequestId === undefined ? undefined : { relatedRequestId };
    const sent = this.transport.send(message, options);
    if (sent !== SENT) sent.catch((e: unknown) => this.#report(e));
  }

  #onclose(error: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    // An error (with its stack) is built only when something is still waiting: short-lived connections
    // (a stateless HTTP request each) close with nothing pending.
    if ((this.#outgoing?.size ?? 0) > 0 || this.#incoming.size > 0) {
      const reason = new McpkitError(
        'CONNECTION_CLOSED',
        error ? `Connection closed: ${error.message}` : 'Connection closed',
        error ? { cause: error } : undefined,
      );
      this.#outgoing?.failAll(reason);
      for (const cancellation of this.#incoming.values()) cancellation.cancel(reason);
      this.#incoming.clear();
    }
    this.#handlers.closed(error);
  }

  #report(e: unknown): void {
    this.#handlers.error(toError(e));
  }
}

/**
 * The cancellation state of one incoming request. The AbortController is created only when a handler
 * reads its signal: most requests finish without anyone listening, and controllers are costly per message.
 */
class Cancellation {
  cancelled = false;
  finished = false;
  #reason: unknown;
  #controller: AbortController | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.cancelled) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/**
 * An incoming request as handlers see it. A class, not an object literal with getters: V8 keeps such
 * literals in dictionary mode with per-object accessors, which made every finished request survive GC.
 */
class Incoming implements IncomingRequest {
  readonly request: JsonRpcRequest;
  readonly context: MessageContext | undefined;
  readonly #cancellation: Cancellation;

  constructor(request: JsonRpcRequest, context: MessageContext | undefined, cancellation: Cancellation) {
    this.request = request;
    this.context = context;
    this.#cancellation = cancellation;
  }

  get signal(): AbortSignal {
    return this.#cancellation.signal;
  }

  get finished(): boolean {
    return this.#cancellation.finished;
  }
}

function isProgress(params: JsonObject): params is JsonObject & ProgressParams {
  const t = params.progressToken;
  return (typeof t === 'string' || typeof t === 'number') && typeof params.progress === 'number';
}

/** The answer to a request whose id is still in use by one being answered. */
function duplicate(id: RequestId): JsonRpcResponse {
  return errorResponse(
    id,
    ErrorCode.InvalidRequest,
    `Duplicate request id ${JSON.stringify(id)}: a request with this id is still in progress`,
  );
}
