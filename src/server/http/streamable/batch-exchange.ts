import { formatSseEvent } from '../../../framing/sse.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { encodeMessage, errorResponse, resultResponse } from '../../../jsonrpc/parse.js';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from '../../../jsonrpc/types.js';
import type { IncomingRequest } from '../../../protocol/peer.js';
import type { MessageContext } from '../../../protocol/transport.js';
import type { RevisionPolicy } from '../../../spec/revision.js';
import type { McpServer } from '../../server.js';
import type { HttpReply } from '../core/http.js';
import { deliverAlone, ExchangeReply } from './exchange.js';
import type { StreamSettings } from './stream-settings.js';

/**
 * A JSON-RPC batch (2025-03-26) POSTed to an endpoint without sessions, answered without a session, Peer or
 * transport: each request runs as a call of its own, in order; the reply is one JSON array of their responses (200), or
 * server-sent events, one per response, ending after the last. A `notifications/cancelled` naming a request of the
 * batch leaves it unanswered; other notifications reach the server as from a client without a session; a response
 * (the client answering a request nobody sent it) is reported. Like a single request of these revisions, a call is not
 * cancelled when the client goes away.
 */
export class BatchExchange extends ExchangeReply {
  readonly #policy: RevisionPolicy;
  readonly #calls: BatchCall[] = [];
  /** Responses still owed. */
  #pending = 0;
  /** Responses collected for a JSON reply, in the order they came. */
  #json: JsonRpcResponse[] = [];

  constructor(
    authInfo: unknown,
    remoteAddress: string | undefined,
    settings: StreamSettings,
    policy: RevisionPolicy,
  ) {
    super(authInfo, remoteAddress, settings);
    this.#policy = policy;
  }

  get closed(): boolean {
    return this.#pending === 0;
  }

  /** Runs the batch's messages on `server` and resolves with the HTTP reply; in `inFlight` until it is answered. */
  run(
    server: McpServer,
    messages: readonly JsonRpcMessage[],
    inFlight: Set<ExchangeReply & { shutdown(): void }>,
  ): Promise<HttpReply> {
    this.open();
    const reply = Promise.resolve(this.replied());
    for (const m of messages) if ('method' in m && 'id' in m) this.#pending++;
    inFlight.add(this);
    for (const m of messages) {
      if ('method' in m && 'id' in m) this.#start(server, m, inFlight);
      else if ('method' in m && m.method === 'notifications/cancelled') {
        const id = m.params?.requestId;
        for (const call of this.#calls)
          if (call.request.id === id && !call.finished) this.#cancel(call, inFlight);
      } else deliverAlone(server, m);
    }
    return reply;
  }

  /** The endpoint is closing: every call still at work is aborted and answered with the error saying so. */
  shutdown(): void {
    for (const call of this.#calls) {
      if (call.finished) continue;
      call.abort('server closing');
      this.#answer(
        call,
        errorResponse(call.request.id, ErrorCode.InternalError, 'Server closing'),
        undefined,
        503,
      );
    }
  }

  #start(server: McpServer, request: JsonRpcRequest, inFlight: Set<ExchangeReply>): void {
    const call = new BatchCall(request, this);
    if (this.#calls.some((c) => c.request.id === request.id && !c.finished)) {
      const why = `Duplicate request id ${JSON.stringify(request.id)}: a request with this id is still in progress`;
      call.finished = true;
      this.#answer(call, errorResponse(request.id, ErrorCode.InvalidRequest, why), inFlight);
      return;
    }
    this.#calls.push(call);
    let out: Promise<JsonObject> | JsonObject;
    try {
      out = server.dispatchAlone(call, this, this.#policy);
    } catch (e) {
      this.#answer(call, this.failure(server, request.id, e), inFlight);
      return;
    }
    if (!(out instanceof Promise)) {
      this.#answer(call, resultResponse(request.id, out), inFlight);
      return;
    }
    out.then(
      (result) => this.#answer(call, resultResponse(request.id, result), inFlight),
      (e: unknown) => this.#answer(call, this.failure(server, request.id, e), inFlight),
    );
  }

  /** A call's response goes out (a JSON reply waits for all); nothing for a call cancelled or already answered. */
  #answer(call: BatchCall, response: JsonRpcResponse, inFlight?: Set<ExchangeReply>, status?: number): void {
    if (call.answered) return;
    call.answered = true;
    call.finished = true;
    if (call.cancelled) return;
    if (this.sse) this.write(formatSseEvent({ data: encodeMessage(response) }));
    else this.#json.push(response);
    this.#owed(inFlight, status);
  }

  /** A `notifications/cancelled` for a call of the batch: it gets no response, its handler's signal aborts. */
  #cancel(call: BatchCall, inFlight: Set<ExchangeReply>): void {
    call.cancelled = true;
    call.finished = true;
    call.abort('cancelled');
    this.#owed(inFlight);
  }

  /** One response fewer owed; after the last, the reply completes. */
  #owed(inFlight: Set<ExchangeReply> | undefined, status?: number): void {
    if (--this.#pending > 0) return;
    inFlight?.delete(this);
    if (!this.sse && this.#json.length > 0) {
      this.replyJson(`[${this.#json.map((r) => encodeMessage(r)).join(',')}]`, undefined, status);
      return;
    }
    this.startSse();
    this.end();
  }

  protected override onSse(): void {
    for (const response of this.#json) this.write(formatSseEvent({ data: encodeMessage(response) }));
    this.#json = [];
  }
}

/** One request of a batch: its own signal (made when first read) and end; its context and notifier are the batch's. */
class BatchCall implements IncomingRequest {
  readonly request: JsonRpcRequest;
  readonly context: MessageContext;
  finished = false;
  answered = false;
  cancelled = false;
  #controller: AbortController | undefined;
  #aborted: string | undefined;

  constructor(request: JsonRpcRequest, context: MessageContext) {
    this.request = request;
    this.context = context;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted !== undefined) this.#controller.abort(this.#aborted);
    }
    return this.#controller.signal;
  }

  abort(reason: string): void {
    this.#aborted = reason;
    this.#controller?.abort(reason);
  }
}
