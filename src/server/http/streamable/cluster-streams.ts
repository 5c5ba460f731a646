import { formatSseEvent } from '../../../framing/sse.js';
import { McpkitError } from '../../../jsonrpc/errors.js';
import { encodeMessage } from '../../../jsonrpc/parse.js';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/types.js';
import type { StoredEvent } from '../../../store/event-store.js';
import { type ClusterLink, parseWireRequestId, wireRequestId } from '../cluster/link.js';
import { httpError, unavailable } from '../core/errors.js';
import type { HttpReply } from '../core/http.js';
import { OutStream, type QueuedEvent, seqOf } from './out-stream.js';
import { producerOf } from './remote-stream.js';
import type { SessionStreams } from './session-streams.js';
import { replayOf, unknownLastEventId } from './stream-resume.js';

// How one instance's copy of a clustered session shares its streams and its server requests with the other
// instances: what goes to the GET stream is recorded in the shared store and followed by whichever instance holds
// that stream; server requests carry this instance's id so that answers POSTed anywhere find their way back.

/** A request id from a notification's params, or undefined. */
export function requestIdOf(value: unknown): RequestId | undefined {
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
}

/** A server request (or its cancellation) with this instance's routable id. */
export function toWire(instance: string, message: JsonRpcMessage): JsonRpcMessage {
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

/**
 * The client's answers to other instances' requests go there, and so does a cancellation of a request running
 * elsewhere; answers to this instance's requests get their peer ids back. Returns what stays here.
 */
export function routeIncoming(
  s: SessionStreams,
  cluster: ClusterLink,
  messages: JsonRpcMessage[],
): JsonRpcMessage[] {
  const kept: JsonRpcMessage[] = [];
  const sessionId = s.sessionId ?? '';
  for (const m of messages) {
    if (!('method' in m)) {
      const wire = parseWireRequestId(m.id);
      if (wire === undefined) kept.push(m);
      else if (wire.instance === cluster.instance) kept.push({ ...m, id: wire.id });
      else cluster.forwardAnswer(wire.instance, sessionId, m);
      continue;
    }
    const cancelled = m.method === 'notifications/cancelled' ? requestIdOf(m.params?.requestId) : undefined;
    if (cancelled !== undefined && !s.byRequest.has(cancelled)) cluster.forwardCancel(sessionId, m);
    else kept.push(m);
  }
  return kept;
}

/** A message another instance routed here (an answer to this instance's request, or a cancellation). */
export function deliverRemote(s: SessionStreams, message: JsonRpcMessage): void {
  const receiver = s.receiver;
  if (!receiver || s.closed) return;
  if ('method' in message) {
    const cancelled = requestIdOf(message.params?.requestId);
    if (cancelled === undefined || !s.byRequest.has(cancelled)) return;
    receiver.onmessage(message);
    s.cancelled(cancelled);
    return;
  }
  const wire = parseWireRequestId(message.id);
  if (wire !== undefined && wire.instance === s.settings.cluster?.instance)
    receiver.onmessage({ ...message, id: wire.id });
}

/** What goes to the GET stream is recorded in the shared store; the instance holding it follows it. */
export async function sendShared(
  s: SessionStreams,
  cluster: ClusterLink,
  message: JsonRpcMessage,
): Promise<void> {
  const store = cluster.events;
  const streamId = `${s.tag}_`;
  if ('id' in message && (await store.followers(s.key, streamId)) === 0) {
    // A request nobody can receive would only time out: fail it now.
    throw new McpkitError(
      'TRANSPORT_ERROR',
      `No stream is open to deliver ${'method' in message ? message.method : 'a message'} to the client`,
    );
  }
  const data = encodeMessage(message);
  await store.append(s.key, streamId, message, data.length);
}

/**
 * The GET stream, or a stream resumed here that this instance does not write (the GET stream, or a POST stream of a
 * request running elsewhere): follow the shared store first, then replay what was missed.
 */
export async function openShared(
  s: SessionStreams,
  cluster: ClusterLink,
  lastEventId: string | undefined,
): Promise<HttpReply> {
  const store = cluster.events;
  const standaloneId = `${s.tag}_`;
  const streamId = lastEventId === undefined ? standaloneId : store.streamOf(lastEventId);
  if (streamId === undefined || !streamId.startsWith(s.tag)) return unknownLastEventId();
  const standalone = streamId === standaloneId;
  const stream = standalone ? s.standaloneStream() : new OutStream(streamId, false);
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
      s.key,
      streamId,
      (event) => followed(stream, event),
      () => stream.detach(true),
    );
    if (lastEventId !== undefined) {
      const info = standalone ? undefined : await store.streamInfo(s.key, streamId);
      let events = await store.replayAfter(s.key, lastEventId);
      if (!events && seqOf(lastEventId) === 0 && (standalone || info)) events = [];
      if (!events || (!standalone && !info)) {
        stream.detach(false);
        stream.backlog = undefined;
        return unknownLastEventId();
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
        if (!remote.ended && !(await cluster.isAlive(producerOf(streamId, s.tag)))) remote.lost = true;
      }
      replay = replayOf(events);
    }
  } catch (e) {
    stream.detach(false);
    stream.backlog = undefined;
    return unavailable(e);
  }
  return s.sseReply((sink) => s.attach(stream, sink, replay, lastEventId === undefined));
}

/** An event of a followed stream (undefined: the stream ended). */
function followed(stream: OutStream, event: StoredEvent | undefined): void {
  const remote = stream.remote;
  if (event === undefined) {
    if (remote === undefined) return;
    remote.ended = true;
    // While attaching, the attach closes it after the backlog.
    if (stream.backlog === undefined) stream.detach(true);
    return;
  }
  if (remote !== undefined && !('method' in event.message) && event.message.id !== null)
    remote.answered.add(event.message.id);
  stream.write({ id: event.id, text: formatSseEvent({ id: event.id, data: encodeMessage(event.message) }) });
}
