// Registration handles: enable, disable, update and remove send exactly one list_changed per kind per tick,
// and the client refreshes its lists automatically.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpServer, type Prompt, type Resource, type Tool } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { deadline, gate, type RawPeer, rawClient, settle } from './helpers.js';

const KINDS = ['tools', 'resources', 'prompts'] as const;

async function counts(raw: RawPeer): Promise<Record<(typeof KINDS)[number], number>> {
  await settle();
  await raw.request('ping'); // everything the server sent before the ping response has arrived
  return {
    tools: raw.received('notifications/tools/list_changed').length,
    resources: raw.received('notifications/resources/list_changed').length,
    prompts: raw.received('notifications/prompts/list_changed').length,
  };
}

function fullServer(): McpServer {
  const server = new McpServer({ name: 'handles', version: '1' });
  server.tool('base', {}, () => 'x');
  server.resource('test://base', { name: 'base' }, () => 'x');
  server.prompt('base', {}, () => 'x');
  return server;
}

test('each operation in its own tick sends one notification (tools)', async () => {
  const server = fullServer();
  const { raw } = await rawClient(server);
  const handle = server.tool('t', {}, () => 'x');
  assert.deepEqual(await counts(raw), { tools: 1, resources: 0, prompts: 0 });
  handle.disable();
  assert.equal((await counts(raw)).tools, 2);
  handle.enable();
  assert.equal((await counts(raw)).tools, 3);
  handle.update({ description: 'new' });
  assert.equal((await counts(raw)).tools, 4);
  handle.remove();
  assert.deepEqual(await counts(raw), { tools: 5, resources: 0, prompts: 0 });
  await raw.transport.close();
});

test('many operations in one tick send exactly one notification per kind', async () => {
  const server = fullServer();
  const { raw } = await rawClient(server);
  const tool = server.tool('t', {}, () => 'x');
  tool.disable();
  tool.enable();
  tool.update({ title: 'T' });
  server.tool('t2', {}, () => 'y').remove();
  const resource = server.resource('test://r', { name: 'r' }, () => 'x');
  resource.disable();
  resource.update({ description: 'd' });
  resource.enable();
  const template = server.resourceTemplate('test://t/{id}', { name: 't' }, () => 'x');
  template.update({ title: 'T' });
  template.disable();
  template.remove();
  const prompt = server.prompt('p', {}, () => 'x');
  prompt.update({ description: 'd' });
  prompt.disable();
  prompt.enable();
  prompt.remove();
  assert.deepEqual(await counts(raw), { tools: 1, resources: 1, prompts: 1 });
  await raw.transport.close();
});

for (const kind of ['resource', 'template', 'prompt'] as const) {
  test(`each ${kind} handle operation in its own tick sends one notification`, async () => {
    const server = fullServer();
    const { raw } = await rawClient(server);
    const key = kind === 'prompt' ? 'prompts' : 'resources';
    const handle =
      kind === 'resource'
        ? server.resource('test://r', { name: 'r' }, () => 'x')
        : kind === 'template'
          ? server.resourceTemplate('test://t/{id}', { name: 't' }, () => 'x')
          : server.prompt('p', {}, () => 'x');
    assert.equal((await counts(raw))[key], 1);
    handle.disable();
    assert.equal((await counts(raw))[key], 2);
    handle.enable();
    assert.equal((await counts(raw))[key], 3);
    handle.update({ description: 'changed' });
    assert.equal((await counts(raw))[key], 4);
    handle.remove();
    const after = await counts(raw);
    assert.equal(after[key], 5);
    assert.equal(after.tools, 0);
    await raw.transport.close();
  });
}

test('a no-op (disabling twice) sends nothing more; a removed handle refuses further use', async () => {
  const server = fullServer();
  const handle = server.tool('t', {}, () => 'x');
  const { raw } = await rawClient(server);
  handle.disable();
  assert.equal((await counts(raw)).tools, 1);
  handle.disable();
  assert.equal((await counts(raw)).tools, 1);
  assert.equal(handle.enabled, false);
  handle.remove();
  assert.equal((await counts(raw)).tools, 2);
  assert.throws(() => handle.enable(), { code: 'INVALID_DEFINITION' });
  assert.throws(() => handle.update({ title: 'x' }), { code: 'INVALID_DEFINITION' });
  await raw.transport.close();
});

test('explicit capabilities without listChanged send no list_changed', async () => {
  const server = new McpServer(
    { name: 'quiet', version: '1' },
    { capabilities: { tools: {}, resources: {}, prompts: { listChanged: false } } },
  );
  const { raw } = await rawClient(server);
  server.tool('t', {}, () => 'x').disable();
  server.resource('test://r', { name: 'r' }, () => 'x');
  server.prompt('p', {}, () => 'x');
  assert.deepEqual(await counts(raw), { tools: 0, resources: 0, prompts: 0 });
  await raw.transport.close();
});

test('every connected session is told', async () => {
  const server = fullServer();
  const a = await rawClient(server);
  const b = await rawClient(server);
  server.tool('t', {}, () => 'x');
  assert.equal((await counts(a.raw)).tools, 1);
  assert.equal((await counts(b.raw)).tools, 1);
  await a.raw.transport.close();
  await b.raw.transport.close();
});

