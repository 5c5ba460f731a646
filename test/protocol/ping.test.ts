// ping in both directions over the in-memory transport.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { rawClient, resultOf } from './helpers.js';

test('client → server ping resolves', async () => {
  const { client } = await connectInMemory(new McpServer({ name: 's', version: '1' }));
  await client.ping();
  assert.deepEqual(await client.request('ping'), {});
  await client.close();
});

test('server → client ping resolves with {}', async () => {
  const { client, session } = await connectInMemory(new McpServer({ name: 's', version: '1' }));
  assert.deepEqual(await session.request('ping', undefined), {});
  await client.close();
});

test('ping with only _meta in params is answered with {}', async () => {
  const { raw } = await rawClient(new McpServer({ name: 's', version: '1' }));
  assert.deepEqual(resultOf(await raw.request('ping', { _meta: { 'com.example/trace': 'x' } })), {});
  await raw.transport.close();
});

test('a server handler can ping the client while handling a request', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.tool('ping_back', {}, async (_args, ctx) => {
    const session = [...server.sessions].find((s) => s === ctx.session);
    assert.ok(session);
    await session.request('ping', undefined);
    return 'pong';
  });
  const { client } = await connectInMemory(server);
  assert.deepEqual((await client.callTool('ping_back')).content, [{ type: 'text', text: 'pong' }]);
  await client.close();
});
