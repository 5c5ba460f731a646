/**
 * Where the token buckets of the rate limiter live: the {@link RateLimitStore} interface and its bounded in-memory
 * implementation. A store on Redis (`mcpkit/redis`) implements the same interface so that every instance behind a
 * load balancer draws from one bucket per key.
 */

/** The shape of one bucket: how many tokens it holds when full, and how fast it refills. */
export interface BucketShape {
  /** Tokens when full (the burst a caller may spend at once). A positive integer. */
  readonly capacity: number;
  /** Tokens added per second, continuously (fractions accrue). Positive. */
  readonly refillPerSecond: number;
}

/**
 * Token buckets by key. `take` removes `cost` tokens from the bucket `key` (created full on first use) when it holds
 * that many, and answers how long to wait otherwise; nothing is taken from a bucket that refuses.
 *
 * A store answers synchronously (`number`) when it can: the limiter then costs no promise per call. A remote store
 * answers with a promise. Keys are opaque strings of at most a few hundred characters; a store may forget a bucket
 * that has refilled completely (a full bucket and no bucket are the same).
 */
export interface RateLimitStore {
  /**
   * Takes `cost` tokens from bucket `key` of `shape`. Answers `0` when they were taken, otherwise the milliseconds
   * until the bucket will hold `cost` tokens (always > 0; a cost above the capacity is never granted: `Infinity`).
   * `now` is the caller's clock in ms since the epoch (a distributed store may use its own clock instead).
   */
  take(key: string, shape: BucketShape, cost: number, now: number): number | Promise<number>;
  /** Forgets every bucket (tests, a configuration change). */
  clear?(): void | Promise<void>;
  /** Releases the store's resources (connections, timers). */
  close?(): void | Promise<void>;
}

/** Options of {@link MemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /** Most buckets held at once; beyond it the least recently used is dropped (a fresh start for its key). Default 100 000. */
  maxBuckets?: number;
}

/** One bucket's state: tokens at the moment `at` (ms). */
interface Bucket {
  tokens: number;
  at: number;
}

/**
 * The in-memory {@link RateLimitStore}: one process, synchronous, bounded (least recently used buckets are
 * dropped beyond `maxBuckets`). The default store of the rate limiter.
 *
 * @example
 * const store = new MemoryRateLimitStore({ maxBuckets: 10_000 });
 * new McpServer(info, { rateLimit: { store, tools: { '*': '5/s' } } });
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #buckets = new Map<string, Bucket>();
  readonly #max: number;
  /** The key taken from last: its bucket is already the most recent in `#buckets`. */
  #last: string | undefined;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    const max = options.maxBuckets ?? 100_000;
    if (!Number.isInteger(max) || max < 1) throw new RangeError('maxBuckets must be a positive integer');
    this.#max = max;
  }

  /** Buckets held now. */
  get size(): number {
    return this.#buckets.size;
  }

  take(key: string, shape: BucketShape, cost: number, now: number): number {
    const buckets = this.#buckets;
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      if (cost > shape.capacity) return Number.POSITIVE_INFINITY;
      bucket = { tokens: shape.capacity, at: now };
      if (buckets.size >= this.#max) {
        // Maps iterate in insertion order and a used bucket is re-inserted: the first key is the least recent.
        const oldest = buckets.keys().next();
        if (!oldest.done) buckets.delete(oldest.value);
      }
      buckets.set(key, bucket);
      this.#last = key;
    } else {
      // Re-inserted to be the most recent, unless it already is (one busy client: no Map churn per call).
      if (key !== this.#last) {
        buckets.delete(key);
        buckets.set(key, bucket);
        this.#last = key;
      }
      const elapsed = now - bucket.at;
      if (elapsed > 0) {
        bucket.tokens = Math.min(shape.capacity, bucket.tokens + (elapsed * shape.refillPerSecond) / 1000);
        bucket.at = now;
      }
    }
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return 0;
    }
    if (cost > shape.capacity) return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.ceil(((cost - bucket.tokens) * 1000) / shape.refillPerSecond));
  }

  clear(): void {
    this.#buckets.clear();
    this.#last = undefined;
  }

  close(): void {
    this.clear();
  }
}
