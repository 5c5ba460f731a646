import { formatJsonEvent } from '../../../framing/sse.js';
import { encodeMessage } from '../../../jsonrpc/parse.js';
import type { StoredEvent } from '../../../store/event-store.js';
import { httpError } from '../core/errors.js';
import type { HttpReply } from '../core/http.js';
import { type QueuedEvent, seqOf } from './out-stream.js';
import type { SessionStreams } from './session-streams.js';

/** 400 for a `Last-Event-ID` that names nothing this session can resume. */
export function unknownLastEventId(): HttpReply {
  return httpError(400, 'Bad Request: Last-Event-ID is unknown, expired, or belongs to another session');
}

/** Stored events as SSE events ready to replay. */
export function replayOf(events: readonly StoredEvent[]): QueuedEvent[] {
  return events.map((e) => ({ id: e.id, text: formatJsonEvent(encodeMessage(e.message), e.id) }));
}

/** The GET of one instance: opens the standalone stream, or resumes a stream after `lastEventId`. */
export async function openOrResume(s: SessionStreams, lastEventId: string | undefined): Promise<HttpReply> {
  if (lastEventId === undefined) {
    const standalone = s.standaloneStream();
    if (standalone.connected) return httpError(409, 'Conflict: this session already has an open GET stream');
    standalone.backlog = [];
    return s.sseReply((sink) => s.attach(standalone, sink, [], true));
  }
  const store = s.settings.eventStore;
  const streamId = store?.streamOf(lastEventId);
  if (!store || streamId === undefined || !streamId.startsWith(s.tag)) return unknownLastEventId();
  const live = streamId === `${s.tag}_` ? s.standaloneStream() : s.streamOf(streamId);
  if (live?.connected) return httpError(409, 'Conflict: this stream is already connected');
  // Events sent while the store is read wait in the backlog, so nothing falls between replay and live.
  if (live) live.backlog = [];
  let events = await store.replayAfter(s.key, lastEventId);
  // The priming id of a live stream is valid before anything was recorded on it.
  if (!events && live && seqOf(lastEventId) === 0) events = [];
  if (!events) {
    if (live) live.backlog = undefined;
    return unknownLastEventId();
  }
  const replay = replayOf(events);
  if (!live) {
    // The stream already finished: replay what was missed, then end.
    return s.sseReply((sink) => {
      for (const e of replay) sink.write(e.text);
      sink.close();
    });
  }
  return s.sseReply((sink) => s.attach(live, sink, replay, false));
}
