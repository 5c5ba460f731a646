/**
 * The message bus of a cluster of HTTP endpoints: what crosses instances (control messages, answers to server
 * requests, events of streams held elsewhere) and which instances are alive. The in-memory bus joins endpoints of one
 * process (tests, embedding); `mcpkit/redis` has the distributed one.
 */
export interface MessageBus {
  /** Publishes `message` on `channel`; resolves with how many subscribers, cluster-wide, received it. */
  publish(channel: string, message: string): Promise<number>;
  /** Calls `listener` with every message on `channel` until the returned function is called; resolves once subscribed. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => void>;
  /**
   * Optional: adds a reporter of the bus's failures that no caller sees (a listener that threw); the returned
   * function removes it. A node gives its server's (`onerror`).
   */
  reportTo?(report: (error: Error) => void): () => void;
  /** Marks `instance` alive for `ttlMs` (instances repeat this well within the time). */
  heartbeat(instance: string, ttlMs: number): Promise<void>;
  /** Whether `instance` sent a heartbeat that has not expired. */
  isAlive(instance: string): Promise<boolean>;
}

/**
 * A {@link MessageBus} inside one process: endpoints given the same instance share channels and presence.
 *
 * @example
 * const bus = new MemoryBus();
 * // createStreamableHttpHandler(serverA, { cluster: { bus, ... } }) and the same for serverB
 */
export class MemoryBus implements MessageBus {
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #alive = new Map<string, number>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async publish(channel: string, message: string): Promise<number> {
    const listeners = this.#channels.get(channel);
    if (!listeners) return 0;
    // Delivered after the publisher's turn, as a network bus would, and in publishing order.
    const targets = [...listeners];
    queueMicrotask(() => {
      for (const listener of targets) listener(message);
    });
    return targets.length;
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => void> {
    let listeners = this.#channels.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.#channels.set(channel, listeners);
    }
    // A listener function may be subscribed twice; each subscription is its own wrapper.
    const own = (message: string) => listener(message);
    listeners.add(own);
    return () => {
      listeners.delete(own);
      if (listeners.size === 0 && this.#channels.get(channel) === listeners) this.#channels.delete(channel);
    };
  }

  async heartbeat(instance: string, ttlMs: number): Promise<void> {
    this.#alive.set(instance, this.#now() + ttlMs);
  }

  async isAlive(instance: string): Promise<boolean> {
    const until = this.#alive.get(instance);
    return until !== undefined && until > this.#now();
  }

  /** Forgets an instance at once (tests: an instance that died). */
  kill(instance: string): void {
    this.#alive.delete(instance);
  }
}
