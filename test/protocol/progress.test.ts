// Progress notifications: tokens, delivery to onprogress, increasing values, and no progress without a token.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { McpServer, type ProgressParams } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { rawClient, resultOf } from './helpers.js';

function progressServer(outcomes: unknown[] = []): McpServer {
  const server = new McpServer({ name: 'progress', version: '1' });
  server.tool('steps', { inputSchema: z.object({ n: z.number() }) }, async ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) await ctx.progress(i, n, `step ${i}`);
    await ctx.progress(n + 0.5); // fractional, no total, no message
    return `token ${JSON.stringify(ctx.meta?.progressToken ?? null)}`;
  });
  server.tool(
    'repeat',
    { inputSchema: z.object({ values: z.array(z.number()) }) },
    async ({ values }, ctx) => {
      for (const value of values) {
        try {
          await ctx.progress(value);
          outcomes.push(value);
        } catch (error) {
          outcomes.push(error);
        }
      }
      return 'done';
    },
  );
  return server;
}

test('progress notifications reach onprogress with the request token, in order', async () => {
  const { client } = await connectInMemory(progressServer());
  const events: ProgressParams[] = [];
  const result = await client.callTool('steps', { n: 3 }, { onprogress: (p) => events.push(p) });
  assert.equal(events.length, 4);
  const token = events[0]?.progressToken;
  assert.ok(typeof token === 'string' || typeof token === 'number');
  for (const e of events) assert.equal(e.progressToken, token);
  assert.deepEqual(
    events.map(({ progress, total, message }) => ({ progress, total, message })),
    [
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
      { progress: 3.5, total: undefined, message: undefined },
    ],
  );
  // The handler saw the same token in _meta.
  assert.deepEqual(result.content, [{ type: 'text', text: `token ${JSON.stringify(token)}` }]);
  await client.close();
});

test('concurrent requests get distinct tokens and each sees only its own progress', async () => {
  const { client } = await connectInMemory(progressServer());
  const a: ProgressParams[] = [];
  const b: ProgressParams[] = [];
  await Promise.all([
    client.callTool('steps', { n: 2 }, { onprogress: (p) => a.push(p) }),
    client.callTool('steps', { n: 5 }, { onprogress: (p) => b.push(p) }),
  ]);
  assert.equal(a.length, 3);
  assert.equal(b.length, 6);
  assert.notEqual(a[0]?.progressToken, b[0]?.progressToken);
  assert.ok(a.every((p) => p.progressToken === a[0]?.progressToken));
  assert.ok(b.every((p) => p.progressToken === b[0]?.progressToken));
  await client.close();
});

test('without onprogress no token is sent and ctx.progress sends nothing', async () => {
  const { raw } = await rawClient(progressServer());
  const response = await raw.request('tools/call', { name: 'steps', arguments: { n: 3 } });
  assert.deepEqual(resultOf(response).content, [{ type: 'text', text: 'token null' }]);
  assert.equal(raw.received('notifications/progress').length, 0);
  await raw.transport.close();
});

test('a caller-chosen token on the raw wire is echoed in every notification', async () => {
  const { raw } = await rawClient(progressServer());
  await raw.request('tools/call', { name: 'steps', arguments: { n: 2 }, _meta: { progressToken: 'tok-1' } });
  const notes = raw.received('notifications/progress');
  assert.equal(notes.length, 3);
  for (const note of notes) assert.equal('params' in note ? note.params?.progressToken : undefined, 'tok-1');
  await raw.transport.close();
});

test('ctx.progress with a non-increasing value throws PROGRESS_NOT_INCREASING and sends nothing for it', async () => {
  const outcomes: unknown[] = [];
  const { client } = await connectInMemory(progressServer(outcomes));
  const events: ProgressParams[] = [];
  await client.callTool('repeat', { values: [1, 2, 2, 1.5, 3, -1] }, { onprogress: (p) => events.push(p) });
  assert.deepEqual(
    events.map((e) => e.progress),
    [1, 2, 3],
  );
  assert.equal(outcomes[0], 1);
  assert.equal(outcomes[1], 2);
  for (const i of [2, 3, 5]) {
    assert.ok(outcomes[i] instanceof Error, `value #${i}`);
    assert.equal((outcomes[i] as { code?: string }).code, 'PROGRESS_NOT_INCREASING');
  }
  assert.equal(outcomes[4], 3);
  await client.close();
});

test('progress after the response is not sent', async () => {
  const server = new McpServer({ name: 'late', version: '1' });
  let later: (() => Promise<void>) | undefined;
  server.tool('quick', {}, (_args, ctx) => {
    later = () => ctx.progress(99);
    return 'done';
  });
  const { raw } = await rawClient(server);
  await raw.request('tools/call', { name: 'quick', _meta: { progressToken: 7 } });
  assert.ok(later);
  await later();
  await raw.request('ping');
  assert.equal(raw.received('notifications/progress').length, 0);
  await raw.transport.close();
});
