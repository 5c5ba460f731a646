// The in-memory rate-limit store: the shared conformance suite, plus its bound (least recently used dropped).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemoryRateLimitStore } from '../../src/store/rate-limit-store.js';
import { rateLimitStoreSuite } from './rate-limit-store-suite.js';

rateLimitStoreSuite('memory', () => new MemoryRateLimitStore());

describe('MemoryRateLimitStore', () => {
  test('answers synchronously', () => {
    const store = new MemoryRateLimitStore();
    assert.equal(typeof store.take('k', { capacity: 1, refillPerSecond: 1 }, 1, 0), 'number');
  });

  test('holds at most maxBuckets, dropping the least recently used', () => {
    const store = new MemoryRateLimitStore({ maxBuckets: 2 });
    const shape = { capacity: 1, refillPerSecond: 0.001 };
    assert.equal(store.take('a', shape, 1, 0), 0);
    assert.equal(store.take('b', shape, 1, 0), 0);
    assert.ok(store.take('a', shape, 1, 0) > 0); // a used again: b is now the oldest
    assert.equal(store.take('c', shape, 1, 0), 0);
    assert.equal(store.size, 2);
    assert.ok(store.take('a', shape, 1, 0) > 0, 'a was kept');
    assert.equal(store.take('b', shape, 1, 0), 0, 'b was dropped: a fresh bucket');
  });

  test('refuses a bad bound', () => {
    assert.throws(() => new MemoryRateLimitStore({ maxBuckets: 0 }), /maxBuckets/);
    assert.throws(() => new MemoryRateLimitStore({ maxBuckets: 1.5 }), /maxBuckets/);
  });
});
