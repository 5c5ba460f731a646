import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuthInfo } from '../../server/handler/auth.js';
import { TokenCache } from './token-cache.js';

const principal = (expiresAt: number | undefined): AuthInfo => ({ subject: 's', scopes: [], expiresAt });

test('an entry lives until the token expires, then is gone', () => {
  const cache = new TokenCache(10);
  cache.set('t', principal(100), 50_000);
  assert.equal(cache.get('t', 99_999)?.subject, 's');
  assert.equal(cache.get('t', 100_000), undefined);
  assert.equal(cache.size, 0, 'an expired entry is dropped when seen');
});

test('expired tokens are not kept; maxAge bounds the rest, and alone bounds tokens without expiry', () => {
  const cache = new TokenCache(10, 1000);
  cache.set('past', principal(1), 5000);
  assert.equal(cache.size, 0);
  cache.set('none', principal(undefined), 0);
  assert.ok(cache.get('none', 999), 'an introspection answer without exp lives maxAge');
  assert.equal(cache.get('none', 1000), undefined);
  const bounded = new TokenCache(10, 1000);
  bounded.set('long', principal(10_000), 0);
  assert.ok(bounded.get('long', 999));
  assert.equal(bounded.get('long', 1000), undefined);
  const noMaxAge = new TokenCache(10);
  noMaxAge.set('none', principal(undefined), 0);
  assert.equal(noMaxAge.size, 0, 'without an expiry nothing bounds the entry: not kept');
});

test('bounded: the oldest entry goes when full; size 0 keeps nothing', () => {
  const cache = new TokenCache(2);
  for (const t of ['a', 'b', 'c']) cache.set(t, principal(100), 0);
  assert.equal(cache.size, 2);
  assert.equal(cache.get('a', 0), undefined);
  assert.ok(cache.get('c', 0));
  const none = new TokenCache(0);
  none.set('a', principal(100), 0);
  assert.equal(none.size, 0);
});

test('concurrent checks of one token share one run', async () => {
  const cache = new TokenCache(10);
  let runs = 0;
  const check = async () => {
    runs++;
    await new Promise((r) => setTimeout(r, 10));
    return principal(100);
  };
  const [a, b] = await Promise.all([cache.shared('t', check), cache.shared('t', check)]);
  assert.equal(runs, 1);
  assert.equal(a, b);
  await cache.shared('t', check);
  assert.equal(runs, 2, 'a finished check is not reused');
});

test('a failed shared check is handed to every waiter, not run again, and not kept', async () => {
  const cache = new TokenCache(10);
  let runs = 0;
  const check = async () => {
    runs++;
    await new Promise((r) => setTimeout(r, 10));
    return { error: 'invalid_token' as const, description: 'no' };
  };
  const [a, b] = await Promise.all([cache.shared('t', check), cache.shared('t', check)]);
  assert.equal(runs, 1);
  assert.deepEqual(a, b);
  assert.equal(cache.get('t', Date.now()), undefined);
  assert.equal(cache.size, 0);
});
