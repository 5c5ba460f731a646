// Version negotiation of `initialize` over the in-memory transport, from both sides.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Client,
  LATEST_STATEFUL_REVISION,
  McpkitError,
  McpServer,
  STATEFUL_REVISIONS,
} from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { deadline, fakeServer, initializeResult, rawClient, resultOf, settle } from './helpers.js';

function demoServer(): McpServer {
  const server = new McpServer({ name: 'init-server', version: '1.2.3' }, { instructions: 'be brief' });
  server.tool('noop', {}, () => 'ok');
  return server;
}

for (const version of STATEFUL_REVISIONS) {
  test(`client and server agree on ${version} when the client asks for it`, async () => {
    const server = demoServer();
    const { client, session } = await connectInMemory(server, { protocolVersion: version });
    try {
      assert.equal(client.protocolVersion, version);
      assert.equal(session.protocolVersion, version);
      assert.deepEqual(client.serverInfo, { name: 'init-server', version: '1.2.3' });
      assert.equal(client.instructions, 'be brief');
      assert.deepEqual(client.serverCapabilities?.tools, { listChanged: true });
      assert.deepEqual(session.clientInfo, { name: 'mcpkit-test-client', version: '0.0.0' });
      // The session works in that revision.
      await client.ping();
      assert.equal((await client.callTool('noop')).content[0]?.type, 'text');
    } finally {
      await client.close();
    }
  });

  test(`the server echoes ${version} to a raw client`, async () => {
    const { raw, init } = await rawClient(demoServer(), { version });
    assert.ok(init);
    const result = resultOf(init);
    assert.equal(result.protocolVersion, version);
    assert.deepEqual(result.serverInfo, { name: 'init-server', version: '1.2.3' });
    await raw.transport.close();
  });
}

test('an unknown requested version gets the latest revision the server speaks', async () => {
  for (const requested of ['1999-01-01', '2026-07-28', 'not-a-version']) {
    const { raw, init } = await rawClient(demoServer(), { version: requested });
    assert.ok(init);
    assert.equal(resultOf(init).protocolVersion, LATEST_STATEFUL_REVISION, requested);
    await raw.transport.close();
  }
});

test('a Client refuses to be pinned to a revision it does not speak', () => {
  assert.throws(
    () => new Client({ name: 'c', version: '1' }, { protocolVersion: '2099-12-31' }),
    (error: unknown) => error instanceof McpkitError && error.code === 'UNSUPPORTED_PROTOCOL_VERSION',
  );
});

test('initialize without a string protocolVersion is -32602', async () => {
  const { raw } = await rawClient(demoServer(), { version: false });
  const response = await raw.request('initialize', {
    capabilities: {},
    clientInfo: { name: 'x', version: '1' },
  });
  assert.ok('error' in response);
  assert.equal(response.error.code, -32602);
  await raw.transport.close();
});

test('the client refuses a server answering a version it does not speak, and disconnects', async () => {
  const { raw, clientTransport } = await fakeServer((request) =>
    request.method === 'initialize' ? initializeResult('2030-01-01') : { result: {} },
  );
  const client = new Client({ name: 'strict-client', version: '1' });
  await assert.rejects(
    () => client.connect(clientTransport),
    (error: unknown) => {
      assert.ok(error instanceof McpkitError);
      assert.equal(error.code, 'UNSUPPORTED_PROTOCOL_VERSION');
      assert.match(error.message, /2030-01-01/);
      return true;
    },
  );
  await deadline(
    (async () => {
      while (!raw.closed) await settle();
    })(),
    'the client to close the connection',
  );
  assert.equal(raw.received('notifications/initialized').length, 0, 'no initialized notification is sent');
  assert.equal(client.protocolVersion, undefined);
});

test('the client sends notifications/initialized after a successful handshake, with its capabilities', async () => {
  const { raw, clientTransport } = await fakeServer((request) =>
    request.method === 'initialize' ? initializeResult('2025-06-18') : { result: {} },
  );
  const client = new Client(
    { name: 'c', version: '1' },
    { sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }) },
  );
  await client.connect(clientTransport);
  await settle();
  const [init] = raw.received('initialize');
  assert.ok(init && 'params' in init);
  assert.equal(init.params?.protocolVersion, LATEST_STATEFUL_REVISION, 'the client asks for its latest');
  assert.deepEqual(init.params?.capabilities, { sampling: {} });
  assert.equal(raw.received('notifications/initialized').length, 1);
  assert.equal(client.protocolVersion, '2025-06-18', 'an older supported revision is accepted');
  await client.close();
});

test('a client whose initialize times out does not send notifications/cancelled for it', {}, async () => {
  // The fake server never answers initialize.
  const { raw, clientTransport } = await fakeServer(() => undefined);
  const client = new Client({ name: 'c', version: '1' }, { era: 'stateful' });
  await deadline(
    assert.rejects(() => client.connect(clientTransport, { timeout: 50 }), { code: 'REQUEST_TIMEOUT' }),
    'the initialize timeout',
  );
  await settle();
  assert.deepEqual(raw.received('notifications/cancelled'), [], 'initialize must never be cancelled');
});
