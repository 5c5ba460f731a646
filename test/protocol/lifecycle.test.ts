// Lifecycle over the in-memory transport: what a server allows before, during and after initialize.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpServer } from '../../src/index.js';
import { errorOf, eventually, rawClient, resultOf } from './helpers.js';

function lifecycleServer(): McpServer {
  const server = new McpServer({ name: 'lifecycle', version: '1' }, { onerror: () => {} });
  server.tool('noop', {}, () => 'ok');
  return server;
}

test('requests before initialize get -32600, ping is allowed', async () => {
  const { raw, session } = await rawClient(lifecycleServer(), { version: false });
  for (const method of ['tools/list', 'tools/call', 'resources/list', 'logging/setLevel', 'no/such/method']) {
    const error = errorOf(await raw.request(method, {}));
    assert.equal(error.code, -32600, method);
    assert.match(error.message, /initialize/i, method);
  }
  assert.deepEqual(resultOf(await raw.request('ping')), {});
  assert.equal(session.initialized, false);
  // The session is still usable: initialize now succeeds.
  const init = await raw.request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'late', version: '1' },
  });
  assert.equal(resultOf(init).protocolVersion, '2025-11-25');
  assert.ok(Array.isArray(resultOf(await raw.request('tools/list')).tools));
  await raw.transport.close();
});

test('a second initialize is refused with -32600 and the session keeps its negotiated state', async () => {
  const { raw, session } = await rawClient(lifecycleServer(), { version: '2025-06-18' });
  const again = await raw.request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: { sampling: {} },
    clientInfo: { name: 'again', version: '2' },
  });
  assert.equal(errorOf(again).code, -32600);
  assert.equal(session.protocolVersion, '2025-06-18');
  assert.deepEqual(session.clientCapabilities, {});
  assert.deepEqual(session.clientInfo, { name: 'raw-client', version: '0.0.0' });
  assert.deepEqual(resultOf(await raw.request('ping')), {});
  await raw.transport.close();
});

test('notifications/initialized is handled: the session becomes ready and nothing is answered', async () => {
  const { raw, session } = await rawClient(lifecycleServer(), { initialized: false });
  assert.equal(session.initialized, true);
  assert.equal(session.ready, false);
  const before = raw.messages.length;
  await raw.notify('notifications/initialized');
  await eventually(() => session.ready, 'the session to become ready');
  await raw.request('ping');
  // Only the ping's response arrived: the notification was not answered.
  assert.equal(raw.messages.length, before + 1);
  await raw.transport.close();
});

test('requests between the initialize result and notifications/initialized are served', async () => {
  const { raw, session } = await rawClient(lifecycleServer(), { initialized: false });
  assert.equal(session.ready, false);
  const listed = resultOf(await raw.request('tools/list'));
  assert.deepEqual(
    (listed.tools as { name: string }[]).map((t) => t.name),
    ['noop'],
  );
  await raw.transport.close();
});

test('closing the transport forgets the session on the server', async () => {
  const server = lifecycleServer();
  const { raw, session } = await rawClient(server);
  assert.ok(server.sessions.has(session));
  await raw.transport.close();
  await eventually(() => !server.sessions.has(session), 'the server to forget the closed session');
  assert.equal(session.peer.closed, true);
});
