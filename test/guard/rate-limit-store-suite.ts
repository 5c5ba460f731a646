// The shared conformance suite of rate-limit stores: every RateLimitStore (memory here, Redis in mcpkit/redis)
// runs it. Not a test file itself: a store's test file calls `rateLimitStoreSuite(name, make)`.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { BucketShape, RateLimitStore } from '../../src/store/rate-limit-store.js';

const TWO_PER_SECOND: BucketShape = { capacity: 2, refillPerSecond: 2 };
const ONE_PER_MINUTE: BucketShape = { capacity: 1, refillPerSecond: 1 / 60 };

/** Runs the store conformance tests against stores made by `make` (each test gets a fresh one, closed after). */
export function rateLimitStoreSuite(
  name: string,
  make: () => RateLimitStore | Promise<RateLimitStore>,
): void {
  describe(`RateLimitStore conformance: ${name}`, { timeout: 30_000 }, () => {
    let store: RateLimitStore | undefined;
    const fresh = async () => {
      store = await make();
      return store;
    };
    afterEach(async () => {
      await store?.close?.();
      store = undefined;
    });

    test('a new bucket starts full: capacity takes succeed, the next is refused with the wait', async () => {
      const s = await fresh();
      const key = `k-${Math.random()}`;
      const t0 = 1_000_000;
      assert.equal(await s.take(key, TWO_PER_SECOND, 1, t0), 0);
      assert.equal(await s.take(key, TWO_PER_SECOND, 1, t0), 0);
      const wait = await s.take(key, TWO_PER_SECOND, 1, t0);
      assert.ok(wait > 0 && wait <= 500, `wait ${wait} ms for one token at 2/s`);
    });

    test('tokens refill with time, never above capacity', async () => {
      const s = await fresh();
      const key = `k-${Math.random()}`;
      const t0 = 2_000_000;
      assert.equal(await s.take(key, TWO_PER_SECOND, 2, t0), 0);
      assert.ok((await s.take(key, TWO_PER_SECOND, 1, t0)) > 0);
      // Half a second later one token is back.
      assert.equal(await s.take(key, TWO_PER_SECOND, 1, t0 + 500), 0);
      // An hour later the bucket holds its capacity, not more.
      assert.equal(await s.take(key, TWO_PER_SECOND, 2, t0 + 3_600_000), 0);
      assert.ok((await s.take(key, TWO_PER_SECOND, 1, t0 + 3_600_000)) > 0);
    });

    test('a refused take takes nothing', async () => {
      const s = await fresh();
      const key = `k-${Math.random()}`;
      const t0 = 3_000_000;
      assert.equal(await s.take(key, TWO_PER_SECOND, 1, t0), 0);
      assert.ok((await s.take(key, TWO_PER_SECOND, 2, t0)) > 0);
      assert.equal(await s.take(key, TWO_PER_SECOND, 1, t0), 0);
    });

    test('a cost above the capacity is never granted', async () => {
      const s = await fresh();
      assert.equal(
        await s.take(`k-${Math.random()}`, TWO_PER_SECOND, 3, 4_000_000),
        Number.POSITIVE_INFINITY,
      );
    });

    test('keys are independent', async () => {
      const s = await fresh();
      const a = `a-${Math.random()}`;
      const b = `b-${Math.random()}`;
      const t0 = 5_000_000;
      assert.equal(await s.take(a, ONE_PER_MINUTE, 1, t0), 0);
      assert.ok((await s.take(a, ONE_PER_MINUTE, 1, t0)) > 0);
      assert.equal(await s.take(b, ONE_PER_MINUTE, 1, t0), 0);
    });

    test('the wait answered is enough: taking after it succeeds', async () => {
      const s = await fresh();
      const key = `k-${Math.random()}`;
      const t0 = 6_000_000;
      assert.equal(await s.take(key, ONE_PER_MINUTE, 1, t0), 0);
      const wait = await s.take(key, ONE_PER_MINUTE, 1, t0 + 1_000);
      assert.ok(wait > 0 && wait <= 59_000, `wait ${wait}`);
      assert.equal(await s.take(key, ONE_PER_MINUTE, 1, t0 + 1_000 + wait), 0);
    });

    test('clear forgets every bucket', async (t) => {
      const s = await fresh();
      if (!s.clear) return t.skip('the store has no clear');
      const key = `k-${Math.random()}`;
      assert.equal(await s.take(key, ONE_PER_MINUTE, 1, 7_000_000), 0);
      await s.clear();
      assert.equal(await s.take(key, ONE_PER_MINUTE, 1, 7_000_000), 0);
    });
  });
}
