import type { HttpSessionTransport } from './session-transport.js';

/** Limits of the session table. */
export interface SessionTableOptions {
  /** Most sessions at once; past it the least recently used idle session is closed. Default 10 000. */
  maxSessions: number;
  /** A session unused this long (ms) is closed. Default 30 minutes. */
  idleTimeoutMs: number;
}

interface Entry {
  transport: HttpSessionTransport;
  lastSeen: number;
}

/**
 * The bounded table of live HTTP sessions, in least-recently-used order: lookups move an entry to the
 * end, so expiry and eviction only look at the front.
 */
export class SessionTable {
  readonly #entries = new Map<string, Entry>();
  readonly #options: SessionTableOptions;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: SessionTableOptions) {
    this.#options = options;
  }

  /** Number of live sessions. */
  get size(): number {
    return this.#entries.size;
  }

  /** The live session with this id (marking it used), or undefined when unknown, closed or expired. */
  get(id: string, now = Date.now()): HttpSessionTransport | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    this.#entries.delete(id);
    if (entry.transport.closed) return undefined;
    if (now - entry.lastSeen >= this.#options.idleTimeoutMs && entry.transport.activeStreams === 0) {
      void entry.transport.close();
      return undefined;
    }
    entry.lastSeen = now;
    this.#entries.set(id, entry);
    return entry.transport;
  }

  /** The session with this id, without marking it used or expiring it. */
  peek(id: string): HttpSessionTransport | undefined {
    return this.#entries.get(id)?.transport;
  }

  /** Adds a session, evicting the least recently used idle one when full; false when none can go. */
  add(id: string, transport: HttpSessionTransport): boolean {
    this.sweep();
    if (this.#entries.size >= this.#options.maxSessions) {
      const victim = this.#oldestIdle();
      if (!victim) return false;
      this.#entries.delete(victim[0]);
      void victim[1].transport.close();
    }
    this.#entries.set(id, { transport, lastSeen: Date.now() });
    this.#ensureSweeper();
    return true;
  }

  /** Removes a session without closing it (it closed itself). */
  delete(id: string): void {
    this.#entries.delete(id);
  }

  /** Closes sessions idle past the timeout; a session with a request in progress is not idle. */
  sweep(now = Date.now()): void {
    const busy: [string, Entry][] = [];
    for (const [id, entry] of this.#entries) {
      if (now - entry.lastSeen < this.#options.idleTimeoutMs) break;
      this.#entries.delete(id);
      if (entry.transport.activeStreams > 0) busy.push([id, entry]);
      else void entry.transport.close();
    }
    for (const [id, entry] of busy) {
      entry.lastSeen = now;
      this.#entries.set(id, entry);
    }
  }

  /** Closes every session and stops the sweeper. */
  async closeAll(): Promise<void> {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(all.map((e) => e.transport.close()));
  }

  #oldestIdle(): [string, Entry] | undefined {
    for (const pair of this.#entries) if (pair[1].transport.activeStreams === 0) return pair;
    return undefined;
  }

  #ensureSweeper(): void {
    if (this.#sweeper !== undefined) return;
    const every = Math.max(100, Math.min(60_000, Math.floor(this.#options.idleTimeoutMs / 2)));
    this.#sweeper = setInterval(() => this.sweep(), every);
    (this.#sweeper as { unref?: () => void }).unref?.();
  }
}
