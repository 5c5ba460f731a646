import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HttpReply } from './exchange.js';
import { LoadShedder } from './overload.js';

const ok = (): HttpReply => ({ status: 200, headers: {}, body: '{}' });
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

test('past maxInFlight a POST gets 503 with Retry-After and a JSON-RPC error, and room frees as work ends', async () => {
  const shedder = new LoadShedder({ maxInFlight: 2, maxEventLoopDelayMs: 0, retryAfterSeconds: 3 });
  const gates: (() => void)[] = [];
  const held = () => new Promise<HttpReply>((resolve) => gates.push(() => resolve(ok())));
  const first = shedder.admit(held);
  const second = shedder.admit(held);
  const refused = await shedder.admit(held);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers['retry-after'], '3');
  assert.equal(JSON.parse((refused as { body: string }).body).error.code, -32603);
  assert.equal(shedder.shed, 1);
  assert.equal(shedder.inFlight, 2);
  gates.shift()?.();
  assert.equal((await first).status, 200);
  assert.equal(shedder.inFlight, 1);
  assert.equal((await shedder.admit(async () => ok())).status, 200);
  gates.shift()?.();
  await second;
  assert.equal(shedder.inFlight, 0);
});

test('a failing handler frees its place too', async () => {
  const shedder = new LoadShedder({ maxInFlight: 1, maxEventLoopDelayMs: 0 });
  await assert.rejects(
    shedder.admit(() => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(shedder.inFlight, 0);
});

test('while the event loop is further behind than maxEventLoopDelayMs, POSTs are shed; once it catches up they are admitted', async () => {
  const shedder = new LoadShedder({ maxEventLoopDelayMs: 100 });
  assert.equal((await shedder.admit(async () => ok())).status, 200); // arms the probe
  const until = performance.now() + 300;
  while (performance.now() < until) {} // the loop is blocked for 300 ms: the probe fires at least that late
  await tick();
  assert.equal((await shedder.admit(async () => ok())).status, 503);
  // Each refused request re-arms the probe; on a loop that is no longer blocked one soon fires in time. (Bounded
  // retries, not a timing bound: a machine under heavy load may need a few.)
  let status = 503;
  for (let attempt = 0; attempt < 200 && status === 503; attempt++) {
    await tick();
    status = (await shedder.admit(async () => ok())).status;
  }
  assert.equal(status, 200);
});

test('limits given wrong are refused at construction', () => {
  assert.throws(() => new LoadShedder({ maxInFlight: -1 }), RangeError);
  assert.throws(() => new LoadShedder({ maxEventLoopDelayMs: Number.NaN }), RangeError);
});

test('by default only the in-flight cap applies: a blocked loop alone sheds nothing', async () => {
  const shedder = new LoadShedder();
  await shedder.admit(async () => ok());
  const until = performance.now() + 50;
  while (performance.now() < until) {}
  await tick();
  assert.equal((await shedder.admit(async () => ok())).status, 200);
});
