import { randomBase64url } from '../../framing/base64url.js';
import { formatSseEvent, SSE_KEEPALIVE } from '../../framing/sse.js';
import { ErrorCode, McpkitError, toError } from '../../jsonrpc/errors.js';
import { encodeMessage } from '../../jsonrpc/parse.js';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/types.js';
import type { MessageContext, SendOptions, Transport, TransportReceiver } from '../../protocol/transport.js';
import type { RevisionPolicy } from '../../spec/revision.js';
import { httpError, SESSION_NOT_FOUND } from './errors.js';
import type { EventStore } from './event-store.js';
import { type HttpReply, type HttpRequestLike, SSE_HEADERS, type SseSink, whenGone } from './exchange.js';
import { OutStream, type QueuedEvent, seqOf } from './out-stream.js';

/** How a POST carrying requests is answered: JSON, SSE, or JSON unless something must stream first. */
export type ResponseMode = 'json' | 'sse' | 'auto';

/** Stream settings shared by all sessions of a handler. */
export interface StreamSettings {
  responseMode: ResponseMode;
  retryMs: number;
  keepAliveMs: number;
  eventStore: EventStore | undefined;
  /** Stateless-revision streams carry no event ids and no priming event (they cannot be resumed). */
  resumable: boolean;
  /** The HTTP status of a JSON reply carrying one message (stateless-revision errors map to 4xx). */
  statusOf?: (message: JsonRpcMessage) => number;
}

/** A short random tag per session: stream ids of other sessions never match it. */
function streamTag(): string {
  return randomBase64url(6);
}

const gone = () => httpError(404, 'Session not found', SESSION_NOT_FOUND);

/**
 * The transport of one Streamable HTTP session (or one stateless request): routes each outgoing message
 * onto exactly one stream — a request's own POST stream, else the standalone GET stream — records SSE
 * events for resumption, and answers POSTs as JSON or SSE.
 */
export class HttpSessionTransport implements Transport {
  readonly sessionId: string | undefined;
  readonly #key: string;
  readonly #settings: StreamSettings;
  readonly #headers: Record<string, string>;
  readonly #tag: string;
  readonly #streams = new Map<string, OutStream>();
  readonly #byRequest = new Map<RequestId, OutStream>();
  /** The standalone (GET) stream; made when first needed (most sessions never open or use it). */
  #standalone: OutStream | undefined;
  #receiver: TransportReceiver | undefined;
  #nextStream = 0;
  #closed = false;
  /** The session's negotiated revision, once known (set by the handler for stateful sessions). */
  negotiated: { readonly policy: RevisionPolicy | undefined } | undefined;
  /** Called when the transport closes (the handler forgets the session). */
  onclosed: (() => void) | undefined;
  /** The principal that opened the session (`principalOf` its auth info); only it may use the session. */
  owner: string | undefined;
  /** Called when the last POST stream has its answer (stateless requests close then). */
  onidle: (() => void) | undefined;

  constructor(key: string, sessionId: string | undefined, settings: StreamSettings) {
    this.#key = key;
    this.sessionId = sessionId;
    this.#settings = settings;
    this.#headers = sessionId === undefined ? {} : { 'mcp-session-id': sessionId };
    // Only resumable streams need ids that other sessions cannot guess.
    this.#tag = settings.resumable ? streamTag() : 's';
  }

  #standaloneStream(): OutStream {
    if (this.#standalone === undefined) {
      this.#standalone = new OutStream(`${this.#tag}_`, false);
      this.#standalone.sse = true;
    }
    return this.#standalone;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Number of POST streams still waiting for responses. */
  get activeStreams(): number {
    return this.#streams.size;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    this.#receiver = receiver;
  }

