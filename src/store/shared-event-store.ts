import type { JsonRpcMessage, RequestId } from '../jsonrpc/types.js';
import {
  type EventStore,
  MemoryEventStore,
  type MemoryEventStoreOptions,
  type StoredEvent,
} from './event-store.js';

/** What a shared store knows of one stream beside its events. */
export interface StreamInfo {
  /** The stream got its last event. */
  ended: boolean;
  /** The requests the stream answers (a POST's), as recorded when it turned into SSE. */
  requests: RequestId[];
}

/**
 * An {@link EventStore} that every instance of a cluster shares: event ids are unique across instances, and an
 * instance holding a client's connection follows a stream another instance writes (a GET stream, or a POST stream
 * resumed elsewhere). `follow` delivers every event appended after it resolved, in id order, then `undefined` once
 * the stream has ended.
 */
export interface SharedEventStore extends EventStore {
  readonly shared: true;
  append(sessionKey: string, streamId: string, message: JsonRpcMessage, size?: number): Promise<string>;
  replayAfter(sessionKey: string, eventId: string): Promise<StoredEvent[] | undefined>;
  dropSession(sessionKey: string): Promise<void>;
  streamEnded(sessionKey: string, streamId: string): Promise<void>;
  /** Records the requests a POST stream answers (so a follower can fail them if their instance dies). */
  streamOpened(sessionKey: string, streamId: string, requests: readonly RequestId[]): Promise<void>;
  /** What is known of a stream, or undefined when nothing is. */
  streamInfo(sessionKey: string, streamId: string): Promise<StreamInfo | undefined>;
  /**
   * Calls `listener` with each event appended to the stream from now on, then `undefined` when it ends; `lost` when
   * events may have been missed (the store's connection dropped: the follower should make its client resume).
   */
  follow(
    sessionKey: string,
    streamId: string,
    listener: (event: StoredEvent | undefined) => void,
    lost?: () => void,
  ): Promise<() => void>;
  /** How many instances follow the stream now. */
  followers(sessionKey: string, streamId: string): Promise<number>;
}

type Listener = (event: StoredEvent | undefined) => void;

/**
 * A {@link SharedEventStore} in one process: the bounded {@link MemoryEventStore} plus followers, for endpoints of
 * one process joined into a cluster (tests, embedding).
 */
export class MemorySharedEventStore implements SharedEventStore {
  readonly shared = true;
  readonly #events: MemoryEventStore;
  readonly #followers = new Map<string, Set<Listener>>();
  readonly #info = new Map<string, StreamInfo>();

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#events = new MemoryEventStore(options);
  }

  async append(
    sessionKey: string,
    streamId: string,
    message: JsonRpcMessage,
    size = 0,
    data?: string,
  ): Promise<string> {
    const id = this.#events.append(sessionKey, streamId, message, size, data);
    const key = keyOf(sessionKey, streamId);
    this.#infoOf(key);
    for (const listener of this.#followers.get(key) ?? []) listener({ id, message });
    return id;
  }

  streamOf(eventId: string): string | undefined {
    return this.#events.streamOf(eventId);
  }

  async replayAfter(sessionKey: string, eventId: string): Promise<StoredEvent[] | undefined> {
    return this.#events.replayAfter(sessionKey, eventId);
  }

  async dropSession(sessionKey: string): Promise<void> {
    this.#events.dropSession(sessionKey);
    const prefix = `${sessionKey}\n`;
    for (const key of this.#info.keys()) if (key.startsWith(prefix)) this.#info.delete(key);
  }

  async streamEnded(sessionKey: string, streamId: string): Promise<void> {
    this.#events.streamEnded(sessionKey, streamId);
    const key = keyOf(sessionKey, streamId);
    this.#infoOf(key).ended = true;
    for (const listener of this.#followers.get(key) ?? []) listener(undefined);
  }

  /** The last event and the end together: followers get the event, then `undefined`. */
  async appendLast(
    sessionKey: string,
    streamId: string,
    message: JsonRpcMessage,
    size = 0,
    data?: string,
  ): Promise<string> {
    const id = this.#events.appendLast(sessionKey, streamId, message, size, data);
    const key = keyOf(sessionKey, streamId);
    this.#infoOf(key).ended = true;
    for (const listener of this.#followers.get(key) ?? []) {
      listener({ id, message });
      listener(undefined);
    }
    return id;
  }

  async streamOpened(sessionKey: string, streamId: string, requests: readonly RequestId[]): Promise<void> {
    this.#infoOf(keyOf(sessionKey, streamId)).requests = [...requests];
  }

  /** What is known of a stream, made when first needed. */
  #infoOf(key: string): StreamInfo {
    let info = this.#info.get(key);
    if (info === undefined) {
      info = { ended: false, requests: [] };
      this.#info.set(key, info);
    }
    return info;
  }

  async streamInfo(sessionKey: string, streamId: string): Promise<StreamInfo | undefined> {
    const info = this.#info.get(keyOf(sessionKey, streamId));
    return info === undefined ? undefined : { ended: info.ended, requests: [...info.requests] };
  }

  async follow(sessionKey: string, streamId: string, listener: Listener): Promise<() => void> {
    const key = keyOf(sessionKey, streamId);
    let set = this.#followers.get(key);
    if (!set) {
      set = new Set();
      this.#followers.set(key, set);
    }
    const own: Listener = (e) => listener(e);
    set.add(own);
    return () => {
      set.delete(own);
      if (set.size === 0 && this.#followers.get(key) === set) this.#followers.delete(key);
    };
  }

  async followers(sessionKey: string, streamId: string): Promise<number> {
    return this.#followers.get(keyOf(sessionKey, streamId))?.size ?? 0;
  }
}

function keyOf(sessionKey: string, streamId: string): string {
  return `${sessionKey}\n${streamId}`;
}
