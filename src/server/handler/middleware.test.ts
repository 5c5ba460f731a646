import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestContext } from './context.js';
import { IncomingCall, type Middleware, runChain } from './middleware.js';

const request = new IncomingCall('tools/call', {}, {} as RequestContext);

test('a handler that throws synchronously rejects next(), which the middleware can catch', async () => {
  const recover: Middleware = (_request, next) =>
    next().catch((e: unknown) => ({ caught: e instanceof Error ? e.message : String(e) }));
  const answer = runChain([recover], request, () => {
    throw new Error('handler broke');
  });
  assert.deepEqual(await answer, { caught: 'handler broke' });
});

test('a middleware that throws synchronously is a rejection of the chain, not a throw', async () => {
  const broken: Middleware = () => {
    throw new Error('middleware broke');
  };
  const answer = runChain([broken], request, () => ({ ok: true }));
  await assert.rejects(Promise.resolve(answer), /middleware broke/);
});
