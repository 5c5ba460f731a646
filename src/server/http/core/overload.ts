import { ErrorCode } from '../../../jsonrpc/errors.js';
import { httpError } from './errors.js';
import type { HttpReply } from './http.js';

/** When the endpoint refuses new work instead of queueing it (`StreamableHttpOptions.overload`). */
export interface OverloadOptions {
  /**
   * Most POSTs being worked on at once (dispatched, not yet answered); more get 503. A POST counts from when its body
   * has arrived: one still arriving holds its connection only (its time limit is the endpoint's `bodyTimeoutMs`).
   * Default 1024.
   */
  maxInFlight?: number;
  /**
   * Most delay (ms) of the event loop before new POSTs get 503: the loop is that far behind, so whatever is
   * admitted now would wait at least as long. Default 1000 (off on Cloudflare Workers, whose clock does not move
   * while code runs); 0 turns the check off. Measured while requests arrive:
   * those read past the limit in one long turn of the loop are shed (past a quarter of it when requests that turn admitted
   * are waiting for their answers), and so is everything after a late turn that was busy with requests or while two
   * measurements in a row were late; one long pause alone (a GC, one handler's long synchronous work) refuses nothing
   * after it. Refusals are answered when the turn ends, so a flood on one connection costs one request per turn.
   */
  maxEventLoopDelayMs?: number;
  /** The `Retry-After` (seconds) sent with a 503. Default 1. */
  retryAfterSeconds?: number;
}

/**
 * The default of `OverloadOptions.maxEventLoopDelayMs`: a second, well past what a GC pause or a burst of normal
 * traffic costs, so only a loop that is truly behind sheds. Off on Cloudflare Workers, whose clock stands still
 * while code runs and moves on only with I/O: a delay measured there is no delay of the loop.
 */
const DEFAULT_MAX_DELAY_MS =
  (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers'
    ? 0
    : 1000;
/** The share of the limit a turn may run while requests it admitted wait for their answers. */
const TURN_SHARE = 0.25;
/** POSTs arriving in one late turn of the loop that make it a turn late because of traffic, not one long pause. */
const BUSY_TURN_REQUESTS = 32;

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0)
    throw new RangeError(`overload.${name} must be a number ≥ 0, got ${value}`);
  return value;
}

/**
 * Sheds load before it queues: a POST is refused with 503 and `Retry-After` when too many are in flight or the event
 * loop stays too far behind. The loop's delay is measured by one zero-delay timer at a time while requests arrive
 * (how late it fires is how far behind the loop is; while it waits, how long it has waited so far), so an idle
 * endpoint runs no timer at all and the check is runtime-neutral (no `perf_hooks`).
 */
export class LoadShedder {
  readonly #maxInFlight: number;
  readonly #maxDelay: number;
  readonly #refusal: HttpReply;
  #inFlight = 0;
  /** The last two completed measurements (ms), and when the last one completed. */
  #delay = 0;
  #previousDelay = 0;
  #probedAt = Number.NEGATIVE_INFINITY;
  #probeArmed = false;
  #probeAt = 0;
  /** Requests admitted in this turn of the loop and not yet answered (answers of earlier ones may count here). */
  #turnWaiting = 0;
  /** POSTs that arrived while the current probe waited, and while the last one did. */
  #arrivals = 0;
  #lastArrivals = 0;
  /** Refusals held until this turn of the loop ends (one zero-delay timer releases them all). */
  #held: ((reply: HttpReply) => void)[] = [];
  /** Requests refused since the endpoint started. */
  shed = 0;