  /**
   * Delivers the messages of one POST and resolves with its HTTP reply. With `exchange` (stateless
   * revision), a client that goes away before the answer cancels the request.
   */
  post(
    messages: JsonRpcMessage[],
    batch: boolean,
    context: MessageContext,
    exchange?: Pick<HttpRequestLike, 'onGone' | 'signal'>,
  ): Promise<HttpReply> {
    const receiver = this.#receiver;
    if (!receiver || this.#closed) return Promise.resolve(gone());
    const requests: RequestId[] = [];
    for (const m of messages) if ('method' in m && 'id' in m) requests.push(m.id);
    if (requests.length === 0) {
      for (const m of messages) {
        receiver.onmessage(m, context);
        if ('method' in m && m.method === 'notifications/cancelled') this.#cancelled(m.params?.requestId);
      }
      return Promise.resolve({ status: 202, headers: { ...this.#headers } });
    }
    for (const id of requests) {
      if (this.#byRequest.has(id)) {
        const message = `Duplicate request id ${JSON.stringify(id)}: a request with this id is in progress`;
        return Promise.resolve(httpError(409, message, ErrorCode.InvalidRequest, id));
      }
    }
    const stream = new OutStream(`${this.#tag}${++this.#nextStream}`, batch);
    for (const id of requests) {
      stream.pending.add(id);
      this.#byRequest.set(id, stream);
    }
    this.#streams.set(stream.id, stream);
    const reply = new Promise<HttpReply>((resolve) => {
      stream.reply = resolve;
    });
    if (this.#settings.responseMode === 'sse') this.#startSse(stream);
    const ctx: MessageContext = Object.assign({}, context);
    ctx.closeStream = () => this.#closeConnection(stream);
    for (const m of messages) {
      receiver.onmessage(m, ctx);
      if ('method' in m && m.method === 'notifications/cancelled') this.#cancelled(m.params?.requestId);
    }
    // Answered already (a handler that answers synchronously): nothing is left for a disconnect to cancel.
    if (exchange && stream.pending.size > 0) {
      whenGone(exchange, () => {
        for (const id of [...stream.pending]) {
          const params = { requestId: id, reason: 'client disconnected' };
          receiver.onmessage({ jsonrpc: '2.0', method: 'notifications/cancelled', params });
          this.#cancelled(id);
        }
      });
    }
    return reply;
  }

  /** Opens the standalone stream, or resumes a stream after `lastEventId`; resolves with the SSE reply. */
  async get(lastEventId: string | undefined): Promise<HttpReply> {
    if (this.#closed) return gone();
    if (lastEventId === undefined) {
      const standalone = this.#standaloneStream();
      if (standalone.connected)
        return httpError(409, 'Conflict: this session already has an open GET stream');
      standalone.backlog = [];
      return this.#sseReply((sink) => this.#attach(standalone, sink, [], true));
    }
    const store = this.#settings.eventStore;
    const streamId = store?.streamOf(lastEventId);
    const refused = () =>
      httpError(400, 'Bad Request: Last-Event-ID is unknown, expired, or belongs to another session');
    if (!store || streamId === undefined || !streamId.startsWith(this.#tag)) return refused();
    const live = streamId === `${this.#tag}_` ? this.#standaloneStream() : this.#streams.get(streamId);
    if (live?.connected) return httpError(409, 'Conflict: this stream is already connected');
    // Events sent while the store is read wait in the backlog, so nothing falls between replay and live.
    if (live) live.backlog = [];
    let events = await store.replayAfter(this.#key, lastEventId);
    // The priming id of a live stream is valid before anything was recorded on it.
    if (!events && live && seqOf(lastEventId) === 0) events = [];
    if (!events) {
      if (live) live.backlog = undefined;
      return refused();
    }
    const replay: QueuedEvent[] = events.map((e) => ({
      seq: seqOf(e.id),
      text: formatSseEvent({ id: e.id, data: encodeMessage(e.message) }),
    }));
    if (!live) {
      // The stream already finished: replay what was missed, then end.
      return this.#sseReply((sink) => {
        for (const e of replay) sink.write(e.text);
        sink.close();
      });
    }
    return this.#sseReply((sink) => this.#attach(live, sink, replay, false));
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.#closed) throw new McpkitError('CONNECTION_CLOSED', 'The HTTP session is closed');
    if (Array.isArray(message)) {
      for (const m of message) await this.send(m, options);
      return;
    }
    if (!('method' in message)) {
      const id = message.id;
      const stream = id === null ? undefined : this.#byRequest.get(id);
      if (!stream || id === null) return; // The request's stream is gone (cancelled, or a stateless reply sent).
      this.#byRequest.delete(id);
      stream.pending.delete(id);
      this.#emit(stream, message, true);
      return;
    }
    const related = options?.relatedRequestId;
    const stream = related === undefined ? undefined : this.#byRequest.get(related);
    if (stream && (stream.sse || this.#settings.responseMode !== 'json')) {
      this.#emit(stream, message, false);
      return;
    }
    const connected = this.#standalone?.connected ?? false;
    if ('id' in message && !connected) {
      // A request nobody can receive would only time out: fail it now.
      throw new McpkitError(
        'TRANSPORT_ERROR',
        `No stream is open to deliver ${message.method} to the client`,
      );
    }
    // Notifications go to the GET stream; without one they are kept for a resuming client only.
    if (connected || this.sessionId !== undefined) this.#emit(this.#standaloneStream(), message, false);
  }

  /** Ends the session: open streams close and waiting POSTs get 404. Never rejects. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const streams = [...this.#streams.values()];
    if (this.#standalone) streams.push(this.#standalone);
    for (const stream of streams) {
      stream.reply?.(httpError(404, 'Session terminated', SESSION_NOT_FOUND));
      stream.reply = undefined;
      this.#detach(stream, true);
    }
    this.#streams.clear();
    this.#byRequest.clear();
    try {
      await this.#settings.eventStore?.dropSession(this.#key);
    } catch (e) {
      this.#receiver?.onerror(toError(e));
    }
    this.onclosed?.();
    this.#receiver?.onclose();
  }

  /** A cancelled request gets no response: its stream stops waiting for one. */
  #cancelled(requestId: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const stream = this.#byRequest.get(requestId);
    if (!stream) return;
    this.#byRequest.delete(requestId);
    stream.pending.delete(requestId);
    if (stream.pending.size > 0) return;
    if (!stream.sse && stream.json.length > 0) this.#replyJson(stream);
    else {
      if (!stream.sse) this.#startSse(stream);
      this.#finish(stream);
    }
  }

  #emit(stream: OutStream, message: JsonRpcMessage, isResponse: boolean): void {
    if (!stream.sse) {
      if (isResponse) {
        stream.json.push(message);
        if (stream.pending.size === 0) this.#replyJson(stream);
        return;
      }
      this.#startSse(stream);
    }
    const store = this.#settings.eventStore;
    const data = encodeMessage(message);
    const id = store
      ? store.append(this.#key, stream.id, message, data.length)
      : this.#settings.resumable
        ? `${stream.id}.${++stream.seq}`
        : undefined;
    const last = isResponse && stream.pending.size === 0;
    if (typeof id !== 'object' && stream.tail === undefined) {
      this.#write(stream, {
        seq: seqOf(id),
        text: formatSseEvent(id === undefined ? { data } : { id, data }),
      });
      if (last) this.#finish(stream);
      return;
    }
    // An asynchronous store: events go out in order once recorded, and the stream ends after the last.
    const recorded = Promise.resolve(id);
    stream.tail = (stream.tail ?? Promise.resolve()).then(async () => {
      const eid = await recorded;
      this.#write(stream, {
        seq: seqOf(eid),
        text: formatSseEvent(eid === undefined ? { data } : { id: eid, data }),
      });
      if (last) this.#finish(stream);
    });
    stream.tail.catch((e: unknown) => this.#receiver?.onerror(toError(e)));
  }

  #replyJson(stream: OutStream): void {
    const first = stream.json[0] as JsonRpcMessage;
    const body = stream.batch
      ? `[${stream.json.map((m) => encodeMessage(m)).join(',')}]`
      : encodeMessage(first);
    const status = !stream.batch && this.#settings.statusOf ? this.#settings.statusOf(first) : 200;
    stream.reply?.({ status, headers: { 'content-type': 'application/json', ...this.#headers }, body });
    stream.reply = undefined;
    this.#streams.delete(stream.id);
    if (this.#streams.size === 0) this.onidle?.();
  }

  #startSse(stream: OutStream): void {
    stream.sse = true;
    stream.backlog = [];
    const early = stream.json;
    stream.json = [];
    const resolve = stream.reply;
    stream.reply = undefined;
    resolve?.(this.#sseReplySync((sink) => this.#attach(stream, sink, [], true)));
    for (const m of early) this.#emit(stream, m, false);
  }

  #sseReply(run: (sink: SseSink) => void): Promise<HttpReply> {
    return Promise.resolve(this.#sseReplySync(run));
  }

  #sseReplySync(run: (sink: SseSink) => void): HttpReply {
    return { status: 200, headers: { ...SSE_HEADERS, ...this.#headers }, sse: run };
  }

  #attach(stream: OutStream, sink: SseSink, replay: QueuedEvent[], fresh: boolean): void {
    // Priming events (SEP-1699) came with 2025-11-25: older clients may read the empty data as a broken message.
    if (this.#settings.resumable && this.negotiated?.policy?.ssePriming === true) {
      // A new stream is primed with an id to resume from; a resumed one only gets the retry interval.
      sink.write(
        fresh
          ? formatSseEvent({ id: `${stream.id}.0`, retry: this.#settings.retryMs, data: '' })
          : `retry: ${this.#settings.retryMs}\n\n`,
      );
    }
    let last = -1;
    for (const e of replay) {
      sink.write(e.text);
      last = e.seq ?? last;
    }
    for (const e of stream.backlog ?? []) if (e.seq === undefined || e.seq > last) sink.write(e.text);
    stream.backlog = undefined;
    const finished = stream !== this.#standalone && !this.#streams.has(stream.id);
    if (stream.closeRequested || finished || this.#closed) {
      stream.closeRequested = false;
      sink.close();
      return;
    }
    stream.sink = sink;
    sink.onclose = () => {
      if (stream.sink === sink) this.#detach(stream, false);
    };
    if (this.#settings.keepAliveMs > 0) {
      stream.keepAlive = setInterval(() => sink.write(SSE_KEEPALIVE), this.#settings.keepAliveMs);
      (stream.keepAlive as { unref?: () => void }).unref?.();
    }
  }

  #write(stream: OutStream, event: QueuedEvent): void {
    if (stream.sink) {
      if (!stream.sink.write(event.text)) this.#detach(stream, false);
    } else stream.backlog?.push(event);
  }

  #finish(stream: OutStream): void {
    this.#streams.delete(stream.id);
    const ended = this.#settings.eventStore?.streamEnded?.(this.#key, stream.id);
    if (ended instanceof Promise) ended.catch((e: unknown) => this.#receiver?.onerror(toError(e)));
    if (stream.sink) this.#detach(stream, true);
    if (this.#streams.size === 0) this.onidle?.();
  }

  #closeConnection(stream: OutStream): void {
    if (!stream.sse) this.#startSse(stream);
    if (stream.sink) this.#detach(stream, true);
    else stream.closeRequested = true;
  }

  #detach(stream: OutStream, close: boolean): void {
    if (stream.keepAlive !== undefined) clearInterval(stream.keepAlive);
    stream.keepAlive = undefined;
    const sink = stream.sink;
    stream.sink = undefined;
    if (close && sink && !sink.closed) sink.close();
  }
}
