import { httpError } from './errors.js';
import type { HttpReply, HttpRequestLike } from './http.js';
import { payloadTooLarge } from './post-body.js';

/** The default of the endpoints' `bodyTimeoutMs`: a JSON-RPC body arrives in well under a second on any network. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** A body being read, and when it must have arrived by. */
class Reading {
  constructor(
    readonly due: number,
    readonly answer: (reply: HttpReply) => void,
  ) {}
}

/** Validates a time limit option (ms, ≥ 0, 0 meaning none). */
export function timeLimit(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0)
    throw new RangeError(`${name} must be a number ≥ 0, got ${value}`);
  return value;
}

/**
 * Reads POST bodies with a deadline: a body that has not arrived `timeoutMs` after its reading began is answered 408
 * (a client trickling its body holds a connection, never the server's attention for long). One interval timer,
 * running only while bodies are being read, sweeps the late ones, rather than a timer per request.
 */
export class BodyReader {
  readonly #timeoutMs: number;
  readonly #maxBody: number;
  readonly #timeout: HttpReply;
  /** In order of their deadlines (one timeout for all, so insertion order). */
  readonly #reading = new Set<Reading>();
  #sweeper: ReturnType<typeof setInterval> | undefined;

  /** `timeoutMs`: 0 for no deadline. */
  constructor(maxBody: number, timeoutMs: number) {
    this.#maxBody = maxBody;
    this.#timeoutMs = timeLimit(timeoutMs, 'bodyTimeoutMs');
    this.#timeout = httpError(408, `Request Timeout: the body did not arrive within ${this.#timeoutMs} ms`);
  }

  /** The body of `req` as text, or the reply refusing it: 413 past the size limit, 408 past the deadline. */
  read(req: HttpRequestLike): Promise<string | HttpReply> {
    const reading = req.text(this.#maxBody);
    if (this.#timeoutMs === 0) return reading.then(this.#orTooLarge);
    return new Promise((resolve, reject) => {
      const entry = new Reading(performance.now() + this.#timeoutMs, resolve);
      this.#reading.add(entry);
      this.#sweeper ??= this.#startSweeping();
      reading.then(
        (text) => {
          if (this.#reading.delete(entry)) resolve(this.#orTooLarge(text));
        },
        (e: unknown) => {
          if (this.#reading.delete(entry)) reject(e);
        },
      );
    });
  }

  readonly #orTooLarge = (text: string | undefined): string | HttpReply =>
    text ?? payloadTooLarge(this.#maxBody);

  #startSweeping(): ReturnType<typeof setInterval> {
    // A quarter of the limit (at most a second) late at worst.
    const timer = setInterval(this.#sweep, Math.max(5, Math.min(1000, this.#timeoutMs / 4)));
    (timer as { unref?: () => void }).unref?.();
    return timer;
  }

  readonly #sweep = (): void => {
    const now = performance.now();
    for (const entry of this.#reading) {
      if (entry.due > now) break;
      this.#reading.delete(entry);
      entry.answer({ ...this.#timeout, headers: { ...this.#timeout.headers } });
    }
    if (this.#reading.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  };
}
