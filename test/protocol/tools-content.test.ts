// tools/list and tools/call with every content type, over the in-memory transport (by reference and serialized).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { Client, type ContentBlock, createLinkedTransports, McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';

const EVERY_BLOCK: ContentBlock[] = [
  { type: 'text', text: 'plain text' },
  { type: 'text', text: 'for the user', annotations: { audience: ['user'], priority: 0.9 } },
  { type: 'image', data: PNG, mimeType: 'image/png', annotations: { audience: ['assistant'] } },
  { type: 'audio', data: WAV, mimeType: 'audio/wav', _meta: { 'com.example/clip': 1 } },
  {
    type: 'resource_link',
    uri: 'test://linked',
    name: 'linked',
    title: 'A linked resource',
    mimeType: 'text/plain',
    size: 12,
    annotations: { lastModified: '2025-01-01T00:00:00Z', priority: 0.2 },
  },
  {
    type: 'resource',
    resource: { uri: 'test://embedded/text', mimeType: 'text/plain', text: 'embedded text' },
    annotations: { audience: ['user', 'assistant'] },
  },
  {
    type: 'resource',
    resource: { uri: 'test://embedded/blob', mimeType: 'application/octet-stream', blob: '3q2+7w==' },
  },
];

function contentServer(): McpServer {
  const server = new McpServer({ name: 'content', version: '1' });
  server.tool(
    'every_block',
    {
      title: 'Every block',
      description: 'Returns one content block of each type.',
      annotations: { readOnlyHint: true, openWorldHint: false },
      icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
      _meta: { 'com.example/tool': 'yes' },
    },
    () => ({ content: EVERY_BLOCK }),
  );
  server.tool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => `echo: ${text}`);
  return server;
}

async function serializedPair(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = createLinkedTransports({ serialize: true });
  await server.connect(serverSide);
  const client = new Client({ name: 'serialized', version: '1' }, { era: 'stateful' });
  await client.connect(clientSide);
  return client;
}

test('tools/list describes tools with their metadata and schemas', async () => {
  const { client } = await connectInMemory(contentServer());
  const tools = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ['every_block', 'echo'],
  );
  const [every, echo] = tools;
  assert.deepEqual(every, {
    name: 'every_block',
    title: 'Every block',
    description: 'Returns one content block of each type.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false },
    icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
    _meta: { 'com.example/tool': 'yes' },
  });
  assert.equal(echo?.inputSchema.type, 'object');
  assert.deepEqual(echo?.inputSchema.required, ['text']);
  assert.equal(echo?.outputSchema, undefined);
  await client.close();
});

for (const mode of ['by reference', 'serialized'] as const) {
  test(`tools/call returns every content type intact (${mode})`, async () => {
    const server = contentServer();
    const client =
      mode === 'serialized' ? await serializedPair(server) : (await connectInMemory(server)).client;
    const result = await client.callTool('every_block');
    assert.deepEqual(result.content, EVERY_BLOCK);
    assert.equal(result.isError, undefined);
    assert.equal(result.structuredContent, undefined);
    const echoed = await client.callTool('echo', { text: 'hi' });
    assert.deepEqual(echoed, { content: [{ type: 'text', text: 'echo: hi' }] });
    await client.close();
  });
}

test('a tool returning a string gets one text block; a tool returning isError keeps it', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.tool('str', {}, () => 'just text');
  server.tool('fail', {}, () => ({ content: [{ type: 'text', text: 'it went wrong' }], isError: true }));
  server.tool('throws', {}, () => {
    throw new Error('the API is down');
  });
  const { client } = await connectInMemory(server);
  assert.deepEqual(await client.callTool('str'), { content: [{ type: 'text', text: 'just text' }] });
  assert.deepEqual(await client.callTool('fail'), {
    content: [{ type: 'text', text: 'it went wrong' }],
    isError: true,
  });
  // A thrown error is a tool execution error the model can see, not a protocol error.
  const thrown = await client.callTool('throws');
  assert.equal(thrown.isError, true);
  assert.deepEqual(thrown.content, [{ type: 'text', text: 'the API is down' }]);
  await client.close();
});
