import { randomBase64url } from '../../../framing/base64url.js';
import { formatJsonEvent, SSE_KEEPALIVE } from '../../../framing/sse.js';
import { toError } from '../../../jsonrpc/errors.js';
import { IdMap } from '../../../jsonrpc/id-map.js';
import { encodeMessage } from '../../../jsonrpc/parse.js';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/types.js';
import type { TransportReceiver } from '../../../protocol/transport.js';
import type { RevisionPolicy } from '../../../spec/revision.js';
import { isRateLimited, retryHeaders } from '../core/errors.js';
import { type HttpReply, SSE_HEADERS, type SseSink } from '../core/http.js';
import { OutStream, type QueuedEvent, seqOf } from './out-stream.js';
import { failLost, watchProducer } from './remote-stream.js';
import type { StreamSettings } from './stream-settings.js';

/** The replay of a fresh stream: nothing (one array for all of them). */
const NO_REPLAY: readonly QueuedEvent[] = Object.freeze([]);

/** True for an event not yet replayed: its sequence is past `last` (or it has none). */
function isAfter(id: string | undefined, last: number): boolean {
  const seq = seqOf(id);
  return seq === undefined || seq > last;
}

/** A short random tag per session: stream ids of other sessions never match it. */
function streamTag(): string {
  return randomBase64url(6);
}

/**
 * The streams of one HTTP session (or one stateless request) and how a message goes out on one: collected for a JSON
 * reply, or written as an SSE event (recorded in the event store first, in order behind an asynchronous one), with
 * the connections attached to them (priming, replay, keep-alive) and their ends. The session's transport decides
 * which stream a message belongs to; this writes it there.
 */
export class SessionStreams {
  /** The event store's key of the session. */
  readonly key: string;
  readonly sessionId: string | undefined;
  readonly settings: StreamSettings;
  /** The headers of every reply (the session id, the instance of a cluster). */
  readonly headers: Record<string, string>;
  /** The headers of a JSON reply and of an SSE reply, made once per session (replies share them, never change them). */
  readonly #jsonHeaders: Readonly<Record<string, string>>;
  readonly #sseHeaders: Readonly<Record<string, string>>;
  /** What follows a fresh stream's id in its priming event (what `formatSseEvent` writes for it), made once. */
  readonly #primingTail: string;
  /** The prefix of the session's stream ids. */
  readonly tag: string;
  /** The POST streams still waiting for responses, by number (usually one at a time: an `IdMap`); see `streamOf`. */
  readonly streams = new IdMap<number, OutStream>();
  /** The prefix of the ids of the session's POST streams (its tag, and the instance of a cluster). */
  readonly streamPrefix: string;
  /** The stream each request being answered is answered on. */
  readonly byRequest = new IdMap<RequestId, OutStream>();
  /** The standalone (GET) stream; made when first needed (most sessions never open or use it). */
  standalone: OutStream | undefined;
  receiver: TransportReceiver | undefined;
  nextStream = 0;
  closed = false;
  /** The session's negotiated revision, once known. */
  negotiated: { readonly policy: RevisionPolicy | undefined } | undefined;
  /** Called when the last POST stream has its answer. */
  onidle: (() => void) | undefined;

  constructor(key: string, sessionId: string | undefined, settings: StreamSettings, tag?: string) {
    this.key = key;
    this.sessionId = sessionId;
    this.settings = settings;
    this.headers = sessionId === undefined ? {} : { 'mcp-session-id': sessionId };
    if (settings.cluster !== undefined && sessionId !== undefined)
      this.headers['mcpkit-instance'] = settings.cluster.instance;
    this.#jsonHeaders = Object.freeze({ 'content-type': 'application/json', ...this.headers });
    this.#sseHeaders = Object.freeze({ ...SSE_HEADERS, ...this.headers });
    this.#primingTail = `\nretry: ${Math.max(0, Math.floor(settings.retryMs))}\ndata: \n\n`;
    // Only resumable streams need ids that other sessions cannot guess.
    this.tag = tag ?? (settings.resumable ? streamTag() : 's');
    this.streamPrefix = settings.cluster !== undefined ? `${this.tag}${settings.cluster.instance}` : this.tag;
  }

