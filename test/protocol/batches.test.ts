// JSON-RPC batches: answered with an array on a 2025-03-26 session, refused with -32600 elsewhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, type JsonRpcResponse, McpServer } from '../../src/index.js';
import { errorOf, fakeServer, initializeResult, rawClient, resultOf, settle } from './helpers.js';

function batchServer(): McpServer {
  const server = new McpServer({ name: 'batch', version: '1' }, { onerror: () => {} });
  server.tool('echo', {}, () => 'echoed');
  return server;
}

const BATCH = JSON.stringify([
  { jsonrpc: '2.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo' } },
  { jsonrpc: '2.0', method: 'notifications/whatever' },
  { jsonrpc: '2.0', id: 3, method: 'no/such/method' },
]);

test('a batch on a 2025-03-26 session is answered with an array of responses', async () => {
  const { raw } = await rawClient(batchServer(), { version: '2025-03-26' });
  const from = raw.batches.length;
  await raw.sendRaw(BATCH);
  const answers = (await raw.waitForBatch('the batch answer', from)) as { id: number }[];
  assert.equal(answers.length, 3, 'one response per request, none for the notification');
  const byId = new Map(answers.map((a) => [a.id, a]));
  assert.deepEqual(byId.get(1), { jsonrpc: '2.0', id: 1, result: {} });
  assert.deepEqual((byId.get(2) as unknown as { result: unknown }).result, {
    content: [{ type: 'text', text: 'echoed' }],
  });
  assert.equal((byId.get(3) as unknown as { error: { code: number } }).error.code, -32601);
  assert.deepEqual(resultOf(await raw.request('ping')), {});
  await raw.transport.close();
});

test('invalid entries in a 2025-03-26 batch get their own errors', async () => {
  const { raw } = await rawClient(batchServer(), { version: '2025-03-26' });
  await raw.sendRaw(
    JSON.stringify([{ jsonrpc: '1.0', id: 5, method: 'ping' }, 7, { jsonrpc: '2.0', id: 6, method: 'ping' }]),
  );
  const answers = (await raw.waitForBatch('the batch answer')) as { id: unknown; error?: { code: number } }[];
  assert.equal(answers.length, 3);
  assert.equal(answers.find((a) => a.id === 5)?.error?.code, -32600);
  assert.ok(answers.some((a) => a.id === null && a.error?.code === -32600));
  assert.ok(answers.some((a) => a.id === 6 && a.error === undefined));
  await raw.transport.close();
});

test('an empty batch is -32600', async () => {
  const { raw } = await rawClient(batchServer(), { version: '2025-03-26' });
  const from = raw.messages.length;
  await raw.sendRaw('[]');
  const answer = (await raw.waitFor(() => true, 'the answer', from)) as JsonRpcResponse;
  assert.equal(answer.id, null);
  assert.equal(errorOf(answer).code, -32600);
  await raw.transport.close();
});

for (const version of ['2024-11-05', '2025-06-18', '2025-11-25']) {
  test(`a batch on a ${version} session is refused with a single -32600`, async () => {
    const { raw } = await rawClient(batchServer(), { version });
    const from = raw.messages.length;
    await raw.sendRaw(BATCH);
    const answer = (await raw.waitFor(() => true, 'the refusal', from)) as JsonRpcResponse;
    assert.equal(answer.id, null);
    const error = errorOf(answer);
    assert.equal(error.code, -32600);
    assert.match(error.message, /batch/i);
    await settle();
    assert.equal(raw.batches.length, 0, 'no batch answer');
    assert.equal(raw.responses(1).length + raw.responses(2).length, 0, 'nothing inside the batch ran');
    assert.deepEqual(resultOf(await raw.request('ping')), {});
    await raw.transport.close();
  });
}

test('initialize in a batch is refused', async () => {
  const { raw, session } = await rawClient(batchServer(), { version: false });
  const from = raw.messages.length;
  await raw.sendRaw(
    JSON.stringify([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
    ]),
  );
  const answer = (await raw.waitFor(() => true, 'the refusal', from)) as JsonRpcResponse;
  assert.equal(errorOf(answer).code, -32600);
  assert.equal(session.initialized, false);
  assert.deepEqual(resultOf(await raw.request('ping')), {});
  await raw.transport.close();
});

test('the client answers a batch from a 2025-03-26 server with an array, and refuses one on later revisions', async () => {
  for (const version of ['2025-03-26', '2025-11-25']) {
    const { raw, clientTransport } = await fakeServer(() => initializeResult(version));
    const client = new Client({ name: 'c', version: '1' }, { era: 'stateful', roots: [] });
    await client.connect(clientTransport);
    await raw.sendRaw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'ping' },
        { jsonrpc: '2.0', id: 'b', method: 'roots/list' },
      ]),
    );
    await settle();
    if (version === '2025-03-26') {
      assert.equal(raw.batches.length, 1, 'one array of responses');
      const answers = raw.batches[0] as JsonRpcResponse[];
      assert.deepEqual(
        answers.map((r) => r.id),
        ['a', 'b'],
      );
      assert.deepEqual(resultOf(answers[1] as JsonRpcResponse), { roots: [] });
    } else {
      assert.equal(raw.batches.length, 0);
      const refusal = raw.messages.find((m) => 'error' in m) as JsonRpcResponse | undefined;
      assert.equal(refusal, undefined, 'a client only reports a malformed payload; it does not answer it');
    }
    await client.close();
  }
});
