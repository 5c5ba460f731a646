// No listener leak: 10,000 sequential calls sharing one long-lived AbortSignal leave no listeners behind.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { rawClient, settle } from './helpers.js';

const CALLS = 10_000;

test('client → server: 10,000 calls with one signal leave no abort listeners and nothing in flight', async () => {
  const server = new McpServer({ name: 'leak', version: '1' });
  server.tool('echo', {}, () => 'x');
  const { client, session } = await connectInMemory(server);
  const controller = new AbortController();
  const { signal } = controller;
  for (let i = 0; i < CALLS; i++) {
    if (i % 2 === 0) await client.ping({ signal });
    else await client.callTool('echo', {}, { signal, timeout: 30_000 });
  }
  assert.equal(getEventListeners(signal, 'abort').length, 0);
  await settle();
  assert.equal(session.peer.inFlight, 0, 'the server handles nothing any more');
  await client.close();
});

test('server → client: 10,000 pings with one signal leave no abort listeners', async () => {
  const { client, session } = await connectInMemory(new McpServer({ name: 'leak', version: '1' }));
  const controller = new AbortController();
  for (let i = 0; i < CALLS; i++) await session.request('ping', undefined, { signal: controller.signal });
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  await client.close();
});

test('after the calls, aborting the shared signal cancels nothing (no request is still pending)', async () => {
  const server = new McpServer({ name: 'leak', version: '1' });
  const { raw, session } = await rawClient(server);
  // The raw peer answers every server → client ping.
  raw.answer = () => ({ result: {} });
  const controller = new AbortController();
  for (let i = 0; i < CALLS; i++) await session.request('ping', undefined, { signal: controller.signal });
  controller.abort();
  await settle();
  await raw.request('ping');
  assert.equal(raw.received('notifications/cancelled').length, 0);
  assert.equal(raw.received('ping').length, CALLS);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  await raw.transport.close();
});

test('failed calls (errors and timeouts) also release their listeners', async () => {
  const server = new McpServer({ name: 'leak', version: '1' });
  server.tool(
    'hang',
    {},
    (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('x'))),
  );
  const { client } = await connectInMemory(server);
  const controller = new AbortController();
  const { signal } = controller;
  for (let i = 0; i < 200; i++) {
    await assert.rejects(() => client.callTool('missing', {}, { signal }), { code: -32602 });
  }
  for (let i = 0; i < 5; i++) {
    const keepAlive = setTimeout(() => {}, 1000);
    await assert.rejects(() => client.callTool('hang', {}, { signal, timeout: 10 }), {
      code: 'REQUEST_TIMEOUT',
    });
    clearTimeout(keepAlive);
  }
  assert.equal(getEventListeners(signal, 'abort').length, 0);
  await client.close();
});
