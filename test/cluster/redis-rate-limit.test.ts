// The rate-limit store conformance suite against the Redis store (a private redis-server; each store its own
// namespace), and one bucket shared by two instances: the limit holds across them instead of doubling.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedisConnection } from '../../src/redis/connection.js';
import { RedisRateLimitStore } from '../../src/redis/rate-limit-store.js';
import { TestRedis } from '../fixtures/redis.js';
import { rateLimitStoreSuite } from '../guard/rate-limit-store-suite.js';

let redis: TestRedis;
let one: RedisConnection;
let two: RedisConnection;
let n = 0;

before(async () => {
  redis = await TestRedis.start();
  one = await RedisConnection.open(redis.url);
  two = await RedisConnection.open(redis.url);
});

after(async () => {
  await one?.close();
  await two?.close();
  await redis?.close();
});

rateLimitStoreSuite('redis', () => new RedisRateLimitStore(one, { namespace: `suite${++n}:` }));

test('two instances draw from one bucket: the limit holds across them', async () => {
  const a = new RedisRateLimitStore(one, { namespace: 'shared:' });
  const b = new RedisRateLimitStore(two, { namespace: 'shared:' });
  const shape = { capacity: 5, refillPerSecond: 0.001 };
  const now = Date.now();
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).take('alice', shape, 1, now)),
  );
  assert.equal(answers.filter((w) => w === 0).length, 5);
  assert.ok(answers.filter((w) => w > 0).length === 5);
});
