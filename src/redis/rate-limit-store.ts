import type { BucketShape, RateLimitStore } from '../store/rate-limit-store.js';
import type { RedisConnection } from './connection.js';
import { script } from './script.js';

/** Options of the Redis rate-limit store. */
export interface RedisRateLimitStoreOptions {
  /** Prefix of the bucket keys after the connection's (separate limiters on one Redis). Default 'rl:'. */
  namespace?: string;
}

// KEYS: bucket. ARGV: capacity, refill per second, cost, now (ms). 0: taken; -1: never (cost above capacity); else the
// wait in ms. The refill, the check and the take are one atomic step; a bucket expires once it would be full again.
const TAKE = script(`
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 't', 'a')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  if cost > cap then return -1 end
  tokens = cap
  at = now
elseif now > at then
  tokens = math.min(cap, tokens + (now - at) * rate / 1000)
  at = now
end
local wait = 0
if tokens >= cost then
  tokens = tokens - cost
elseif cost > cap then
  wait = -1
else
  wait = math.max(1, math.ceil((cost - tokens) * 1000 / rate))
end
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'a', string.format('%.17g', at))
redis.call('PEXPIRE', KEYS[1], math.ceil((cap - tokens) * 1000 / rate) + 1000)
return wait
`);

/**
 * Token buckets on Redis, so that a limit per principal holds across every instance instead of multiplying by their
 * number: the refill, the check and the take in one Lua script, one round trip per call. Buckets expire once they
 * would be full again. The callers' clocks are used (keep the instances' clocks in step).
 *
 * @example
 * const cluster = await redisCluster(url);
 * new McpServer(info, { rateLimit: { store: new RedisRateLimitStore(cluster.connection), tools: { '*': '5/s' } } });
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: RedisConnection;
  readonly #prefix: string;

  constructor(redis: RedisConnection, options: RedisRateLimitStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = redis.prefix + (options.namespace ?? 'rl:');
  }

  async take(key: string, shape: BucketShape, cost: number, now: number): Promise<number> {
    const args = [shape.capacity, shape.refillPerSecond, cost, now];
    const wait = Number(await TAKE(this.#redis.command, [this.#prefix + key], args));
    return wait < 0 ? Number.POSITIVE_INFINITY : wait;
  }

  async clear(): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await this.#redis.command.scan(cursor, 'MATCH', `${this.#prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await this.#redis.command.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
}
