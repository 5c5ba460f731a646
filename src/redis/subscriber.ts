import type { Redis } from 'ioredis';

interface Channel {
  listeners: Set<(message: string) => void>;
  lost: Set<() => void>;
  /** Resolves once Redis confirmed the subscription. */
  ready: Promise<unknown>;
}

/**
 * One Redis connection in subscriber mode shared by every listener of a process: a channel is subscribed once,
 * for its first listener, and left with its last. When the connection drops, messages published meanwhile are lost:
 * listeners that care are told (`lost`) once it is back.
 */
export class Subscriber {
  readonly #redis: Redis;
  readonly #channels = new Map<string, Channel>();
  readonly #report: (error: unknown) => void;
  #dropped = false;

  /** `report` hears a listener's failure (it must not end the connection's event handling nor other listeners'). */
  constructor(redis: Redis, report: (error: unknown) => void) {
    this.#redis = redis;
    this.#report = report;
    redis.on('message', (channel: string, message: string) => {
      const entry = this.#channels.get(channel);
      if (!entry) return;
      for (const listener of [...entry.listeners]) {
        try {
          listener(message);
        } catch (e) {
          this.#report(e);
        }
      }
    });
    redis.on('close', () => {
      this.#dropped = true;
    });
    redis.on('ready', () => {
      if (!this.#dropped) return;
      this.#dropped = false;
      for (const entry of this.#channels.values()) for (const lost of [...entry.lost]) lost();
    });
  }

  /** Listens to `channel`; resolves once subscribed, with the function that stops listening. */
  async listen(channel: string, listener: (message: string) => void, lost?: () => void): Promise<() => void> {
    let entry = this.#channels.get(channel);
    if (!entry) {
      const created: Channel = { listeners: new Set(), lost: new Set(), ready: Promise.resolve() };
      created.ready = this.#redis.subscribe(channel).catch((e: unknown) => {
        if (this.#channels.get(channel) === created) this.#channels.delete(channel);
        throw e;
      });
      entry = created;
      this.#channels.set(channel, entry);
    }
    const own = (message: string) => listener(message);
    const ownLost = lost === undefined ? undefined : () => lost();
    entry.listeners.add(own);
    if (ownLost) entry.lost.add(ownLost);
    const current = entry;
    const stop = () => {
      current.listeners.delete(own);
      if (ownLost) current.lost.delete(ownLost);
      if (current.listeners.size > 0 || this.#channels.get(channel) !== current) return;
      this.#channels.delete(channel);
      this.#redis.unsubscribe(channel).catch(() => {
        // The connection is gone: nothing is subscribed any more (it is not restored for a channel left).
      });
    };
    try {
      await current.ready;
    } catch (e) {
      stop();
      throw e;
    }
    return stop;
  }
}
