// The lifetime of a `subscriptions/listen` stream between our Client and the dual-era server (stateless era, stdio
// and HTTP): closed by the client (`local`), ended gracefully by the server (`graceful`, with the empty listen
// result carrying the subscription id), and what closing the whole client does to streams still open.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { type RunningServer, serve } from '../../src/node.js';
import { META } from '../../src/spec/modern.js';
import { createDualServer, DUAL_INFO } from './fixtures/dual-server.js';
import {
  CALL,
  connectClient,
  DUAL_STDIO_MAIN,
  newSeen,
  Pids,
  recordingOptions,
  SUITE_TIMEOUT,
  sleep,
  type Target,
  within,
} from './helpers.js';

const pids = new Pids();
const dual = createDualServer();
let running: RunningServer;

before(async () => {
  running = await serve(dual.server);
});
after(async () => {
  await running?.close();
  pids.killAll();
});

for (const kind of ['stdio', 'http'] as const) {
  const target = (): Target =>
    kind === 'http'
      ? { kind, url: running.url }
      : { kind, command: process.execPath, args: [DUAL_STDIO_MAIN] };

  describe(`${kind}: listen stream lifecycle (stateless era)`, { timeout: SUITE_TIMEOUT }, () => {
    test('the server ends the stream gracefully: the empty listen result with the subscription id; ended "graceful"', async () => {
      const seen = newSeen();
      const { client, tap } = await connectClient(target(), 'stateless', recordingOptions(seen), pids);
      try {
        const sub = client.listen({ promptsListChanged: true });
        assert.deepEqual(await sub.honoured, { promptsListChanged: true });
        const id = tap.sentRequests('subscriptions/listen').at(-1)?.id;
        await client.callTool('end_listens', {}, CALL);
        assert.equal(await within(sub.ended, 'the subscription to end'), 'graceful');
        const final = tap.received.find((m) => !('method' in m) && m.id === id) as
          | { result?: JsonObject }
          | undefined;
        assert.ok(final?.result, 'the listen request got its (empty) result');
        assert.equal(final.result.resultType, 'complete');
        const meta = final.result._meta as JsonObject;
        assert.equal(meta[META.subscriptionId], id);
        assert.deepEqual(meta[META.serverInfo], DUAL_INFO);
      } finally {
        await client.close();
      }
    });

    test('the client closes one stream: ended "local"; the server forgets it; no error reported', async () => {
      const seen = newSeen();
      const options = recordingOptions(seen);
      // No list callbacks: the client opens no listen stream of its own.
      delete options.onToolsChanged;
      const { client } = await connectClient(target(), 'stateless', options, pids);
      try {
        const size = dual.server.subscriptions.size;
        const sub = client.listen({ resourceSubscriptions: ['eras://static'] });
        await sub.honoured;
        if (kind === 'http') assert.equal(dual.server.subscriptions.size, size + 1);
        sub.close();
        assert.equal(await within(sub.ended, 'the subscription to end'), 'local');
        if (kind === 'http') {
          const end = Date.now() + 3_000;
          while (dual.server.subscriptions.size !== size && Date.now() < end) await sleep(10);
          assert.equal(dual.server.subscriptions.size, size, 'closing the stream unsubscribes on the server');
        }
        // Updates after the close are not delivered.
        await client.callTool('touch', { uri: 'eras://static' }, CALL);
        await sleep(50);
        assert.deepEqual(seen.updated, []);
        assert.deepEqual(seen.errors, []);
      } finally {
        await client.close();
      }
    });

    test('closing the client ends its open streams as "local" and reports no error', async () => {
      const seen = newSeen();
      const { client } = await connectClient(target(), 'stateless', recordingOptions(seen), pids);
      const sub = client.listen({ resourceSubscriptions: ['eras://static'] });
      await sub.honoured;
      await client.close();
      assert.equal(await within(sub.ended, 'the subscription to end'), 'local');
      await sleep(50);
      assert.deepEqual(
        seen.errors.map((e) => e.message),
        [],
      );
    });
  });
}
