import type { JsonRpcMessage } from '../jsonrpc/types.js';
import { EndedStreams } from './ended-streams.js';

/**
 * Stores the events sent on SSE streams so a client that reconnects with `Last-Event-ID` gets exactly
 * the events of that stream it missed. Event ids encode their stream: `<streamId>.<sequence>`.
 */
export interface EventStore {
  /**
   * Records a message sent on `streamId` of `sessionKey`; returns its event id. `size` is the length of the message's
   * JSON text, for stores that budget memory; `data` is that text itself, when the caller has it (a store may keep it
   * instead of the message).
   */
  append(
    sessionKey: string,
    streamId: string,
    message: JsonRpcMessage,
    size?: number,
    data?: string,
  ): Promise<string> | string;
  /** The stream an event id belongs to, or undefined for a malformed id. */
  streamOf(eventId: string): string | undefined;
  /** The events of the same stream after `eventId`, in order; undefined when `eventId` is unknown. */
  replayAfter(
    sessionKey: string,
    eventId: string,
  ): Promise<StoredEvent[] | undefined> | StoredEvent[] | undefined;
  /** Forgets everything about a session. */
  dropSession(sessionKey: string): Promise<void> | void;
  /** Optional: the stream got its last event (bounded stores drop finished streams before live ones). */
  streamEnded?(sessionKey: string, streamId: string): Promise<void> | void;
  /**
   * Optional: records the last event of `streamId` and ends the stream in one step, as `append` then `streamEnded`
   * would (the transport uses it when the store has it: most streams carry one event, a POST's response).
   */
  appendLast?(
    sessionKey: string,
    streamId: string,
    message: JsonRpcMessage,
    size?: number,
    data?: string,
  ): Promise<string> | string;
}

/** One stored event. */
export interface StoredEvent {
  id: string;
  message: JsonRpcMessage;
}

/** Limits of the in-memory event store. */
export interface MemoryEventStoreOptions {
  /** Most events kept per stream (oldest dropped first). Default 1000. */
  maxEventsPerStream?: number;
  /** Most streams remembered per session (oldest dropped first). Default 100. */
  maxStreamsPerSession?: number;
  /** Most sessions remembered (oldest dropped first). Default 10 000. */
  maxSessions?: number;
  /**
   * Most bytes of message text kept per session (as reported by the transport): past it, finished streams go first,
   * then the oldest events of the others; each live stream keeps at least its newest event. Default 8 MiB.
   */
  maxBytesPerSession?: number;
}

/**
 * One kept event: its sequence (its id is made again on the rare replay), its message's JSON text when the transport
 * gave it (one string, not the message's objects, lives on until the stream is dropped: far less for the garbage
 * collector to copy and mark), else the message; and the text's size as reported (what the byte budget counts).
 */
interface KeptEvent {
  seq: number;
  message: JsonRpcMessage | undefined;
  data: string | undefined;
  size: number;
}

/** A stream still being written. */
interface StreamLog {
  /** The stream's id (its key in the session's map). */
  id: string;
  /** Sequence of the newest event dropped to stay within bounds (0: none dropped). */
  dropped: number;
  events: KeptEvent[];
}

interface SessionLog {
  /** Session-wide sequence: ids are never reused, even for a stream whose log was dropped. */
  next: number;
  /** The streams still being written, least recently written first. */
  streams: Map<string, StreamLog>;
  /** The streams that got their last event, oldest first, as text outside the heap (made with the first). */
  ended: EndedStreams | undefined;
  /** Text size of every event kept. */
  bytes: number;
}

/** Creates an event id; exported for stores of other kinds. */
export function eventId(streamId: string, sequence: number): string {
  return `${streamId}.${sequence}`;
}

/** The stream part of an event id. */
export function streamOfEventId(id: string): string | undefined {
  const dot = id.lastIndexOf('.');
  return dot > 0 && /^\d+$/.test(id.slice(dot + 1)) ? id.slice(0, dot) : undefined;
}

