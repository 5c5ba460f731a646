// InFlight's choice of the forwarded request a server's request belongs to: its own signal (stateless), else the
// request the transport relates it to (that one or none, never another), else the one request in flight.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestContext } from '../server/handler/context.js';
import { InFlight } from './in-flight.js';

/** A forwarded request held in flight; `signal` is the one InFlight gave it, `done()` ends it. */
function forward(inFlight: InFlight, name: string) {
  const ctx = { signal: new AbortController().signal, name } as unknown as RequestContext;
  let done!: () => void;
  let signal!: AbortSignal;
  const ended = inFlight.run(ctx, (s) => {
    signal = s;
    return new Promise<void>((resolve) => {
      done = resolve;
    });
  });
  return {
    signal,
    done: () => {
      done();
      return ended;
    },
  };
}

const whose = (ctx: RequestContext) => Promise.resolve((ctx as unknown as { name: string }).name);

test('a related request reaches the client of the forwarded request it relates to, among several', async () => {
  const inFlight = new InFlight();
  const a = forward(inFlight, 'a');
  const b = forward(inFlight, 'b');
  const own = new AbortController().signal;
  assert.equal(
    await inFlight.ask({ signal: own, relatedRequestId: 7, relatedSignal: b.signal }, 'x', whose),
    'b',
  );
  assert.equal(
    await inFlight.ask({ signal: own, relatedRequestId: 6, relatedSignal: a.signal }, 'x', whose),
    'a',
  );
  // Nothing relates it: several in flight are refused.
  await assert.rejects(inFlight.ask({ signal: own }, 'an elicitation', whose), /2 requests of its clients/);
  await a.done();
  await b.done();
});

test('related to a request that is not forwarded: refused, even with one request in flight', async () => {
  const inFlight = new InFlight();
  const a = forward(inFlight, 'a');
  const own = new AbortController().signal;
  await assert.rejects(
    inFlight.ask({ signal: own, relatedRequestId: 3 }, 'a sampling request', whose),
    /relates it to a request that is not one of its clients' in flight/,
  );
  await assert.rejects(
    inFlight.ask(
      { signal: own, relatedRequestId: 3, relatedSignal: new AbortController().signal },
      'x',
      whose,
    ),
    /not one of its clients' in flight/,
  );
  // Unrelated: the one in flight.
  assert.equal(await inFlight.ask({ signal: own }, 'x', whose), 'a');
  // The forwarded call's own signal (stateless): exact.
  assert.equal(await inFlight.ask({ signal: a.signal }, 'x', whose), 'a');
  await a.done();
  assert.equal(inFlight.size, 0);
});