  /** A new POST stream (its id is made only when something reads it: an SSE event, a resumption). */
  newStream(batch: boolean): OutStream {
    return new OutStream(this.streamPrefix, batch, ++this.nextStream);
  }

  /** The POST stream still waiting for responses whose id is `id`, if any. */
  streamOf(id: string): OutStream | undefined {
    const prefix = this.streamPrefix;
    if (!id.startsWith(prefix)) return undefined;
    const stream = this.streams.get(Number(id.slice(prefix.length)));
    return stream !== undefined && stream.id === id ? stream : undefined;
  }

  standaloneStream(): OutStream {
    if (this.standalone === undefined) {
      this.standalone = new OutStream(`${this.tag}_`, false);
      this.standalone.sse = true;
    }
    return this.standalone;
  }

  /**
   * True when a stream's connection may close before its end for the client to poll back (SSE polling, SEP-1699): a
   * session of 2025-11-25 or later whose events are recorded. Its streams are primed with an id to resume from.
   */
  get pollable(): boolean {
    return this.settings.resumable && this.negotiated?.policy?.ssePriming === true;
  }

  /** Reports a problem that ends nothing (a store that failed to record or forget). */
  error(e: unknown): void {
    this.receiver?.onerror(toError(e));
  }

  /** The request `id` is answered on `stream` (once: a batch may name an id twice). */
  awaits(id: RequestId, stream: OutStream): void {
    if (this.byRequest.get(id) === stream) return;
    this.byRequest.set(id, stream);
    stream.pending++;
  }

  /** The request `id`, answered on `stream`, no longer waits (answered or cancelled). */
  answered(id: RequestId, stream: OutStream): void {
    this.byRequest.delete(id);
    stream.pending--;
  }

  /** The requests still waiting for their responses on `stream`, in the order they arrived. */
  requestsOf(stream: OutStream): RequestId[] {
    return this.byRequest.keys().filter((id) => this.byRequest.get(id) === stream);
  }

  /** A cancelled request gets no response: its stream stops waiting for one. */
  cancelled(requestId: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const stream = this.byRequest.get(requestId);
    if (!stream) return;
    this.answered(requestId, stream);
    if (stream.pending > 0) return;
    if (!stream.sse && stream.first !== undefined) this.replyJson(stream);
    else {
      if (!stream.sse) this.startSse(stream);
      this.finish(stream);
    }
  }

  emit(stream: OutStream, message: JsonRpcMessage, isResponse: boolean): void {
    if (!stream.sse) {
      if (isResponse) {
        stream.collect(message);
        if (stream.pending === 0) this.replyJson(stream);
        return;
      }
      this.startSse(stream);
    }
    const store = this.settings.eventStore;
    const data = encodeMessage(message);
    const last = isResponse && stream.pending === 0;
    let id: Promise<string> | string | undefined;
    if (store === undefined) id = this.settings.resumable ? `${stream.id}.${++stream.seq}` : undefined;
    else if (last && store.appendLast !== undefined) {
      // The last event and the stream's end recorded in one step: `finish` has no end left to record.
      stream.endRecorded = true;
      id = store.appendLast(this.key, stream.id, message, data.length, data);
    } else id = store.append(this.key, stream.id, message, data.length, data);
    if (typeof id !== 'object' && stream.tail === undefined) {
      stream.write({ id, text: formatJsonEvent(data, id) });
      if (last) this.finish(stream);
      return;
    }
    // An asynchronous store: events go out in order once recorded, and the stream ends after the last. An event the
    // store could not record still goes out, without an id (it cannot be resumed from, but it is not lost).
    const recorded = Promise.resolve(id).then(
      (eid) => eid,
      (e: unknown) => {
        this.error(e);
        return undefined;
      },
    );
    stream.tail = (stream.tail ?? Promise.resolve()).then(async () => {
      const eid = await recorded;
      stream.write({ id: eid, text: formatJsonEvent(data, eid) });
      if (last) this.finish(stream);
    });
    stream.tail.catch((e: unknown) => this.error(e));
  }

