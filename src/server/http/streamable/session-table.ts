import { AgeLink, AgeList } from '../core/age-list.js';
import type { HttpSessionTransport } from './session-transport.js';

/** Limits of the session table. */
export interface SessionTableOptions {
  /** Most sessions at once; past it the least recently used idle session is closed. Default 10 000. */
  maxSessions: number;
  /** A session unused this long (ms) is closed. Default 30 minutes. */
  idleTimeoutMs: number;
}

/** A session in the table, linked in least-recently-used order (oldest first). */
class Entry extends AgeLink<Entry> {
  constructor(
    readonly id: string,
    readonly transport: HttpSessionTransport,
    public lastSeen: number,
  ) {
    super();
  }
}

/**
 * The bounded table of live HTTP sessions, in least-recently-used order: lookups move an entry to the
 * end, so expiry and eviction only look at the front. The order is a list linked through the entries, not the `Map`'s
 * own: moving an entry is a few writes, where a delete and a set of the `Map` per lookup filled its table with holes
 * that a rehash (a new table) cleared every few requests.
 */
export class SessionTable {
  readonly #entries = new Map<string, Entry>();
  readonly #options: SessionTableOptions;
  /** The entries, least recently used first. */
  readonly #order = new AgeList<Entry>();
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
    if (entry.transport.closed) {
      this.#remove(entry);
      return undefined;
    }
    if (now - entry.lastSeen >= this.#options.idleTimeoutMs && entry.transport.activeStreams === 0) {
      this.#remove(entry);
      void entry.transport.close();
      return undefined;
    }
    entry.lastSeen = now;
    this.#touch(entry);
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
      this.#remove(victim);
      void victim.transport.close();
    }
    const known = this.#entries.get(id);
    if (known) this.#remove(known);
    const entry = new Entry(id, transport, Date.now());
    this.#entries.set(id, entry);
    this.#order.append(entry);
    this.#ensureSweeper();
    return true;
  }

  /** Removes a session without closing it (it closed itself). */
  delete(id: string): void {
    const entry = this.#entries.get(id);
    if (entry) this.#remove(entry);
  }

  /** Closes sessions idle past the timeout; a session with a request in progress is not idle. */
  sweep(now = Date.now()): void {
    const busy: Entry[] = [];
    for (let entry = this.#order.oldest; entry !== undefined; entry = this.#order.oldest) {
      if (now - entry.lastSeen < this.#options.idleTimeoutMs) break;
      this.#remove(entry);
      if (entry.transport.activeStreams > 0) busy.push(entry);
      else void entry.transport.close();
    }
    for (const entry of busy) {
      entry.lastSeen = now;
      this.#entries.set(entry.id, entry);
      this.#order.append(entry);
    }
  }

  /** Closes every session and stops the sweeper. */
  async closeAll(): Promise<void> {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    const all = [...this.#entries.values()];
    this.#entries.clear();
    this.#order.clear();
    await Promise.all(all.map((e) => e.transport.close()));
  }

  #oldestIdle(): Entry | undefined {
    for (let entry = this.#order.oldest; entry !== undefined; entry = entry.newer)
      if (entry.transport.activeStreams === 0) return entry;
    return undefined;
  }

  /** Moves an entry to the most recently used end. */
  #touch(entry: Entry): void {
    if (entry === this.#order.newest) return;
    this.#order.unlink(entry);
    this.#order.append(entry);
  }

  /** Takes an entry out of the table and of the order. */
  #remove(entry: Entry): void {
    if (this.#entries.get(entry.id) === entry) this.#entries.delete(entry.id);
    this.#order.unlink(entry);
  }

  #ensureSweeper(): void {
    if (this.#sweeper !== undefined) return;
    const every = Math.max(100, Math.min(60_000, Math.floor(this.#options.idleTimeoutMs / 2)));
    this.#sweeper = setInterval(() => this.sweep(), every);
    (this.#sweeper as { unref?: () => void }).unref?.();
  }
}
