import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HttpReply } from './http.js';
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

/** Blocks the event loop for `ms`, then lets the armed probe fire (late). */
async function stall(ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
  await tick();
}

test('while the event loop stays further behind than maxEventLoopDelayMs, POSTs are shed; once it catches up they are admitted', async () => {
  const shedder = new LoadShedder({ maxEventLoopDelayMs: 100 });
  assert.equal((await shedder.admit(async () => ok())).status, 200); // arms the probe
  await stall(300); // the probe fires at least 300 ms late: one late measurement
  assert.equal((await shedder.admit(async () => ok())).status, 200); // re-arms it
  await stall(300); // and late again: the loop stays behind
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

test('one long stall alone (a GC pause, one slow synchronous handler) sheds nothing', async () => {
  const shedder = new LoadShedder({ maxEventLoopDelayMs: 100 });
  assert.equal((await shedder.admit(async () => ok())).status, 200);
  await stall(300);
  assert.equal((await shedder.admit(async () => ok())).status, 200);
  assert.equal((await shedder.admit(async () => ok())).status, 200);
  assert.equal(shedder.shed, 0);
});

test('in one long turn of the loop, the requests read after the limit has passed are shed', async () => {
  const shedder = new LoadShedder({ maxEventLoopDelayMs: 100 });
  // One turn reads requests one after another: the first arms the probe and is admitted, the ones read after the
  // probe has waited past the limit are shed.
  const first = shedder.admit(async () => ok());
  const until = performance.now() + 300;
  while (performance.now() < until) {}
  const late = shedder.admit(async () => ok());
  assert.equal((await first).status, 200);
  assert.equal((await late).status, 503);
});

test('a turn that has run for a quarter of the limit while requests it admitted wait for their answers admits no more', async () => {
  const shedder = new LoadShedder({ maxEventLoopDelayMs: 400 });
  let answer: (() => void) | undefined;
  const waiting = shedder.admit(() => new Promise<HttpReply>((resolve) => (answer = () => resolve(ok()))));
  const until = performance.now() + 150; // the turn goes on (reading, refusing, admitting) past a quarter of the limit
  while (performance.now() < until) {}
  const late = shedder.admit(async () => ok());
  answer?.();
  assert.equal((await waiting).status, 200);
  assert.equal((await late).status, 503);
});

test('requests answered within the turn do not count against it: past a quarter of the limit it still admits', async () => {
  const shedder = new LoadShedder({ maxEventLoopDelayMs: 400 });
  assert.equal((await shedder.admit(async () => ok())).status, 200); // answered; the turn has not ended
  const until = performance.now() + 150;
  while (performance.now() < until) {}
  assert.equal((await shedder.admit(async () => ok())).status, 200);
});

test('a refusal is answered once the turn of the loop has ended, not within it', async () => {
  const shedder = new LoadShedder({ maxInFlight: 0, maxEventLoopDelayMs: 0 });
  let answered = false;
  const refused = shedder
    .admit(async () => ok())
    .then((reply) => {
      answered = true;
      return reply;
    });
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(answered, false, 'not within the turn');
  assert.equal((await refused).status, 503);
});

test('after a late turn of the loop that was busy with requests, the requests read next are shed at once', async () => {
  const shedder = new LoadShedder({ maxEventLoopDelayMs: 100 });
  const held: Promise<HttpReply>[] = [];
  for (let i = 0; i < 40; i++) held.push(shedder.admit(async () => ok())); // one turn reads 40 requests ...
  await stall(300); // ... and runs late
  assert.equal((await shedder.admit(async () => ok())).status, 503);
  await Promise.all(held);
});

test('a late measurement taken before a quiet spell no longer counts', async () => {
  const shedder = new LoadShedder({ maxEventLoopDelayMs: 100 });
  await shedder.admit(async () => ok());
  await stall(300);
  await shedder.admit(async () => ok());
  await stall(300); // two late measurements in a row ...
  await new Promise((resolve) => setTimeout(resolve, 250)); // ... then no request for longer than the limit
  assert.equal((await shedder.admit(async () => ok())).status, 200);
});

test('limits given wrong are refused at construction', () => {
  assert.throws(() => new LoadShedder({ maxInFlight: -1 }), RangeError);
  assert.throws(() => new LoadShedder({ maxEventLoopDelayMs: Number.NaN }), RangeError);
});

test('by default the loop-delay check is on at 1000 ms: a loop 300 ms behind sheds nothing, one that stays 1200 ms behind does', async () => {
  const shedder = new LoadShedder();
  await shedder.admit(async () => ok());
  await stall(300);
  await shedder.admit(async () => ok());
  await stall(300);
  assert.equal((await shedder.admit(async () => ok())).status, 200);
  await stall(1200);
  await shedder.admit(async () => ok());
  await stall(1200);
  assert.equal((await shedder.admit(async () => ok())).status, 503);
});

test('maxEventLoopDelayMs: 0 turns the loop-delay check off', async () => {
  const shedder = new LoadShedder({ maxEventLoopDelayMs: 0 });
  await shedder.admit(async () => ok());
  await stall(300);
  await shedder.admit(async () => ok());
  await stall(300);
  assert.equal((await shedder.admit(async () => ok())).status, 200);
});

test('a reply decided synchronously is handed back as it is and its place is free at once', () => {
  const shedder = new LoadShedder({ maxInFlight: 1, maxEventLoopDelayMs: 0 });
  const reply = shedder.admit(() => ok());
  assert.ok(!(reply instanceof Promise));
  assert.equal(reply.status, 200);
  assert.equal(shedder.inFlight, 0);
  // The one place is free again: a second synchronous answer is admitted too.
  assert.equal((shedder.admit(() => ok()) as HttpReply).status, 200);
  assert.throws(
    () =>
      shedder.admit(() => {
        throw new Error('boom');
      }),
    /boom/,
  );
  assert.equal(shedder.inFlight, 0);
});
