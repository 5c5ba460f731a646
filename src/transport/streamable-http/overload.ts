import { ErrorCode } from '../../jsonrpc/errors.js';
import { httpError } from './errors.js';
import type { HttpReply } from './exchange.js';

/** When the endpoint refuses new work instead of queueing it (`StreamableHttpOptions.overload`). */
export interface OverloadOptions {
  /** Most POSTs being worked on at once (read, dispatched, not yet answered); more get 503. Default 1024. */
  maxInFlight?: number;
  /**
   * Most delay (ms) of the event loop before new POSTs get 503: the loop is that far behind, so whatever is
   * admitted now would wait at least as long. Default 0: off, because a starved machine, a long GC pause or one
   * handler's long synchronous work would then refuse everyone else too; set it (a few hundred ms, say) on a server
   * that must stay responsive under more load than it can take.
   */
  maxEventLoopDelayMs?: number;
  /** The `Retry-After` (seconds) sent with a 503. Default 1. */
  retryAfterSeconds?: number;
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0)
    throw new RangeError(`overload.${name} must be a number ≥ 0, got ${value}`);
  return value;
}

/**
 * Sheds load before it queues: a POST is refused with 503 and `Retry-After` when too many are in flight or the event
 * loop is too far behind. The loop's delay is measured by one zero-delay timer at a time while requests arrive (how
 * late it fires is how far behind the loop is; while it waits, how long it has waited so far), so an idle endpoint
 * runs no timer at all and the check is runtime-neutral (no `perf_hooks`).
 */
export class LoadShedder {
  readonly #maxInFlight: number;
  readonly #maxDelay: number;
  readonly #refusal: HttpReply;
  #inFlight = 0;
  #delay = 0;
  #probeArmed = false;
  #probeAt = 0;
  /** Requests refused since the endpoint started. */
  shed = 0;

  constructor(options: OverloadOptions = {}) {
    this.#maxInFlight = positive(options.maxInFlight ?? 1024, 'maxInFlight');
    this.#maxDelay = positive(options.maxEventLoopDelayMs ?? 0, 'maxEventLoopDelayMs');
    const retry = positive(options.retryAfterSeconds ?? 1, 'retryAfterSeconds');
    this.#refusal = httpError(
      503,
      'Service Unavailable: the server is overloaded; retry later',
      ErrorCode.InternalError,
      null,
      {
        'retry-after': String(Math.ceil(retry)),
      },
    );
  }

  /** Runs `work` if there is room, else answers 503 at once. */
  admit(work: () => Promise<HttpReply>): Promise<HttpReply> {
    if (this.#inFlight >= this.#maxInFlight || (this.#maxDelay > 0 && this.#behind() > this.#maxDelay)) {
      this.shed++;
      return Promise.resolve({ ...this.#refusal, headers: { ...this.#refusal.headers } });
    }
    this.#inFlight++;
    const done = work();
    done.then(this.#release, this.#release);
    return done;
  }

  /** Requests admitted and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * How far behind the loop is: what the last probe measured, or, while a probe is still waiting, how long it has
   * waited so far. The second is what bounds a burst: requests read one after another in one long turn of the loop
   * have each waited at least that long in their sockets, so past the limit the rest of the burst is shed.
   */
  #behind(): number {
    if (!this.#probeArmed) {
      this.#probe();
      return this.#delay;
    }
    return Math.max(this.#delay, performance.now() - this.#probeAt);
  }

  readonly #release = (): void => {
    this.#inFlight--;
  };

  #probe(): void {
    this.#probeArmed = true;
    this.#probeAt = performance.now();
    const timer = setTimeout(this.#probed, 0);
    (timer as { unref?: () => void }).unref?.();
  }

  readonly #probed = (): void => {
    this.#probeArmed = false;
    this.#delay = performance.now() - this.#probeAt;
  };
}
