import type { JsonObject } from '../jsonrpc/types.js';
import type { Implementation, LoggingLevel, ServerCapabilities } from '../spec/types.js';

/**
 * What a stateful session is, so that any instance can answer any of its requests: the negotiated revision, what the
 * client said about itself, what the server declared, the log level, the resource subscriptions, the principal that
 * owns it and the tag its stream ids start with. JSON-serialisable.
 */
export interface SessionRecord {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo?: Implementation;
  serverCapabilities: ServerCapabilities;
  logLevel: LoggingLevel;
  subscriptions: string[];
  /** `principalOf` the auth info that opened the session (undefined: no auth). */
  owner?: string;
  /** The prefix of the session's stream ids. */
  tag: string;
  /**
   * The instance holding the stream of a legacy HTTP+SSE (2024-11-05 transport) session: the session lives there
   * alone, and every message POSTed for it, on any instance, is handed there. Absent for Streamable HTTP sessions.
   */
  stream?: string;
}

/**
 * Where the sessions of a cluster live. Records expire `ttlMs` after their last `create`, `put` or `touch` (the
 * session's idle timeout). Instances cache records and learn of changes through the bus, so an ordinary request
 * costs no store round trip.
 */
export interface SessionStore {
  /** Stores a new session. */
  create(id: string, record: SessionRecord, ttlMs: number): Promise<void>;
  /** The session, or undefined when unknown, deleted or expired. */
  get(id: string): Promise<SessionRecord | undefined>;
  /** Replaces a live session's record; false when it is gone. */
  put(id: string, record: SessionRecord, ttlMs: number): Promise<boolean>;
  /** Restarts a live session's time to live; false when it is gone. */
  touch(id: string, ttlMs: number): Promise<boolean>;
  /** Forgets a session. */
  delete(id: string): Promise<void>;
}

/** A bounded {@link SessionStore} in one process (the cluster's in-memory store, for tests and embedding). */
export class MemorySessionStore implements SessionStore {
  readonly #records = new Map<string, { json: string; until: number }>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: { maxSessions?: number; now?: () => number } = {}) {
    this.#max = options.maxSessions ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  async create(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    this.#records.delete(id);
    this.#records.set(id, { json: JSON.stringify(record), until: this.#now() + ttlMs });
    while (this.#records.size > this.#max) {
      const oldest = this.#records.keys().next();
      if (oldest.done) break;
      this.#records.delete(oldest.value);
    }
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const entry = this.#live(id);
    // A copy each time: callers own what they get, as from a remote store.
    return entry === undefined ? undefined : (JSON.parse(entry.json) as SessionRecord);
  }

  async put(id: string, record: SessionRecord, ttlMs: number): Promise<boolean> {
    const entry = this.#live(id);
    if (!entry) return false;
    entry.json = JSON.stringify(record);
    entry.until = this.#now() + ttlMs;
    return true;
  }

  async touch(id: string, ttlMs: number): Promise<boolean> {
    const entry = this.#live(id);
    if (!entry) return false;
    entry.until = this.#now() + ttlMs;
    return true;
  }

  async delete(id: string): Promise<void> {
    this.#records.delete(id);
  }

  #live(id: string): { json: string; until: number } | undefined {
    const entry = this.#records.get(id);
    if (entry && entry.until <= this.#now()) {
      this.#records.delete(id);
      return undefined;
    }
    return entry;
  }
}
