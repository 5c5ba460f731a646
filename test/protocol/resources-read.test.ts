// resources/read of fixed resources (text and binary) and templates (with variables), and resource-not-found.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonRpcError, McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';

function readServer(seen: Record<string, string | string[]>[] = []): McpServer {
  const server = new McpServer({ name: 'read', version: '1' });
  server.resource('test://text', { name: 'text', mimeType: 'text/markdown' }, () => '# hello');
  server.resource(
    'test://blob',
    { name: 'blob', mimeType: 'application/octet-stream' },
    () => new Uint8Array([0xde, 0xad, 0xbe, 0xef]),
  );
  server.resource('test://many', { name: 'many' }, (uri) => [
    { uri, text: 'part one', mimeType: 'text/plain' },
    { uri: `${uri}#2`, blob: 'AAEC', mimeType: 'application/x-bin' },
  ]);
  server.resourceTemplate(
    'test://users/{user}/files/{file}',
    { name: 'user file', mimeType: 'text/plain' },
    (uri, variables) => {
      seen.push(variables);
      return `${String(variables.user)}:${String(variables.file)} (${uri})`;
    },
  );
  server.resourceTemplate('test://search{?q,limit}', { name: 'search' }, (_uri, variables) => {
    seen.push(variables);
    return JSON.stringify(variables);
  });
  return server;
}

test('reads a text resource with its mimeType', async () => {
  const { client } = await connectInMemory(readServer());
  assert.deepEqual(await client.readResource('test://text'), {
    contents: [{ uri: 'test://text', text: '# hello', mimeType: 'text/markdown' }],
  });
  await client.close();
});

test('reads a binary resource as base64', async () => {
  const { client } = await connectInMemory(readServer());
  const result = await client.readResource('test://blob');
  assert.deepEqual(result, {
    contents: [{ uri: 'test://blob', blob: '3q2+7w==', mimeType: 'application/octet-stream' }],
  });
  const first = result.contents[0];
  assert.ok(first && 'blob' in first);
  assert.deepEqual([...Buffer.from(first.blob, 'base64')], [0xde, 0xad, 0xbe, 0xef]);
  await client.close();
});

test('a handler may return several contents of both kinds', async () => {
  const { client } = await connectInMemory(readServer());
  const result = await client.readResource('test://many');
  assert.equal(result.contents.length, 2);
  assert.deepEqual(result.contents[1], { uri: 'test://many#2', blob: 'AAEC', mimeType: 'application/x-bin' });
  await client.close();
});

test('reads through a template, passing the matched variables', async () => {
  const seen: Record<string, string | string[]>[] = [];
  const { client } = await connectInMemory(readServer(seen));
  const result = await client.readResource('test://users/ada/files/notes.txt');
  assert.deepEqual(result.contents, [
    {
      uri: 'test://users/ada/files/notes.txt',
      text: 'ada:notes.txt (test://users/ada/files/notes.txt)',
      mimeType: 'text/plain',
    },
  ]);
  assert.deepEqual(seen[0], { user: 'ada', file: 'notes.txt' });
  await client.readResource('test://search?q=mcp&limit=5');
  assert.deepEqual(seen[1], { q: 'mcp', limit: '5' });
  await client.close();
});

test('an unknown URI is -32002 with data.uri', async () => {
  const { client } = await connectInMemory(readServer());
  for (const uri of ['test://nope', 'test://users/ada', 'other://text']) {
    await assert.rejects(
      () => client.readResource(uri),
      (error: unknown) => {
        assert.ok(error instanceof JsonRpcError, String(error));
        assert.equal(error.code, -32002);
        assert.deepEqual(error.data, { uri });
        return true;
      },
    );
  }
  await client.close();
});

test('resources/read without a string uri is -32602', async () => {
  const { client } = await connectInMemory(readServer());
  await assert.rejects(
    () => client.request('resources/read', { uri: 7 }),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
  );
  await assert.rejects(
    () => client.request('resources/read', {}),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
  );
  await client.close();
});

test('a disabled resource reads as not found; enabled again it reads', async () => {
  const server = readServer();
  const handle = server.resource('test://toggle', { name: 'toggle' }, () => 'on');
  const { client } = await connectInMemory(server);
  handle.disable();
  await assert.rejects(() => client.readResource('test://toggle'), { code: -32002 });
  handle.enable();
  assert.equal((await client.readResource('test://toggle')).contents[0]?.uri, 'test://toggle');
  await client.close();
});
