import { ErrorCode, McpkitError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import {
  type MessageContext,
  SENT,
  type SendOptions,
  type Transport,
  type TransportReceiver,
} from '../../../protocol/transport.js';
import type { RevisionPolicy } from '../../../spec/revision.js';
import { httpError, SESSION_NOT_FOUND } from '../core/errors.js';
import { type HttpReply, type HttpRequestLike, whenGone } from '../core/http.js';
import { deliverRemote, openShared, routeIncoming, sendShared, toWire } from './cluster-streams.js';
import type { OutStream } from './out-stream.js';
import { SessionStreams } from './session-streams.js';
import { openOrResume } from './stream-resume.js';
import type { StreamSettings } from './stream-settings.js';

const gone = () => httpError(404, 'Session not found', SESSION_NOT_FOUND);

/**
 * The transport of one Streamable HTTP session (or one stateless request): routes each outgoing message
 * onto exactly one stream — a request's own POST stream, else the standalone GET stream — records SSE
 * events for resumption, and answers POSTs as JSON or SSE. The streams themselves are {@link SessionStreams};
 * what a cluster adds is in `cluster-streams.ts`.
 */
export class HttpSessionTransport implements Transport {
  readonly sessionId: string | undefined;
  readonly #s: SessionStreams;
  /** Called when the transport closes (the handler forgets the session). */
  onclosed: (() => void) | undefined;
  /** The principal that opened the session (`principalOf` its auth info); only it may use the session. */
  owner: string | undefined;

  /** `tag`: the session's stream-id prefix when it was made elsewhere (cluster). */
  constructor(key: string, sessionId: string | undefined, settings: StreamSettings, tag?: string) {
    this.sessionId = sessionId;
    this.#s = new SessionStreams(key, sessionId, settings, tag);
  }

  /** The session's negotiated revision, once known (set by the handler for stateful sessions). */
  get negotiated(): { readonly policy: RevisionPolicy | undefined } | undefined {
    return this.#s.negotiated;
  }

  set negotiated(negotiated: { readonly policy: RevisionPolicy | undefined } | undefined) {
    this.#s.negotiated = negotiated;
  }

  /** Called when the last POST stream has its answer (stateless requests close then). */
  get onidle(): (() => void) | undefined {
    return this.#s.onidle;
  }

  set onidle(onidle: (() => void) | undefined) {
    this.#s.onidle = onidle;
  }

  /** The prefix of this session's stream ids. */
  get tag(): string {
    return this.#s.tag;
  }

  /** True when the session is shared by a cluster's instances. */
  get clustered(): boolean {
    return this.#s.settings.cluster !== undefined && this.sessionId !== undefined;
  }

  /** True while this instance holds the session's GET stream (cluster: it announces changes to the session). */
  get holdsStandalone(): boolean {
    return this.#s.standalone?.sink !== undefined;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#s.closed;
  }

  /** Number of POST streams still waiting for responses. */
  get activeStreams(): number {
    return this.#s.streams.size;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    this.#s.receiver = receiver;
  }

  /**
   * Delivers the messages of one POST and gives its HTTP reply: as it is when decided while the messages were
   * delivered (a handler that answered synchronously, or 'sse' mode; no promise is made), else a promise of it. With
   * `exchange` (stateless revision), a client that goes away before the answer cancels the request.
   */
  post(
    messages: JsonRpcMessage[],
    batch: boolean,
    context: MessageContext,
    exchange?: Pick<HttpRequestLike, 'onGone' | 'signal'>,
  ): HttpReply | Promise<HttpReply> {
    const s = this.#s;
    const receiver = s.receiver;
    if (!receiver || s.closed) return gone();
    const cluster = s.settings.cluster;
    if (cluster !== undefined) messages = routeIncoming(s, cluster, messages);
    // The requests among the messages, counted and checked without an array of their ids (most POSTs carry one).
    let requests = 0;
    for (const m of messages) {
      if (!('method' in m && 'id' in m)) continue;
      requests++;
      if (s.byRequest.has(m.id)) {
        const message = `Duplicate request id ${JSON.stringify(m.id)}: a request with this id is in progress`;
        return httpError(409, message, ErrorCode.InvalidRequest, m.id);
      }
    }
    if (requests === 0) {
      for (const m of messages) {
        receiver.onmessage(m, context);
        if ('method' in m && m.method === 'notifications/cancelled') s.cancelled(m.params?.requestId);
      }
      return { status: 202, headers: { ...s.headers } };
    }
    const stream = s.newStream(batch);
    for (const m of messages) {
      if (!('method' in m && 'id' in m)) continue;
      s.awaits(m.id, stream);
    }
    s.streams.set(stream.n, stream);
    stream.undecided = true;
    if (s.settings.responseMode === 'sse') s.startSse(stream);
    const ctx = new StreamContext(context, s, stream);
    for (const m of messages) {
      receiver.onmessage(m, ctx);
      if ('method' in m && m.method === 'notifications/cancelled') s.cancelled(m.params?.requestId);
    }
    // Answered already (a handler that answers synchronously): nothing is left for a disconnect to cancel.
    if (exchange && stream.pending > 0) {
      whenGone(exchange, () => {
        for (const id of s.requestsOf(stream)) {
          const params = { requestId: id, reason: 'client disconnected' };
          receiver.onmessage({ jsonrpc: '2.0', method: 'notifications/cancelled', params });
          s.cancelled(id);
        }
      });
    }
    return stream.replied();
  }

  /** Opens the standalone stream, or resumes a stream after `lastEventId`; resolves with the SSE reply. */
  async get(lastEventId: string | undefined): Promise<HttpReply> {
    const s = this.#s;
    if (s.closed) return gone();
    const cluster = s.settings.cluster;
    if (cluster !== undefined) {
      const streamId = lastEventId === undefined ? undefined : cluster.events.streamOf(lastEventId);
      // A POST stream of a request running here resumes as on a single instance.
      if (streamId === undefined || s.streamOf(streamId) === undefined)
        return openShared(s, cluster, lastEventId);
    }
    return openOrResume(s, lastEventId);
  }

  /**
   * Not an async function: a message written at once (a response, most notifications) resolves with `SENT`, with no
   * promise made for it; a failure is a rejected promise, as from an async function.
   */
  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    try {
      if (Array.isArray(message)) return this.#sendAll(message, options);
      return this.#send(message, options) ?? SENT;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  async #sendAll(messages: JsonRpcMessage[], options: SendOptions | undefined): Promise<void> {
    for (const m of messages) await this.send(m, options);
  }

  /** Routes one message onto its stream; a promise only where the message goes out asynchronously (cluster). */
  #send(message: JsonRpcMessage, options: SendOptions | undefined): Promise<void> | undefined {
    const s = this.#s;
    if (s.closed) throw new McpkitError('CONNECTION_CLOSED', 'The HTTP session is closed');
    const cluster = s.settings.cluster;
    // A server request's id names this instance, so that the client's answer, POSTed anywhere, finds its way back.
    if (cluster !== undefined && 'method' in message) message = toWire(cluster.instance, message);
    if (!('method' in message)) {
      const id = message.id;
      const stream = id === null ? undefined : s.byRequest.get(id);
      if (!stream || id === null) return; // The request's stream is gone (cancelled, or a stateless reply sent).
      s.answered(id, stream);
      s.emit(stream, message, true);
      return;
    }
    const related = options?.relatedRequestId;
    const stream = related === undefined ? undefined : s.byRequest.get(related);
    if (stream && (stream.sse || s.settings.responseMode !== 'json')) {
      s.emit(stream, message, false);
      return;
    }
    if (cluster !== undefined && this.sessionId !== undefined) return sendShared(s, cluster, message);
    const connected = s.standalone?.connected ?? false;
    if ('id' in message && !connected) {
      // A request nobody can receive would only time out: fail it now.
      throw new McpkitError(
        'TRANSPORT_ERROR',
        `No stream is open to deliver ${message.method} to the client`,
      );
    }
    // Notifications go to the GET stream; without one they are kept for a resuming client only.
    if (connected || this.sessionId !== undefined) s.emit(s.standaloneStream(), message, false);
  }

  /** Cluster: a message another instance routed here (an answer to this instance's request, or a cancellation). */
  deliverRemote(message: JsonRpcMessage): void {
    deliverRemote(this.#s, message);
  }

  /** Ends the session: open streams close and waiting POSTs get 404. Never rejects. */
  async close(): Promise<void> {
    const s = this.#s;
    if (s.closed) return;
    s.closed = true;
    const streams = s.streams.values();
    if (s.standalone) streams.push(s.standalone);
    for (const stream of streams) {
      stream.settle(httpError(404, 'Session terminated', SESSION_NOT_FOUND));
      stream.detach(true);
    }
    s.streams.clear();
    s.byRequest.clear();
    // A cluster's session outlives one instance's copy of it: only ending it (DELETE, expiry) drops its events.
    if (s.settings.cluster === undefined) {
      try {
        await s.settings.eventStore?.dropSession(s.key);
      } catch (e) {
        s.error(e);
      }
    }
    this.onclosed?.();
    s.receiver?.onclose();
  }
}

/**
 * The message context of a request on one of a session's streams (see `post`): the POST's context, and `closeStream`
 * for the stream it is answered on. A class with a method, not a copy of the context with a closure per POST.
 */
class StreamContext implements MessageContext {
  authInfo?: unknown;
  sessionId?: string;
  remoteAddress?: string | undefined;
  headers?: Readonly<Record<string, string>>;
  readonly #s: SessionStreams;
  readonly #stream: OutStream;

  constructor(context: MessageContext, s: SessionStreams, stream: OutStream) {
    if (context.authInfo !== undefined) this.authInfo = context.authInfo;
    if (context.sessionId !== undefined) this.sessionId = context.sessionId;
    if (context.remoteAddress !== undefined) this.remoteAddress = context.remoteAddress;
    if (context.headers !== undefined) this.headers = context.headers;
    this.#s = s;
    this.#stream = stream;
  }

  closeStream(): void {
    this.#s.closeConnection(this.#stream);
  }
}
