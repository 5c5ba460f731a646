import type { SessionRecord, SessionStore } from '../store/session-store.js';
import type { RedisConnection } from './connection.js';

/** Sessions in Redis: one JSON string per session whose time to live is the session's idle timeout. */
export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisConnection;

  constructor(redis: RedisConnection) {
    this.#redis = redis;
  }

  #key(id: string): string {
    return `${this.#redis.prefix}s:${id}`;
  }

  async create(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    await this.#redis.command.set(this.#key(id), JSON.stringify(record), 'PX', ttlMs);
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const text = await this.#redis.command.get(this.#key(id));
    return text === null ? undefined : (JSON.parse(text) as SessionRecord);
  }

  async put(id: string, record: SessionRecord, ttlMs: number): Promise<boolean> {
    const done = await this.#redis.command.set(this.#key(id), JSON.stringify(record), 'PX', ttlMs, 'XX');
    return done === 'OK';
  }

  async touch(id: string, ttlMs: number): Promise<boolean> {
    return (await this.#redis.command.pexpire(this.#key(id), ttlMs)) === 1;
  }

  async delete(id: string): Promise<void> {
    await this.#redis.command.del(this.#key(id));
  }
}