test('a kind the session did not negotiate gets no list_changed', {}, async () => {
  const server = new McpServer({ name: 'late', version: '1' });
  server.prompt('p', {}, () => 'x');
  const { raw, init } = await rawClient(server);
  assert.ok(init && 'result' in init);
  assert.equal((init.result.capabilities as Record<string, unknown>).tools, undefined);
  server.tool('late_tool', {}, () => 'x'); // registered after the session negotiated "no tools"
  assert.equal((await counts(raw)).tools, 0);
  await raw.transport.close();
});

test('the client auto-refreshes: onToolsChanged receives the fresh list', async () => {
  const server = fullServer();
  const lists: (Tool[] | undefined)[] = [];
  let wake = gate();
  const { client } = await connectInMemory(server, {
    onToolsChanged: (tools) => {
      lists.push(tools);
      wake.open();
    },
  });
  const handle = server.tool('added', { description: 'v1' }, () => 'x');
  await deadline(wake.promise, 'onToolsChanged after adding a tool');
  assert.deepEqual(
    lists[0]?.map((t) => t.name),
    ['base', 'added'],
  );
  wake = gate();
  handle.update({ description: 'v2' });
  await deadline(wake.promise, 'onToolsChanged after an update');
  assert.equal(lists[1]?.find((t) => t.name === 'added')?.description, 'v2');
  wake = gate();
  handle.disable();
  await deadline(wake.promise, 'onToolsChanged after disabling');
  assert.deepEqual(
    lists[2]?.map((t) => t.name),
    ['base'],
  );
  await client.close();
});

test('the client auto-refreshes resources and prompts too', async () => {
  const server = fullServer();
  const resourceLists: (Resource[] | undefined)[] = [];
  const promptLists: (Prompt[] | undefined)[] = [];
  const resourcesSeen = gate();
  const promptsSeen = gate();
  const { client } = await connectInMemory(server, {
    onResourcesChanged: (r) => {
      resourceLists.push(r);
      resourcesSeen.open();
    },
    onPromptsChanged: (p) => {
      promptLists.push(p);
      promptsSeen.open();
    },
  });
  server.resource('test://new', { name: 'new' }, () => 'x');
  server.prompt('new', {}, () => 'x');
  await deadline(Promise.all([resourcesSeen.promise, promptsSeen.promise]), 'both refreshes');
  assert.deepEqual(
    resourceLists[0]?.map((r) => r.uri),
    ['test://base', 'test://new'],
  );
  assert.deepEqual(
    promptLists[0]?.map((p) => p.name),
    ['base', 'new'],
  );
  await client.close();
});

test('with autoRefresh off the callback gets undefined and no list request is made', async () => {
  const server = fullServer();
  const lists: (Tool[] | undefined)[] = [];
  const seen = gate();
  const { client, session } = await connectInMemory(server, {
    autoRefresh: false,
    onToolsChanged: (tools) => {
      lists.push(tools);
      seen.open();
    },
  });
  let listed = 0;
  server.use(async (request, next) => {
    if (request.method === 'tools/list') listed++;
    return next();
  });
  server.tool('x', {}, () => 'x');
  await deadline(seen.promise, 'onToolsChanged');
  await client.ping();
  assert.deepEqual(lists, [undefined]);
  assert.equal(listed, 0);
  assert.ok(session.initialized);
  await client.close();
});

test('a removed tool can no longer be called; a disabled one neither', async () => {
  const server = fullServer();
  const handle = server.tool('gone', {}, () => 'x');
  const { client } = await connectInMemory(server, { autoRefresh: false });
  assert.equal((await client.callTool('gone')).content.length, 1);
  handle.disable();
  await assert.rejects(() => client.callTool('gone'), { code: -32602 });
  handle.enable();
  handle.update({ handler: () => 'updated' });
  assert.deepEqual((await client.callTool('gone')).content, [{ type: 'text', text: 'updated' }]);
  handle.remove();
  await assert.rejects(() => client.callTool('gone'), { code: -32602 });
  await client.close();
});

test("update() can change a tool's schemas (listed and enforced) and a template's list callback", async () => {
  const server = fullServer();
  const tool = server.tool(
    'typed',
    { inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
    () => 'ok',
  );
  const template = server.resourceTemplate('test://items/{id}', { name: 'items' }, (uri) => `item ${uri}`);
  const { client } = await connectInMemory(server, { autoRefresh: false });
  assert.equal((await client.callTool('typed', { n: 1 })).isError, undefined);

  tool.update({ inputSchema: { type: 'object', properties: { s: { type: 'string' } }, required: ['s'] } });
  const listed = (await client.listTools()).find((t) => t.name === 'typed');
  assert.deepEqual(listed?.inputSchema.required, ['s']);
  assert.equal((await client.callTool('typed', { n: 1 })).isError, true, 'the new schema is enforced');
  assert.equal((await client.callTool('typed', { s: 'x' })).isError, undefined);
  assert.throws(() => tool.update({ inputSchema: { type: 'string' } }), { code: 'INVALID_DEFINITION' });

  assert.deepEqual(
    (await client.listResources()).map((r) => r.uri),
    ['test://base'],
  );
  template.update({ list: () => [{ uri: 'test://items/1', name: 'one' }] });
  assert.deepEqual(
    (await client.listResources()).map((r) => r.uri),
    ['test://base', 'test://items/1'],
  );
  await client.close();
});