/** A bounded in-memory EventStore: every map and list has a limit. */
export class MemoryEventStore implements EventStore {
  readonly #sessions = new Map<string, SessionLog>();
  readonly #maxEvents: number;
  readonly #maxStreams: number;
  readonly #maxSessions: number;
  readonly #maxBytes: number;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#maxEvents = options.maxEventsPerStream ?? 1000;
    this.#maxStreams = options.maxStreamsPerSession ?? 100;
    this.#maxSessions = options.maxSessions ?? 10_000;
    this.#maxBytes = options.maxBytesPerSession ?? 8 * 1024 * 1024;
  }

  append(sessionKey: string, streamId: string, message: JsonRpcMessage, size = 0, data?: string): string {
    const session = this.#session(sessionKey);
    const seq = session.next++;
    const event: KeptEvent =
      data === undefined ? { seq, message, data: undefined, size } : { seq, message: undefined, data, size };
    const streams = session.streams;
    let log = streams.get(streamId);
    if (log) {
      // Least recently written last: a stream still being written is never the one dropped.
      streams.delete(streamId);
      streams.set(streamId, log);
      log.events.push(event);
    } else {
      // Most streams carry one event (a POST's response): its log is made with it, one array of one.
      log = { id: streamId, dropped: 0, events: [event] };
      streams.set(streamId, log);
      dropStreams(session, this.#maxStreams);
    }
    session.bytes += size;
    if (log.events.length > this.#maxEvents)
      dropOldestEvents(session, log, log.events.length - this.#maxEvents);
    if (session.bytes > this.#maxBytes) trimBytes(session, this.#maxBytes);
    return eventId(streamId, seq);
  }

  /**
   * A stream with no event before its last (a POST's one response, most streams) goes straight to the session's ended
   * streams: no log, no entry in the live streams' map, no object kept.
   */
  appendLast(sessionKey: string, streamId: string, message: JsonRpcMessage, size = 0, data?: string): string {
    const session = this.#session(sessionKey);
    if (session.streams.size > 0 && session.streams.has(streamId)) {
      const id = this.append(sessionKey, streamId, message, size, data);
      this.streamEnded(sessionKey, streamId);
      return id;
    }
    const seq = session.next++;
    session.ended ??= new EndedStreams();
    session.ended.addOne(streamId, seq, data ?? JSON.stringify(message), size);
    session.bytes += size;
    dropStreams(session, this.#maxStreams);
    if (session.bytes > this.#maxBytes) trimBytes(session, this.#maxBytes);
    return eventId(streamId, seq);
  }

  /** The log of a session, made (and the oldest session dropped past the limit) when first written. */
  #session(sessionKey: string): SessionLog {
    let session = this.#sessions.get(sessionKey);
    if (!session) {
      session = { next: 1, streams: new Map(), ended: undefined, bytes: 0 };
      this.#sessions.set(sessionKey, session);
      dropOldest(this.#sessions, this.#maxSessions);
    }
    return session;
  }

  streamOf(id: string): string | undefined {
    return streamOfEventId(id);
  }

  replayAfter(sessionKey: string, id: string): StoredEvent[] | undefined {
    const stream = streamOfEventId(id);
    if (stream === undefined) return undefined;
    const session = this.#sessions.get(sessionKey);
    if (!session) return undefined;
    const seq = seqOf(id);
    // Unknown ids are refused, and so is a resume point whose following events were dropped (a gap).
    if (seq >= session.next) return undefined;
    const ended = session.ended?.eventsAfter(stream, seq);
    const log = session.streams.get(stream);
    if (ended === null || (ended === undefined && !log) || (log && seq < log.dropped)) return undefined;
    const after: StoredEvent[] = [];
    if (ended)
      for (const e of ended)
        after.push({ id: eventId(stream, e.seq), message: JSON.parse(e.text) as JsonRpcMessage });
    if (log)
      for (const e of log.events) {
        if (e.seq > seq)
          after.push({
            id: eventId(stream, e.seq),
            message: e.message ?? (JSON.parse(e.data as string) as JsonRpcMessage),
          });
      }
    return after;
  }

  dropSession(sessionKey: string): void {
    this.#sessions.delete(sessionKey);
  }

  /** The stream's log leaves the live ones for the session's ended streams, kept as text outside the heap. */
  streamEnded(sessionKey: string, streamId: string): void {
    const session = this.#sessions.get(sessionKey);
    const log = session?.streams.get(streamId);
    if (!session || !log) return;
    session.streams.delete(streamId);
    session.ended ??= new EndedStreams();
    session.ended.add(streamId, log.dropped, log.events);
  }
}

/** Over the limit, drops ended streams first (oldest first), then the oldest live one. */
function dropStreams(session: SessionLog, max: number): void {
  const streams = session.streams;
  const ended = session.ended;
  while (streams.size + (ended?.count ?? 0) > max) {
    if (ended !== undefined && ended.count > 0) {
      session.bytes -= ended.dropOldest();
      continue;
    }
    const victim: StreamLog | undefined = streams.values().next().value;
    if (victim === undefined) return;
    dropStream(session, victim);
  }
}

function dropStream(session: SessionLog, log: StreamLog): void {
  for (const event of log.events) session.bytes -= event.size;
  session.streams.delete(log.id);
}

/** Drops the first `count` events of a stream; a resume point before them becomes a gap (refused). */
function dropOldestEvents(session: SessionLog, log: StreamLog, count: number): void {
  const gone = log.events.splice(0, count);
  for (const event of gone) session.bytes -= event.size;
  log.dropped = gone[gone.length - 1]?.seq ?? 0;
}

/** Over the byte budget: finished streams go first (oldest first), then the oldest events, oldest stream first. */
function trimBytes(session: SessionLog, max: number): void {
  const ended = session.ended;
  while (session.bytes > max && ended !== undefined && ended.count > 0) session.bytes -= ended.dropOldest();
  if (session.bytes <= max) return;
  for (const log of session.streams.values()) {
    while (session.bytes > max && log.events.length > 1) dropOldestEvents(session, log, 1);
    if (session.bytes <= max) return;
  }
}

function seqOf(id: string): number {
  return Number(id.slice(id.lastIndexOf('.') + 1));
}

function dropOldest<K, V>(map: Map<K, V>, max: number): void {
  while (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done) return;
    map.delete(oldest.value);
  }
}
