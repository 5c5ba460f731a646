import { randomBase64url } from '../../framing/base64url.js';
import { formatSseEvent, SSE_KEEPALIVE } from '../../framing/sse.js';
import { ErrorCode, McpkitError, toError } from '../../jsonrpc/errors.js';
import { encodeMessage } from '../../jsonrpc/parse.js';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/types.js';
import type { MessageContext, SendOptions, Transport, TransportReceiver } from '../../protocol/transport.js';
import type { RevisionPolicy } from '../../spec/revision.js';
import { type ClusterLink, INSTANCE_ID_LENGTH, parseWireRequestId, wireRequestId } from '../cluster/link.js';
import { httpError, isRateLimited, retryHeaders, SESSION_NOT_FOUND, unavailable } from './errors.js';
import type { EventStore, StoredEvent } from './event-store.js';
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
  /** Set when the endpoint is one instance of a cluster (its `eventStore` is then the link's shared store). */
  cluster?: ClusterLink;
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

  /** `tag`: the session's stream-id prefix when it was made elsewhere (cluster). */
  constructor(key: string, sessionId: string | undefined, settings: StreamSettings, tag?: string) {
    this.#key = key;
    this.sessionId = sessionId;
    this.#settings = settings;
    this.#headers = sessionId === undefined ? {} : { 'mcp-session-id': sessionId };
    if (settings.cluster !== undefined && sessionId !== undefined)
      this.#headers['mcpkit-instance'] = settings.cluster.instance;
    // Only resumable streams need ids that other sessions cannot guess.
    this.#tag = tag ?? (settings.resumable ? streamTag() : 's');
  }

  /** The prefix of this session's stream ids. */
  get tag(): string {
    return this.#tag;
  }

  /** True when the session is shared by a cluster's instances. */
  get clustered(): boolean {
    return this.#settings.cluster !== undefined && this.sessionId !== undefined;
  }

  /** True while this instance holds the session's GET stream (cluster: it announces changes to the session). */
  get holdsStandalone(): boolean {
    return this.#standalone?.sink !== undefined;
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
    if (this.#settings.cluster !== undefined) messages = this.#route(this.#settings.cluster, messages);
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
    const stream = new OutStream(
      `${this.#tag}${this.#settings.cluster?.instance ?? ''}${++this.#nextStream}`,
      batch,
    );
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
    const cluster = this.#settings.cluster;
    if (cluster !== undefined) {
      const streamId = lastEventId === undefined ? undefined : cluster.events.streamOf(lastEventId);
      // A POST stream of a request running here resumes as on a single instance.
      if (streamId === undefined || !this.#streams.has(streamId))
        return this.#getShared(cluster, lastEventId);
    }
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
    const cluster = this.#settings.cluster;
    // A server request's id names this instance, so that the client's answer, POSTed anywhere, finds its way back.
    if (cluster !== undefined && 'method' in message) message = toWire(cluster.instance, message);
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
    if (cluster !== undefined && this.sessionId !== undefined) return this.#sendShared(cluster, message);
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
    // A cluster's session outlives one instance's copy of it: only ending it (DELETE, expiry) drops its events.
    if (this.#settings.cluster === undefined) {
      try {
        await this.#settings.eventStore?.dropSession(this.#key);
      } catch (e) {
        this.#receiver?.onerror(toError(e));
      }
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
    // An asynchronous store: events go out in order once recorded, and the stream ends after the last. An event the
    // store could not record still goes out, without an id (it cannot be resumed from, but it is not lost).
    const recorded = Promise.resolve(id).then(
      (eid) => eid,
      (e: unknown) => {
        this.#receiver?.onerror(toError(e));
        return undefined;
      },
    );
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

  /**
   * Cluster: the client's answers to other instances' requests go there, and so does a cancellation of a request
   * running elsewhere; answers to this instance's requests get their peer ids back.
   */
  #route(cluster: ClusterLink, messages: JsonRpcMessage[]): JsonRpcMessage[] {
    const kept: JsonRpcMessage[] = [];
    const sessionId = this.sessionId ?? '';
    for (const m of messages) {
      if (!('method' in m)) {
        const wire = parseWireRequestId(m.id);
        if (wire === undefined) kept.push(m);
        else if (wire.instance === cluster.instance) kept.push({ ...m, id: wire.id });
        else cluster.forwardAnswer(wire.instance, sessionId, m);
        continue;
      }
      const cancelled = m.method === 'notifications/cancelled' ? requestIdOf(m.params?.requestId) : undefined;
      if (cancelled !== undefined && !this.#byRequest.has(cancelled)) cluster.forwardCancel(sessionId, m);
      else kept.push(m);
    }
    return kept;
  }

  /** Cluster: a message another instance routed here (an answer to this instance's request, or a cancellation). */
  deliverRemote(message: JsonRpcMessage): void {
    const receiver = this.#receiver;
    if (!receiver || this.#closed) return;
    if ('method' in message) {
      const cancelled = requestIdOf(message.params?.requestId);
      if (cancelled === undefined || !this.#byRequest.has(cancelled)) return;
      receiver.onmessage(message);
      this.#cancelled(cancelled);
      return;
    }
    const wire = parseWireRequestId(message.id);
    if (wire !== undefined && wire.instance === this.#settings.cluster?.instance)
      receiver.onmessage({ ...message, id: wire.id });
  }

  /** Cluster: what goes to the GET stream is recorded in the shared store; the instance holding it follows it. */
  async #sendShared(cluster: ClusterLink, message: JsonRpcMessage): Promise<void> {
    const store = cluster.events;
    const streamId = `${this.#tag}_`;
    if ('id' in message && (await store.followers(this.#key, streamId)) === 0) {
      // A request nobody can receive would only time out: fail it now.
      throw new McpkitError(
        'TRANSPORT_ERROR',
        `No stream is open to deliver ${'method' in message ? message.method : 'a message'} to the client`,
      );
    }
    const data = encodeMessage(message);
    await store.append(this.#key, streamId, message, data.length);
  }

  /**
   * Cluster: the GET stream, or a stream resumed here that this instance does not write (the GET stream, or a POST
   * stream of a request running elsewhere): follow the shared store first, then replay what was missed.
   */
  async #getShared(cluster: ClusterLink, lastEventId: string | undefined): Promise<HttpReply> {
    const store = cluster.events;
    const standaloneId = `${this.#tag}_`;
    const refused = () =>
      httpError(400, 'Bad Request: Last-Event-ID is unknown, expired, or belongs to another session');
    const streamId = lastEventId === undefined ? standaloneId : store.streamOf(lastEventId);
    if (streamId === undefined || !streamId.startsWith(this.#tag)) return refused();
    const standalone = streamId === standaloneId;
    const stream = standalone ? this.#standaloneStream() : new OutStream(streamId, false);
    if (stream.connected) {
      const what =
        standalone && lastEventId === undefined
          ? 'this session already has an open GET stream'
          : 'this stream is already connected';
      return httpError(409, `Conflict: ${what}`);
    }
    stream.sse = true;
    stream.backlog = [];
    let replay: QueuedEvent[] = [];
    try {
      // Events missed while the store's connection was down: the client resumes (and replays them) elsewhere.
      stream.unfollow = await store.follow(
        this.#key,
        streamId,
        (event) => this.#followed(stream, event),
        () => this.#detach(stream, true),
      );
      if (lastEventId !== undefined) {
        const info = standalone ? undefined : await store.streamInfo(this.#key, streamId);
        let events = await store.replayAfter(this.#key, lastEventId);
        if (!events && seqOf(lastEventId) === 0 && (standalone || info)) events = [];
        if (!events || (!standalone && !info)) {
          this.#detach(stream, false);
          stream.backlog = undefined;
          return refused();
        }
        if (!standalone) {
          const remote = {
            requests: info?.requests ?? [],
            answered: new Set<RequestId>(),
            ended: false,
            lost: false,
          };
          for (const e of events)
            if (!('method' in e.message) && e.message.id !== null) remote.answered.add(e.message.id);
          remote.ended ||= info?.ended === true;
          stream.remote = remote;
          const producer = streamId.slice(this.#tag.length, this.#tag.length + INSTANCE_ID_LENGTH);
          if (!remote.ended && !(await cluster.isAlive(producer))) remote.lost = true;
        }
        replay = events.map((e) => ({
          seq: seqOf(e.id),
          text: formatSseEvent({ id: e.id, data: encodeMessage(e.message) }),
        }));
      }
    } catch (e) {
      this.#detach(stream, false);
      stream.backlog = undefined;
      return unavailable(e);
    }
    return this.#sseReply((sink) => this.#attach(stream, sink, replay, lastEventId === undefined));
  }

  /** Cluster: an event of a followed stream (undefined: the stream ended). */
  #followed(stream: OutStream, event: StoredEvent | undefined): void {
    const remote = stream.remote;
    if (event === undefined) {
      if (remote === undefined) return;
      remote.ended = true;
      // While attaching, the attach closes it after the backlog.
      if (stream.backlog === undefined) this.#detach(stream, true);
      return;
    }
    if (remote !== undefined && !('method' in event.message) && event.message.id !== null)
      remote.answered.add(event.message.id);
    this.#write(stream, {
      seq: seqOf(event.id),
      text: formatSseEvent({ id: event.id, data: encodeMessage(event.message) }),
    });
  }

  /** Cluster: a remote stream's writer must stay alive; when it dies, its unanswered requests fail here. */
  #watchProducer(stream: OutStream): void {
    const cluster = this.#settings.cluster;
    const remote = stream.remote;
    if (cluster === undefined || remote === undefined) return;
    const producer = stream.id.slice(this.#tag.length, this.#tag.length + INSTANCE_ID_LENGTH);
    let checking = false;
    stream.watch = setInterval(() => {
      if (checking) return;
      checking = true;
      cluster.isAlive(producer).then(
        (alive) => {
          checking = false;
          const sink = stream.sink;
          if (alive || !sink || remote.ended) return;
          remote.lost = true;
          this.#failLost(stream, sink);
          this.#detach(stream, true);
        },
        () => {
          checking = false;
        },
      );
    }, cluster.heartbeatMs);
    (stream.watch as { unref?: () => void }).unref?.();
  }

  /** Cluster: the requests of a stream whose instance died get an error instead of waiting forever. */
  #failLost(stream: OutStream, sink: SseSink): void {
    const remote = stream.remote;
    if (remote === undefined) return;
    for (const id of remote.requests) {
      if (remote.answered.has(id)) continue;
      remote.answered.add(id);
      const error = {
        code: ErrorCode.InternalError,
        message:
          'The server instance running this request stopped before answering; the request may or may not have taken effect',
      };
      sink.write(formatSseEvent({ data: encodeMessage({ jsonrpc: '2.0', id, error }) }));
    }
  }

  #replyJson(stream: OutStream): void {
    const first = stream.json[0] as JsonRpcMessage;
    const body = stream.batch
      ? `[${stream.json.map((m) => encodeMessage(m)).join(',')}]`
      : encodeMessage(first);
    const statusOf = this.#settings.statusOf;
    // One message answering the whole POST: a rate limit's refusal is a 429 (stateless-revision errors map further).
    const status = stream.batch ? 200 : statusOf ? statusOf(first) : isRateLimited(first) ? 429 : 200;
    const headers = { 'content-type': 'application/json', ...this.#headers };
    stream.reply?.({ status, headers: status === 429 ? retryHeaders(first, headers) : headers, body });
    stream.reply = undefined;
    this.#streams.delete(stream.id);
    if (this.#streams.size === 0) this.onidle?.();
  }

  #startSse(stream: OutStream): void {
    stream.sse = true;
    const cluster = this.#settings.cluster;
    if (cluster !== undefined && stream.pending.size > 0) {
      // Recorded so that an instance resuming the stream can fail these requests if this instance dies.
      cluster.events
        .streamOpened(this.#key, stream.id, [...stream.pending])
        .catch((e: unknown) => this.#receiver?.onerror(toError(e)));
    }
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
    const finished =
      stream.remote !== undefined
        ? stream.remote.ended || stream.remote.lost
        : stream !== this.#standalone && !this.#streams.has(stream.id);
    if (stream.remote?.lost) this.#failLost(stream, sink);
    if (stream.closeRequested || finished || this.#closed) {
      stream.closeRequested = false;
      this.#detach(stream, false);
      sink.close();
      return;
    }
    stream.sink = sink;
    sink.onclose = () => {
      if (stream.sink === sink) this.#detach(stream, false);
    };
    if (stream.remote !== undefined) this.#watchProducer(stream);
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
    if (stream.watch !== undefined) clearInterval(stream.watch);
    stream.watch = undefined;
    stream.unfollow?.();
    stream.unfollow = undefined;
    const sink = stream.sink;
    stream.sink = undefined;
    if (close && sink && !sink.closed) sink.close();
  }
}

/** A request id from a notification's params, or undefined. */
function requestIdOf(value: unknown): RequestId | undefined {
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
}

/** A server request (or its cancellation) with this instance's routable id. */
function toWire(instance: string, message: JsonRpcMessage): JsonRpcMessage {
  if (!('method' in message)) return message;
  if ('id' in message) return { ...message, id: wireRequestId(instance, message.id) };
  if (message.method === 'notifications/cancelled' && typeof message.params?.requestId === 'number') {
    return {
      ...message,
      params: { ...message.params, requestId: wireRequestId(instance, message.params.requestId) },
    };
  }
  return message;
}
