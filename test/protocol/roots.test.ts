// roots/list from a server handler, and notifications/roots/list_changed reaching ServerOptions.onRootsListChanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonRpcError, McpkitError, McpServer, type Root, type ServerSession } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { eventually } from './helpers.js';

function rootsServer(changed: ServerSession[] = []): McpServer {
  const server = new McpServer(
    { name: 'roots', version: '1' },
    { onRootsListChanged: (s) => changed.push(s) },
  );
  server.tool('roots', {}, async (_args, ctx) => JSON.stringify(await ctx.listRoots()));
  return server;
}

async function rootsSeen(client: {
  callTool(name: string): Promise<{ content: unknown[] }>;
}): Promise<Root[]> {
  const result = await client.callTool('roots');
  const block = result.content[0] as { type: string; text: string };
  return JSON.parse(block.text) as Root[];
}

const ROOTS: Root[] = [
  { uri: 'file:///home/ada/project', name: 'project' },
  { uri: 'file:///tmp/scratch', _meta: { 'com.example/x': 1 } },
];

test('ctx.listRoots returns the roots the client offers', async () => {
  const { client } = await connectInMemory(rootsServer(), { roots: ROOTS });
  assert.deepEqual(client.capabilities.roots, { listChanged: true });
  assert.deepEqual(await rootsSeen(client), ROOTS);
  await client.close();
});

test('a roots handler answers roots/list', async () => {
  let calls = 0;
  const { client } = await connectInMemory(rootsServer(), {
    rootsHandler: () => {
      calls++;
      return [{ uri: `file:///call/${calls}` }];
    },
  });
  assert.deepEqual(await rootsSeen(client), [{ uri: 'file:///call/1' }]);
  assert.deepEqual(await rootsSeen(client), [{ uri: 'file:///call/2' }]);
  await client.close();
});

test('setRoots sends roots/list_changed to onRootsListChanged, and the server then sees the new roots', async () => {
  const changed: ServerSession[] = [];
  const { client, session } = await connectInMemory(rootsServer(changed), { roots: ROOTS });
  await client.setRoots([{ uri: 'file:///new' }]);
  await eventually(() => changed.length === 1, 'onRootsListChanged');
  assert.equal(changed[0], session);
  assert.deepEqual(await rootsSeen(client), [{ uri: 'file:///new' }]);
  await client.setRoots([]);
  await eventually(() => changed.length === 2, 'a second onRootsListChanged');
  assert.deepEqual(await rootsSeen(client), []);
  await client.close();
});

test('without listChanged the client does not notify', async () => {
  const changed: ServerSession[] = [];
  const { client } = await connectInMemory(rootsServer(changed), {
    capabilities: { roots: {} },
    roots: ROOTS,
  });
  await client.setRoots([{ uri: 'file:///quiet' }]);
  await client.ping();
  assert.equal(changed.length, 0);
  assert.deepEqual(await rootsSeen(client), [{ uri: 'file:///quiet' }]);
  await client.close();
});

test('ctx.listRoots when the client has no roots capability throws CAPABILITY_MISSING', async () => {
  const server = new McpServer({ name: 'roots', version: '1' });
  const errors: unknown[] = [];
  server.tool('roots', {}, async (_args, ctx) => {
    try {
      await ctx.listRoots();
    } catch (error) {
      errors.push(error);
    }
    return 'done';
  });
  const { client, session } = await connectInMemory(server);
  await client.callTool('roots');
  assert.ok(errors[0] instanceof McpkitError);
  assert.equal((errors[0] as McpkitError).code, 'CAPABILITY_MISSING');
  await assert.rejects(() => client.setRoots([]), { code: 'CAPABILITY_MISSING' });
  // Sent anyway, the client answers -32601 as the spec suggests.
  session.clientCapabilities = { roots: {} };
  await session.request('roots/list', undefined).then(
    () => assert.fail('expected roots/list to be refused'),
    (error: unknown) => {
      assert.ok(error instanceof JsonRpcError);
      assert.equal(error.code, -32601);
    },
  );
  await client.close();
});
