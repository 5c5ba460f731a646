import type { JsonRpcMessage } from '../../jsonrpc/types.js';

/**
 * Stores the events sent on SSE streams so a client that reconnects with `Last-Event-ID` gets exactly
 * the events of that stream it missed. Event ids encode their stream: `<streamId>.<sequence>`.
 */
export interface EventStore {
  /** Records a message sent on `streamId` of `sessionKey`; returns its event id. */
  append(sessionKey: string, streamId: string, message: JsonRpcMessage): Promise<string> | string;
  /** The stream an event id belongs to, or undefined for a malformed id. */
  streamOf(eventId: string): string | undefined;
  /** The events of the same stream after `eventId`, in order; undefined when `eventId` is unknown. */
  replayAfter(
    sessionKey: string,
    eventId: string,
  ): Promise<StoredEvent[] | undefined> | StoredEvent[] | undefined;
  /** Forgets everything about a session. */
  dropSession(sessionKey: string): Promise<void> | void;
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
}

interface StreamLog {
  next: number;
  events: StoredEvent[];
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
  readonly #sessions = new Map<string, Map<string, StreamLog>>();
  readonly #maxEvents: number;
  readonly #maxStreams: number;
  readonly #maxSessions: number;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#maxEvents = options.maxEventsPerStream ?? 1000;
    this.#maxStreams = options.maxStreamsPerSession ?? 100;
    this.#maxSessions = options.maxSessions ?? 10_000;
  }

  append(sessionKey: string, streamId: string, message: JsonRpcMessage): string {
    let streams = this.#sessions.get(sessionKey);
    if (!streams) {
      streams = new Map();
      this.#sessions.set(sessionKey, streams);
      dropOldest(this.#sessions, this.#maxSessions);
    }
    let log = streams.get(streamId);
    if (!log) {
      log = { next: 1, events: [] };
      streams.set(streamId, log);
      dropOldest(streams, this.#maxStreams);
    }
    const id = eventId(streamId, log.next++);
    log.events.push({ id, message });
    if (log.events.length > this.#maxEvents) log.events.splice(0, log.events.length - this.#maxEvents);
    return id;
  }

  streamOf(id: string): string | undefined {
    return streamOfEventId(id);
  }

  replayAfter(sessionKey: string, id: string): StoredEvent[] | undefined {
    const stream = streamOfEventId(id);
    if (stream === undefined) return undefined;
    const log = this.#sessions.get(sessionKey)?.get(stream);
    if (!log) return undefined;
    const seq = Number(id.slice(stream.length + 1));
    // Sequence 0 is the priming event, which is never stored: everything after it is replayed.
    if (seq >= log.next) return undefined;
    return log.events.filter((e) => Number(e.id.slice(stream.length + 1)) > seq);
  }

  dropSession(sessionKey: string): void {
    this.#sessions.delete(sessionKey);
  }
}

function dropOldest<K, V>(map: Map<K, V>, max: number): void {
  while (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done) return;
    map.delete(oldest.value);
  }
}