  replyJson(stream: OutStream): void {
    const first = stream.first as JsonRpcMessage;
    const body = stream.batch
      ? `[${stream
          .takeCollected()
          .map((m) => encodeMessage(m))
          .join(',')}]`
      : encodeMessage(first);
    const statusOf = this.settings.statusOf;
    // One message answering the whole POST: a rate limit's refusal is a 429 (stateless-revision errors map further).
    const status = stream.batch ? 200 : statusOf ? statusOf(first) : isRateLimited(first) ? 429 : 200;
    const headers = this.#jsonHeaders;
    stream.settle({ status, headers: status === 429 ? retryHeaders(first, headers) : headers, body });
    this.streams.delete(stream.n);
    if (this.streams.size === 0) this.onidle?.();
  }

  startSse(stream: OutStream): void {
    stream.sse = true;
    const cluster = this.settings.cluster;
    if (cluster !== undefined && stream.pending > 0) {
      // Recorded so that an instance resuming the stream can fail these requests if this instance dies.
      cluster.events
        .streamOpened(this.key, stream.id, this.requestsOf(stream))
        .catch((e: unknown) => this.error(e));
    }
    stream.backlog = [];
    if (stream.undecided)
      stream.settle(this.sseReplySync((sink) => this.attach(stream, sink, NO_REPLAY, true)));
    // Most streams are SSE from the start ('sse' mode): nothing was collected, nothing to hand over.
    if (stream.first === undefined) return;
    for (const m of stream.takeCollected()) this.emit(stream, m, false);
  }

  sseReply(run: (sink: SseSink) => void): Promise<HttpReply> {
    return Promise.resolve(this.sseReplySync(run));
  }

  sseReplySync(run: (sink: SseSink) => void): HttpReply {
    return { status: 200, headers: this.#sseHeaders, sse: run };
  }

  /** Puts a connection on a stream: priming, the replay, what waited meanwhile, then live events and keep-alives. */
  attach(stream: OutStream, sink: SseSink, replay: readonly QueuedEvent[], fresh: boolean): void {
    // Priming events (SEP-1699) came with 2025-11-25: older clients may read the empty data as a broken message.
    if (this.pollable) {
      // A new stream is primed with an id to resume from; a resumed one only gets the retry interval.
      sink.write(fresh ? `id: ${stream.id}.0${this.#primingTail}` : `retry: ${this.settings.retryMs}\n\n`);
    }
    let last = -1;
    for (const e of replay) {
      sink.write(e.text);
      last = seqOf(e.id) ?? last;
    }
    const backlog = stream.backlog;
    if (backlog !== undefined)
      for (const e of backlog) if (last < 0 || isAfter(e.id, last)) sink.write(e.text);
    stream.backlog = undefined;
    const finished =
      stream.remote !== undefined
        ? stream.remote.ended || stream.remote.lost
        : stream !== this.standalone && this.streams.get(stream.n) !== stream;
    if (stream.remote?.lost) failLost(stream, sink);
    if (stream.closeRequested || finished || this.closed) {
      stream.closeRequested = false;
      stream.detach(false);
      sink.close();
      return;
    }
    stream.sink = sink;
    sink.onclose = () => {
      if (stream.sink === sink) stream.detach(false);
    };
    const cluster = this.settings.cluster;
    if (stream.remote !== undefined && cluster !== undefined) watchProducer(stream, cluster, this.tag);
    if (this.settings.keepAliveMs > 0) {
      stream.keepAlive = setInterval(() => sink.write(SSE_KEEPALIVE), this.settings.keepAliveMs);
      (stream.keepAlive as { unref?: () => void }).unref?.();
    }
  }

  finish(stream: OutStream): void {
    if (this.streams.get(stream.n) === stream) this.streams.delete(stream.n);
    if (!stream.endRecorded) {
      const ended = this.settings.eventStore?.streamEnded?.(this.key, stream.id);
      if (ended instanceof Promise) ended.catch((e: unknown) => this.error(e));
    }
    if (stream.sink) stream.detach(true);
    if (this.streams.size === 0) this.onidle?.();
  }

  /**
   * Ends the connection carrying a stream without ending the stream (SSE polling: the client resumes). Nothing is
   * closed where the client could not resume: an older revision, whose client has no id to resume from (and whose
   * server SHOULD NOT close a stream before its response), or a stream whose events are not recorded.
   */
  closeConnection(stream: OutStream): void {
    if (!this.pollable) return;
    if (!stream.sse) this.startSse(stream);
    if (stream.sink) stream.detach(true);
    else stream.closeRequested = true;
  }
}
