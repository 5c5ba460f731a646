import type { MessageBus } from '../store/bus.js';
import type { RedisConnection } from './connection.js';

/** The cluster's message bus on Redis pub/sub; presence as keys that expire. */
export class RedisBus implements MessageBus {
  readonly #redis: RedisConnection;

  constructor(redis: RedisConnection) {
    this.#redis = redis;
  }

  publish(channel: string, message: string): Promise<number> {
    return this.#redis.command.publish(this.#redis.prefix + channel, message);
  }

  subscribe(channel: string, listener: (message: string) => void): Promise<() => void> {
    return this.#redis.subscriber.listen(this.#redis.prefix + channel, listener);
  }

  reportTo(report: (error: Error) => void): () => void {
    return this.#redis.reportTo(report);
  }

  async heartbeat(instance: string, ttlMs: number): Promise<void> {
    await this.#redis.command.set(aliveKey(this.#redis.prefix, instance), '1', 'PX', ttlMs);
  }

  async isAlive(instance: string): Promise<boolean> {
    return (await this.#redis.command.exists(aliveKey(this.#redis.prefix, instance))) === 1;
  }
}

/** The key that says an instance is alive (shared with the task store). */
export function aliveKey(prefix: string, instance: string): string {
  return `${prefix}alive:${instance}`;
}
