// Request timeouts: progress resets them (unless told not to), maxTotalTimeout caps them, and a timed-out
// request is cancelled on the other side. Small timeouts; pass/fail never hinges on precise timing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import {
  type JsonRpcNotification,
  type JsonRpcRequest,
  McpkitError,
  McpServer,
  type RequestContext,
} from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { deadline, eventually, rawClient, sleep } from './helpers.js';

interface Seen {
  aborted: RequestContext[];
  finished: string[];
}

function tickerServer(seen: Seen = { aborted: [], finished: [] }, errors: Error[] = []): McpServer {
  const server = new McpServer({ name: 'ticker', version: '1' }, { onerror: (e) => errors.push(e) });
  // Sends progress every `every` ms for `total` ms, stopping early when cancelled.
  server.tool(
    'ticker',
    { inputSchema: z.object({ every: z.number(), total: z.number() }) },
    async (args, ctx) => {
      const start = Date.now();
      let ticks = 0;
      while (Date.now() - start < args.total) {
        if (ctx.signal.aborted) {
          seen.aborted.push(ctx);
          return 'aborted';
        }
        await ctx.progress(++ticks);
        await sleep(args.every);
      }
      seen.finished.push(`ticked ${ticks}`);
      return `ticked ${ticks}`;
    },
  );
  // Never answers on its own: waits for its signal (or gives up after 5 s).
  server.tool('hang', {}, async (_args, ctx) => {
    await Promise.race([
      new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
      sleep(5000),
    ]);
    if (ctx.signal.aborted) seen.aborted.push(ctx);
    return 'hung';
  });
  // Finishes after `ms` without sending any progress.
  server.tool('silent', { inputSchema: z.object({ ms: z.number() }) }, async ({ ms }) => {
    await sleep(ms);
    return 'finished';
  });
  return server;
}

const isTimeout = (pattern?: RegExp) => (error: unknown) => {
  assert.ok(error instanceof McpkitError, String(error));
  assert.equal(error.code, 'REQUEST_TIMEOUT');
  if (pattern) assert.match(error.message, pattern);
  return true;
};

// The idle timeout is far above the progress interval (a loaded CI machine may stall a few hundred ms), and the
// call lasts well past it, so only the resets can keep it alive.
test('progress resets the timeout: 400 ms timeout, progress every 25 ms for 1 s, no timeout', async () => {
  const { client } = await connectInMemory(tickerServer());
  let ticks = 0;
  const result = await deadline(
    client.callTool('ticker', { every: 25, total: 1000 }, { timeout: 400, onprogress: () => ticks++ }),
    'the ticker call',
  );
  assert.match((result.content[0] as { text: string }).text, /^ticked \d+$/);
  assert.ok(ticks >= 2, `progress arrived (${ticks})`);
  await client.close();
});

test('with resetTimeoutOnProgress: false the same call times out', async () => {
  const seen: Seen = { aborted: [], finished: [] };
  const { client } = await connectInMemory(tickerServer(seen));
  await deadline(
    assert.rejects(
      () =>
        client.callTool(
          'ticker',
          { every: 30, total: 400 },
          { timeout: 100, resetTimeoutOnProgress: false, onprogress: () => {} },
        ),
      isTimeout(/100 ms/),
    ),
    'the timeout',
  );
  await eventually(() => seen.aborted.length === 1, 'the handler to see its signal abort');
  assert.deepEqual(seen.finished, []);
  await client.close();
});

test('maxTotalTimeout caps a request that keeps sending progress', async () => {
  const seen: Seen = { aborted: [], finished: [] };
  const { client } = await connectInMemory(tickerServer(seen));
  await deadline(
    assert.rejects(
      () =>
        client.callTool(
          'ticker',
          // The idle timeout is far above the progress interval, so only the ceiling can end the call,
          // even on a loaded machine where progress arrives late.
          { every: 30, total: 3000 },
          { timeout: 600, maxTotalTimeout: 400, onprogress: () => {} },
        ),
      isTimeout(/maximum total timeout of 400 ms/),
    ),
    'the total timeout',
  );
  await eventually(() => seen.aborted.length === 1, 'the handler to be cancelled');
  assert.deepEqual(seen.finished, []);
  await client.close();
});

test('maxTotalTimeout is a hard ceiling even when no progress arrives', {}, async () => {
  const { client } = await connectInMemory(tickerServer());
  // The handler answers after 600 ms; the ceiling is 150 ms, the idle timeout 2 s.
  await deadline(
    assert.rejects(
      () =>
        client.callTool('silent', { ms: 600 }, { timeout: 2000, maxTotalTimeout: 150, onprogress: () => {} }),
      isTimeout(),
    ),
    'the ceiling',
  );
  await client.close();
});

test('a timed-out request is cancelled: the server gets notifications/cancelled and ctx.signal aborts', async () => {
  const seen: Seen = { aborted: [], finished: [] };
  const { client } = await connectInMemory(tickerServer(seen));
  await deadline(
    assert.rejects(() => client.callTool('hang', {}, { timeout: 50 }), isTimeout(/50 ms/)),
    'timeout',
  );
  await eventually(() => seen.aborted.length === 1, 'the handler signal to abort');
  const ctx = seen.aborted[0];
  assert.ok(ctx?.signal.aborted);
  // The abort reason is the one carried by notifications/cancelled.
  assert.match(String(ctx.signal.reason), /timed out/);
  await client.ping();
  await client.close();
});

test('the cancel notification names the timed-out request id (raw wire)', async () => {
  const errors: Error[] = [];
  const server = tickerServer(undefined, errors);
  const { raw, session } = await rawClient(server);
  // The raw client plays the server side here: the server pings it and the raw peer never answers.
  raw.answer = () => undefined;
  await deadline(
    assert.rejects(() => session.request('ping', undefined, { timeout: 50 }), isTimeout()),
    'timeout',
  );
  const ping = raw.received('ping')[0] as JsonRpcRequest | undefined;
  assert.ok(ping);
  const cancels = raw.received('notifications/cancelled') as JsonRpcNotification[];
  assert.equal(cancels.length, 1);
  assert.equal(cancels[0]?.params?.requestId, ping.id);
  // A late answer is tolerated.
  await raw.send({ jsonrpc: '2.0', id: ping.id, result: {} });
  await raw.request('ping');
  assert.deepEqual(errors, [], 'a late answer to a timed-out request is not reported as an error');
  await raw.transport.close();
});

test('a request that answers in time is not affected by its timeout', async () => {
  const { client } = await connectInMemory(tickerServer());
  const result = await deadline(client.callTool('silent', { ms: 10 }, { timeout: 2000 }), 'the call');
  assert.deepEqual(result.content, [{ type: 'text', text: 'finished' }]);
  await client.close();
});
