/**
 * Rate limits: token buckets per method and per tool, keyed by principal (the client's address without a token), and
 * opt-in by session, client or any function of the request, on a {@link RateLimitStore} (memory by default). Over the limit a request is refused with
 * `ErrorCode.RateLimited` and `data.retryAfterMs` (a stateless HTTP request gets 429 and `Retry-After`). The
 * requests a handler makes of its client (sampling, elicitation) are limited per session.
 */
import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { type BucketShape, MemoryRateLimitStore, type RateLimitStore } from '../../store/rate-limit-store.js';
import type { Answer, MiddlewareRequest } from '../handler/middleware.js';
import { entriesOf, type NameRef } from './names.js';
import { describeRate, parseRate, type Rate } from './rate.js';
import type { Last, Stage } from './stage.js';
import { type KeyFn, keyFn, type RequestKey } from './subject.js';

/** One limit: a rate, and what it is counted by (the `key` of the options when omitted). */
export interface RateRule {
  /** "5/s", "100/min", "10/30s", or a bucket shape `{ capacity, refillPerSecond }`. */
  readonly limit: Rate;
  /**
   * What requests share a bucket: "principal" (without a token, the client's address), "session" and "client" (each
   * chosen by the client, so escapable: opt-in), "global" or a function of the request. See {@link RequestKey}.
   */
  readonly key?: RequestKey;
}

/**
 * The `rateLimit` option of a server.
 *
 * @example
 * new McpServer(info, {
 *   rateLimit: {
 *     methods: { 'tools/call': '5/s', '*': { limit: '100/s', key: 'global' } },
 *     tools: { search: { limit: '10/min', key: 'principal' } },
 *     clientRequests: { sampling: '1/s' },
 *   },
 * });
 */
export interface RateLimitOptions {
  /** Limits per method name ("tools/call", "resources/read", …; "*": every request, one bucket for all methods). */
  readonly methods?: Readonly<Record<string, Rate | RateRule>>;
  /** Limits per tool name ("*": every tool, each with its own bucket). Names must be registered at start. */
  readonly tools?: Readonly<Record<string, Rate | RateRule>>;
  /** Limits on what handlers ask of the client on a stateful session, per session: sampling and elicitation. */
  readonly clientRequests?: {
    readonly sampling?: Rate | RateRule;
    readonly elicitation?: Rate | RateRule;
  };
  /**
   * The default key of every limit. Default "principal": the verified token's principal, else the client's network
   * address; never something the client chooses (a session, a client id, a client name) unless a limit asks for it.
   */
  readonly key?: RequestKey;
  /** Where buckets live. Default: a {@link MemoryRateLimitStore} of this server. */
  readonly store?: RateLimitStore;
  /** The clock, in ms (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** One compiled limit. */
export interface Limit {
  /** Prefix of its bucket keys: what it limits. */
  readonly id: string;
  readonly shape: BucketShape;
  readonly key: KeyFn;
  /** How it is named in messages: "5/s per client on tools/call". */
  readonly label: string;
  /** For a "*" tool limit: a bucket per tool. */
  readonly perTool: boolean;
}

/** The compiled rate limits of a server: a middleware and the limiter of client requests. */
export class RateLimiter {
  readonly #store: RateLimitStore;
  readonly #now: () => number;
  readonly #methods = new Map<string, readonly Limit[]>();
  readonly #anyMethod: readonly Limit[];
  readonly #tools = new Map<string, readonly Limit[]>();
  readonly #anyTool: readonly Limit[];
  readonly #asks = new Map<string, Limit>();
  /** Tool names the options refer to. */
  readonly names: NameRef[] = [];

  constructor(options: RateLimitOptions) {
    this.#store = options.store ?? new MemoryRateLimitStore();
    this.#now = options.now ?? Date.now;
    const key = options.key ?? 'principal';
    const compile = (
      id: string,
      rule: Rate | RateRule,
      where: string,
      on: string,
      perTool = false,
    ): Limit => {
      const r: RateRule =
        typeof rule === 'object' && rule !== null && 'limit' in rule ? rule : { limit: rule };
      const shape = parseRate(r.limit, where);
      const by = r.key ?? key;
      return {
        id,
        shape,
        key: keyFn(by),
        label: `${describeRate(shape)} per ${typeof by === 'function' ? 'key' : by} on ${on}`,
        perTool,
      };
    };
    let any: Limit[] = [];
    for (const [method, rule] of entriesOf(options.methods, 'rateLimit.methods')) {
      const limit = compile(`m:${method}`, rule, `rateLimit.methods[${JSON.stringify(method)}]`, method);
      if (method === '*') any = [limit];
      else this.#methods.set(method, [limit]);
    }
    this.#anyMethod = any;
    for (const [m, limits] of this.#methods) this.#methods.set(m, [...limits, ...any]);
    let anyTool: Limit[] = [];
    for (const [tool, rule] of entriesOf(options.tools, 'rateLimit.tools')) {
      const where = `rateLimit.tools[${JSON.stringify(tool)}]`;
      if (tool === '*') anyTool = [compile('t*:', rule, where, 'each tool', true)];
      else {
        this.#tools.set(tool, [compile(`t:${tool}`, rule, where, `the tool ${tool}`)]);
        this.names.push({ kind: 'tool', name: tool, where });
      }
    }
    this.#anyTool = anyTool;
    for (const [t, limits] of this.#tools) this.#tools.set(t, [...limits, ...anyTool]);
    const asks = options.clientRequests;
    if (asks !== undefined) {
      if (asks.sampling !== undefined)
        this.#asks.set(
          'sampling/createMessage',
          compile('a:sampling', asks.sampling, 'rateLimit.clientRequests.sampling', 'sampling', false),
        );
      if (asks.elicitation !== undefined)
        this.#asks.set(
          'elicitation/create',
          compile('a:elicitation', asks.elicitation, 'rateLimit.clientRequests.elicitation', 'elicitation'),
        );
    }
  }

