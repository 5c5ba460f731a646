import { Redis } from 'ioredis';
import { toError } from '../jsonrpc/errors.js';
import { Subscriber } from './subscriber.js';

/** How the Redis stores connect. */
export interface RedisConnectionOptions {
  /** Prefix of every key and channel. Default 'mcpkit:'. */
  prefix?: string;
  /** How long to wait for the first connection, in ms. Default 5000. */
  connectTimeoutMs?: number;
  /**
   * Where a failure that no request sees is reported (a channel's listener that threw). The servers whose cluster
   * runs on this connection hear it too ({@link RedisConnection.reportTo}: through their `onerror`). With no one to
   * hear it, it is thrown from a microtask, as Node throws an EventEmitter's unheard 'error'.
   */
  onerror?: (error: Error) => void;
}

/**
 * The two connections a process needs: one for commands and one in subscriber mode. Commands fail at once while
 * Redis is unreachable (no offline queue: a request gets 503 rather than waiting), and both reconnect by themselves.
 */
export class RedisConnection {
  readonly command: Redis;
  readonly subscriber: Subscriber;
  readonly prefix: string;
  readonly #subscriberConnection: Redis;
  readonly #reporters = new Set<(error: Error) => void>();

  private constructor(command: Redis, subscriber: Redis, options: RedisConnectionOptions) {
    this.command = command;
    this.#subscriberConnection = subscriber;
    this.subscriber = new Subscriber(subscriber, (e) => this.#report(e));
    this.prefix = options.prefix ?? 'mcpkit:';
    if (options.onerror) this.#reporters.add(options.onerror);
  }

  /** Adds a reporter of the failures no request sees (see `onerror`); the returned function removes it. */
  reportTo(report: (error: Error) => void): () => void {
    const own = (error: Error) => report(error);
    this.#reporters.add(own);
    return () => this.#reporters.delete(own);
  }

  #report(e: unknown): void {
    const error = toError(e);
    if (this.#reporters.size === 0) {
      queueMicrotask(() => {
        throw error;
      });
      return;
    }
    for (const report of [...this.#reporters]) report(error);
  }

  /** Connects to `url` (redis://host:port/db); resolves once both connections are ready. */
  static async open(url: string, options: RedisConnectionOptions = {}): Promise<RedisConnection> {
    const settings = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      connectTimeout: options.connectTimeoutMs ?? 5000,
      // Reconnect forever, backing off to one attempt every 2 s.
      retryStrategy: (times: number) => Math.min(50 * times, 2000),
    };
    const command = new Redis(url, settings);
    const subscriber = new Redis(url, settings);
    // Errors are reported through the failing commands; an idle connection's error must not crash the process.
    command.on('error', () => {});
    subscriber.on('error', () => {});
    try {
      await Promise.all([command.connect(), subscriber.connect()]);
    } catch (e) {
      command.disconnect();
      subscriber.disconnect();
      throw e;
    }
    return new RedisConnection(command, subscriber, options);
  }

  /** Closes both connections. */
  async close(): Promise<void> {
    await Promise.allSettled([this.command.quit(), this.#subscriberConnection.quit()]);
    this.command.disconnect();
    this.#subscriberConnection.disconnect();
  }
}