  constructor(options: OverloadOptions = {}) {
    this.#maxInFlight = positive(options.maxInFlight ?? 1024, 'maxInFlight');
    this.#maxDelay = positive(options.maxEventLoopDelayMs ?? DEFAULT_MAX_DELAY_MS, 'maxEventLoopDelayMs');
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

  /**
   * Runs `work` if there is room, else answers 503 once this turn of the event loop has ended. A refusal sent at once
   * would let its client send the next request on the same connection within the same turn: under a flood, one
   * long turn of the loop would then go on reading and refusing requests, and the requests it admitted would wait
   * for it to end. Held to the turn's end, each connection brings at most one request per turn.
   */
  admit(work: () => Promise<HttpReply>): Promise<HttpReply>;
  admit(work: () => HttpReply | Promise<HttpReply>): HttpReply | Promise<HttpReply>;
  // `work` with its two arguments: the caller makes no closure per request.
  admit<A, B>(
    work: (a: A, b: B) => HttpReply | Promise<HttpReply>,
    a: A,
    b: B,
  ): HttpReply | Promise<HttpReply>;
  admit(
    work: (a?: unknown, b?: unknown) => HttpReply | Promise<HttpReply>,
    a?: unknown,
    b?: unknown,
  ): HttpReply | Promise<HttpReply> {
    if (this.#inFlight >= this.#maxInFlight || (this.#maxDelay > 0 && this.#behind())) {
      this.shed++;
      return new Promise((resolve) => {
        if (this.#held.push(resolve) === 1) setTimeout(this.#release503, 0);
      });
    }
    this.#inFlight++;
    this.#turnWaiting++;
    let done: HttpReply | Promise<HttpReply>;
    try {
      done = work(a, b);
    } catch (e) {
      this.#release();
      throw e;
    }
    // Answered synchronously (`work` returned the reply itself): out of flight at once.
    if (done instanceof Promise) done.then(this.#release, this.#release);
    else this.#release();
    return done;
  }

  /** Requests admitted and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Whether the loop is too far behind. Within one long turn of the loop, the requests read after the probe has
   * waited past the limit have each waited at least that long in their sockets: shed, which bounds a burst. At the
   * start of a turn, a late last measurement means the requests now being read waited through that late turn: shed
   * too, when the loop stays behind (the measurement before was late as well) or the late turn was busy with
   * requests, so one long pause alone (a GC, one handler's long synchronous work) refuses nothing after it. A
   * measurement taken before a quiet spell (no request re-armed the probe for longer than the limit) no longer
   * counts: whatever backlog it saw has been worked off.
   *
   * A turn that has run for a quarter of the limit while requests it admitted wait for their answers (handlers that await
   * something, whose answers come only after the turn) admits no more: each request it admits makes the turn, and
   * so the wait of those already admitted, longer. Requests answered at once, within the turn, do not count.
   */
  #behind(): boolean {
    const max = this.#maxDelay;
    this.#arrivals++;
    let recent = true;
    if (!this.#probeArmed) {
      recent = performance.now() - this.#probedAt <= max;
      this.#probe();
    } else {
      const age = performance.now() - this.#probeAt;
      if (age > max || (this.#turnWaiting > 0 && age > max * TURN_SHARE)) return true;
    }
    return (
      recent && this.#delay > max && (this.#previousDelay > max || this.#lastArrivals >= BUSY_TURN_REQUESTS)
    );
  }

  readonly #release = (): void => {
    this.#inFlight--;
    if (this.#turnWaiting > 0) this.#turnWaiting--;
  };

  readonly #release503 = (): void => {
    const held = this.#held;
    this.#held = [];
    for (const resolve of held) resolve({ ...this.#refusal, headers: { ...this.#refusal.headers } });
  };

  #probe(): void {
    this.#probeArmed = true;
    this.#probeAt = performance.now();
    const timer = setTimeout(this.#probed, 0);
    (timer as { unref?: () => void }).unref?.();
  }

  readonly #probed = (): void => {
    this.#probeArmed = false;
    this.#probedAt = performance.now();
    this.#previousDelay = this.#delay;
    this.#delay = this.#probedAt - this.#probeAt;
    this.#lastArrivals = this.#arrivals;
    this.#arrivals = 0;
    this.#turnWaiting = 0;
  };
}
