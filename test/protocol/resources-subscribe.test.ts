// resources/subscribe and unsubscribe: notifications/resources/updated reaches only subscribed sessions and URIs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonRpcError, McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { rawClient } from './helpers.js';

function subServer(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const server = new McpServer({ name: 'sub', version: '1' }, options);
  server.resource('test://a', { name: 'a' }, () => 'a');
  server.resource('test://b', { name: 'b' }, () => 'b');
  return server;
}

test('updates reach the client only for subscribed URIs, and stop after unsubscribe', async () => {
  const server = subServer();
  const updates: string[] = [];
  const { client } = await connectInMemory(server, { onResourceUpdated: (uri) => updates.push(uri) });
  assert.equal(client.serverCapabilities?.resources?.subscribe, true);

  server.notifyResourceUpdated('test://a');
  await client.ping(); // a round trip: anything sent before it has arrived
  assert.deepEqual(updates, [], 'nothing before subscribing');

  await client.subscribeResource('test://a');
  server.notifyResourceUpdated('test://a');
  server.notifyResourceUpdated('test://b');
  await client.ping();
  assert.deepEqual(updates, ['test://a']);

  await client.subscribeResource('test://b');
  await client.unsubscribeResource('test://a');
  server.notifyResourceUpdated('test://a');
  server.notifyResourceUpdated('test://b');
  await client.ping();
  assert.deepEqual(updates, ['test://a', 'test://b']);

  await client.unsubscribeResource('test://b');
  server.notifyResourceUpdated('test://b');
  await client.ping();
  assert.deepEqual(updates, ['test://a', 'test://b']);
  await client.close();
});

test('only the sessions that subscribed are told, each once', async () => {
  const server = subServer();
  const seenA: string[] = [];
  const seenB: string[] = [];
  const a = await connectInMemory(server, { onResourceUpdated: (uri) => seenA.push(uri) });
  const b = await connectInMemory(server, { onResourceUpdated: (uri) => seenB.push(uri) });
  await a.client.subscribeResource('test://a');
  await a.client.subscribeResource('test://a'); // subscribing twice still means one notification
  server.notifyResourceUpdated('test://a');
  await a.client.ping();
  await b.client.ping();
  assert.deepEqual(seenA, ['test://a']);
  assert.deepEqual(seenB, []);
  await a.client.close();
  await b.client.close();
});

test('the wire notification is exactly { uri }', async () => {
  const server = subServer();
  const { raw } = await rawClient(server);
  await raw.request('resources/subscribe', { uri: 'test://a' });
  server.notifyResourceUpdated('test://a');
  await raw.request('ping');
  const updates = raw.received('notifications/resources/updated');
  assert.deepEqual(updates, [
    { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://a' } },
  ]);
  await raw.transport.close();
});

test('subscribe without a string uri is -32602; without the subscribe capability it is refused', async () => {
  const { client } = await connectInMemory(subServer());
  await assert.rejects(
    () => client.request('resources/subscribe', {}),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
  );
  await client.close();

  const noSub = subServer({ capabilities: { resources: { listChanged: true } } });
  const other = await connectInMemory(noSub);
  await assert.rejects(() => other.client.subscribeResource('test://a'), { code: 'CAPABILITY_MISSING' });
  // Sent anyway, the server answers method-not-found.
  await assert.rejects(
    () => other.client.request('resources/subscribe', { uri: 'test://a' }),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32601,
  );
  await other.client.close();
});