  /**
   * The stage of the limits of `method` (and of the tool `tool` of a `tools/call`) in front of `inner`: `inner`
   * itself when none applies. Each limit's bucket prefix is made here, once.
   */
  stage(method: string, tool: string | undefined, inner: Stage): Stage {
    const limits = [...(this.#methods.get(method) ?? this.#anyMethod)];
    if (method === 'tools/call' && tool !== undefined)
      limits.push(...(this.#tools.get(tool) ?? this.#anyTool));
    if (limits.length === 0) return inner;
    const buckets = limits.map((l) => new BucketKeys(l.perTool ? `${l.id}${tool as string}|` : `${l.id}|`));
    return new RateStage(this, limits, buckets, inner);
  }

  /** Whether the limiter limits requests of the client (sampling, elicitation). */
  get limitsClientRequests(): boolean {
    return this.#asks.size > 0;
  }

  /**
   * Counts one request a handler makes of its client on a stateful session; throws `RATE_LIMITED` (a local error,
   * the handler's `ctx.sample()` or `ctx.elicit()` rejects with it) over the limit.
   */
  clientRequest(method: string, request: MiddlewareRequest): void | Promise<void> {
    const limit = this.#asks.get(method);
    if (limit === undefined) return;
    const key = limit.key(request);
    if (key === undefined) return;
    const wait = this.#store.take(`${limit.id}|${key}`, limit.shape, 1, this.#now());
    const refuse = (ms: number) => {
      if (ms > 0)
        throw new McpkitError(
          'RATE_LIMITED',
          `${method} is over its rate limit (${limit.label}): ${retryText(ms)}`,
        );
    };
    if (typeof wait === 'number') return refuse(wait);
    return wait.then(refuse);
  }

  /**
   * @internal Takes a token of each limit in turn (from the bucket `buckets[i]` names for the request's key); synchronous while
   * the store answers synchronously. Throws (or rejects with) the error of the first limit that refuses.
   */
  take(
    request: MiddlewareRequest,
    limits: readonly Limit[],
    buckets: readonly BucketKeys[],
    from = 0,
  ): Promise<void> | undefined {
    const now = this.#now();
    for (let i = from; i < limits.length; i++) {
      const limit = limits[i] as Limit;
      const key = limit.key(request);
      if (key === undefined) continue;
      const wait = this.#store.take((buckets[i] as BucketKeys).of(key), limit.shape, 1, now);
      if (typeof wait !== 'number') {
        return wait.then((ms) => {
          if (ms > 0) throw rateLimited(request, limit, ms);
          return this.take(request, limits, buckets, i + 1);
        });
      }
      if (wait > 0) throw rateLimited(request, limit, wait);
    }
    return undefined;
  }

  /** Releases the store. */
  close(): void | Promise<void> {
    return this.#store.close?.();
  }
}

/** Most bucket names one limit keeps made (beyond, they are made again; keys of clients come and go). */
const MAX_BUCKET_KEYS = 10_000;

/**
 * The bucket names of one limit (on one tool): its prefix and the request's key, made once per key and kept, so a
 * returning client costs a lookup, not a new string for the store to hash.
 */
export class BucketKeys {
  readonly #prefix: string;
  readonly #made = new Map<string, string>();

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  of(key: string): string {
    let name = this.#made.get(key);
    if (name === undefined) {
      name = this.#prefix + key;
      if (this.#made.size >= MAX_BUCKET_KEYS) this.#made.clear();
      this.#made.set(key, name);
    }
    return name;
  }
}

/** The limits of one method (and tool), in front of the next stage. */
class RateStage implements Stage {
  readonly #limiter: RateLimiter;
  readonly #limits: readonly Limit[];
  readonly #buckets: readonly BucketKeys[];
  readonly #inner: Stage;

  constructor(limiter: RateLimiter, limits: readonly Limit[], buckets: readonly BucketKeys[], inner: Stage) {
    this.#limiter = limiter;
    this.#limits = limits;
    this.#buckets = buckets;
    this.#inner = inner;
  }

  run(request: MiddlewareRequest, last: Last): Answer {
    const pending = this.#limiter.take(request, this.#limits, this.#buckets);
    if (pending === undefined) return this.#inner.run(request, last);
    return pending.then(() => this.#inner.run(request, last));
  }
}

function retryText(ms: number): string {
  return Number.isFinite(ms)
    ? `retry after ${Math.ceil(ms)} ms`
    : 'the request costs more than the limit allows';
}

/** The error of a request over a limit: code `RateLimited`, `data.retryAfterMs`. */
function rateLimited(request: MiddlewareRequest, limit: Limit, ms: number): JsonRpcError {
  const name = request.params.name ?? request.params.uri;
  const what = typeof name === 'string' ? `${request.method} ${name}` : request.method;
  const data: JsonObject = { limit: limit.label };
  if (Number.isFinite(ms)) data.retryAfterMs = Math.ceil(ms);
  return new JsonRpcError(
    ErrorCode.RateLimited,
    `Rate limit exceeded for ${what} (${limit.label}): ${retryText(ms)}`,
    data,
  );
}
