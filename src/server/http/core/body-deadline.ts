import { AgeLink, AgeList } from './age-list.js';
import { httpError } from './errors.js';
import type { BodyReading, HttpReply, HttpRequestLike } from './http.js';
import { payloadTooLarge } from './post-body.js';

/** The default of the endpoints' `bodyTimeoutMs`: a JSON-RPC body arrives in well under a second on any network. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/**
 * A body still awaited, as the sweeper sees it: an entry of the reader's list, in order of deadlines, while it has
 * neither arrived nor been answered 408.
 */
interface Waiting extends AgeLink<Waiting> {
  readonly due: number;
  answer(body: string | HttpReply): void;
}

/**
 * A body being read (when it must have arrived by, when there is a deadline) and what follows it: `then(a, body)`,
 * whose answer settles the one promise of the whole (`BodyReader.readThen`). It is the adapter's `BodyReading`, so a
 * request read with callbacks makes no promise of its own.
 */
class Reading<A, R> extends AgeLink<Waiting> implements BodyReading, Waiting {
  constructor(
    readonly owner: BodyReader,
    readonly due: number,
    readonly then: (a: A, body: string | HttpReply) => R | Promise<R>,
    readonly a: A,
    readonly resolve: (value: R | Promise<R>) => void,
    readonly reject: (error: unknown) => void,
  ) {
    super();
  }

  done(text: string | undefined): void {
    if (this.owner.settle(this)) this.answer(text ?? this.owner.tooLarge());
  }

  fail(error: unknown): void {
    if (this.owner.settle(this)) this.reject(error);
  }

  /** Hands the body (or the refusal) on; what `then` throws rejects the promise. */
  answer(body: string | HttpReply): void {
    try {
      this.resolve(this.then(this.a, body));
    } catch (e) {
      this.reject(e);
    }
  }
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
  /**
   * The bodies being read, in order of their deadlines (one timeout for all, so insertion order): a list linked
   * through the entries themselves, not a Set, which would hash each entry and shrink its table as it empties.
   */
  readonly #waiting = new AgeList<Waiting>();
  #sweeper: ReturnType<typeof setInterval> | undefined;

  /** `timeoutMs`: 0 for no deadline. */
  constructor(maxBody: number, timeoutMs: number) {
    this.#maxBody = maxBody;
    this.#timeoutMs = timeLimit(timeoutMs, 'bodyTimeoutMs');
    this.#timeout = httpError(408, `Request Timeout: the body did not arrive within ${this.#timeoutMs} ms`);
  }

  /** The body of `req` as text, or the reply refusing it: 413 past the size limit, 408 past the deadline. */
  read(req: HttpRequestLike): Promise<string | HttpReply> {
    return this.readThen(req, passOn, undefined);
  }

  /**
   * `then(a, body)` once the body of `req` has arrived (its text, or the reply refusing it: 413 past the size limit,
   * 408 past the deadline), as one promise: none for the reading itself when the request reads with callbacks.
   */
  readThen<A, R>(
    req: HttpRequestLike,
    then: (a: A, body: string | HttpReply) => R | Promise<R>,
    a: A,
  ): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const timed = this.#timeoutMs > 0;
      const entry = new Reading(
        this,
        timed ? performance.now() + this.#timeoutMs : 0,
        then,
        a,
        resolve,
        reject,
      );
      if (timed) {
        this.#waiting.append(entry);
        this.#sweeper ??= this.#startSweeping();
      }
      try {
        if (req.readText) req.readText(this.#maxBody, entry);
        else
          req.text(this.#maxBody).then(
            (text) => entry.done(text),
            (e: unknown) => entry.fail(e),
          );
      } catch (e) {
        entry.fail(e);
      }
    });
  }

  /** Whether `entry` is still waiting for its body (then it no longer is): not answered 408 already. */
  settle(entry: Waiting): boolean {
    if (this.#timeoutMs === 0) return true;
    return this.#waiting.unlink(entry);
  }

  /** 413: the body passed the size limit. */
  tooLarge(): HttpReply {
    return payloadTooLarge(this.#maxBody);
  }

  #startSweeping(): ReturnType<typeof setInterval> {
    // A quarter of the limit (at most a second) late at worst.
    const timer = setInterval(this.#sweep, Math.max(5, Math.min(1000, this.#timeoutMs / 4)));
    (timer as { unref?: () => void }).unref?.();
    return timer;
  }

  readonly #sweep = (): void => {
    const now = performance.now();
    const waiting = this.#waiting;
    for (let entry = waiting.oldest; entry !== undefined && entry.due <= now; entry = waiting.oldest) {
      waiting.unlink(entry);
      entry.answer({ ...this.#timeout, headers: { ...this.#timeout.headers } });
    }
    if (waiting.oldest === undefined && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  };
}

function passOn(_: undefined, body: string | HttpReply): string | HttpReply {
  return body;
}
