// Every method over a real process: our Client + StdioClientTransport driving the fixture server
// (McpServer + StdioServerTransport). One server process for the file, killed by pid afterwards.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, before, test } from 'node:test';
import type {
  Client,
  CreateMessageParams,
  ElicitParams,
  LoggingMessageParams,
  ProgressParams,
  Tool,
} from '../../src/index.js';
import { JsonRpcError, McpkitError } from '../../src/index.js';
import type { StdioClientTransport } from '../../src/stdio.js';
import { deadline, eventually, gate } from './helpers.js';
import { connectStdio, killStarted } from './stdio-helpers.js';

const posixOnly = process.platform === 'win32' ? 'stdio process tests run on POSIX' : false;

let client: Client;
let transport: StdioClientTransport;
const sampled: CreateMessageParams[] = [];
const elicited: ElicitParams[] = [];
const logs: LoggingMessageParams[] = [];
const updates: string[] = [];
const toolLists: (Tool[] | undefined)[] = [];
let toolsChanged = gate();

before(async () => {
  ({ client, transport } = await connectStdio({
    sampling: (params) => {
      sampled.push(params);
      const first = params.messages[0]?.content;
      const text = first && !Array.isArray(first) && first.type === 'text' ? first.text : '?';
      return { role: 'assistant', content: { type: 'text', text: text.toUpperCase() }, model: 'm' };
    },
    elicitation: (params) => {
      elicited.push(params);
      return { action: 'accept', content: { age: 42 } };
    },
    roots: [{ uri: 'file:///work', name: 'work' }],
    onlog: (params) => logs.push(params),
    onResourceUpdated: (uri) => updates.push(uri),
    onToolsChanged: (tools) => {
      toolLists.push(tools);
      toolsChanged.open();
    },
  }));
});

after(async () => {
  try {
    await client?.close();
  } finally {
    killStarted();
  }
});

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

test('initialize negotiated the latest revision with the fixture', { skip: posixOnly }, () => {
  assert.equal(client.protocolVersion, '2025-11-25');
  assert.deepEqual(client.serverInfo, { name: 'protocol-fixture', version: '1.0.0' });
  assert.equal(client.instructions, 'fixture instructions');
  assert.ok(transport.pid);
});

test('ping both ways', { skip: posixOnly }, async () => {
  await client.ping();
  assert.equal(text(await client.callTool('ping_client')), '{}');
});

test('tools/list walks pages (pageSize 2) and tools/call works with every content type', {
  skip: posixOnly,
}, async () => {
  const tools = await client.listTools();
  assert.ok(tools.length > 2);
  assert.ok(tools.some((t) => t.name === 'echo'));
  assert.equal(text(await client.callTool('echo', { text: 'over stdio' })), 'echo: over stdio');
  const content = await client.callTool('content');
  assert.deepEqual(
    content.content.map((c) => c.type),
    ['text', 'image', 'audio', 'resource_link', 'resource'],
  );
  assert.deepEqual(content.content[0], {
    type: 'text',
    text: 'hello',
    annotations: { audience: ['user'], priority: 1 },
  });
});

test('structured output and input validation over stdio', { skip: posixOnly }, async () => {
  const result = await client.callTool('add', { a: 20, b: 22 });
  assert.deepEqual(result.structuredContent, { sum: 42 });
  assert.deepEqual(result.content, [{ type: 'text', text: '{"sum":42}' }]);
  const invalid = await client.callTool('add', { a: 'x', b: 1 });
  assert.equal(invalid.isError, true);
  await assert.rejects(
    () => client.callTool('nope'),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
  );
});

test('resources: list (paged), read text and binary, templates, not found, internal error', {
  skip: posixOnly,
}, async () => {
  const resources = await client.listResources();
  assert.deepEqual(
    resources.map((r) => r.uri),
    ['test://text', 'test://blob', 'test://third', 'test://broken'],
  );
  assert.deepEqual((await client.readResource('test://text')).contents, [
    { uri: 'test://text', text: 'plain text', mimeType: 'text/plain' },
  ]);
  assert.deepEqual((await client.readResource('test://blob')).contents, [
    { uri: 'test://blob', blob: '3q2+7w==', mimeType: 'application/octet-stream' },
  ]);
  assert.deepEqual(
    (await client.listResourceTemplates()).map((t) => t.uriTemplate),
    ['test://items/{id}'],
  );
  assert.deepEqual((await client.readResource('test://items/beta')).contents, [
    { uri: 'test://items/beta', text: 'item beta', mimeType: 'text/plain' },
  ]);
  await assert.rejects(
    () => client.readResource('test://missing'),
    (e: unknown) =>
      e instanceof JsonRpcError && e.code === -32002 && (e.data as { uri: string }).uri === 'test://missing',
  );
  await assert.rejects(
    () => client.readResource('test://broken'),
    (e: unknown) =>
      e instanceof JsonRpcError &&
      e.code === -32603 &&
      e.message === 'Internal error' &&
      e.data === undefined,
  );
});

test('subscribe / unsubscribe and resources/updated', { skip: posixOnly }, async () => {
  await client.subscribeResource('test://text');
  await client.callTool('touch', { uri: 'test://text' });
  await client.callTool('touch', { uri: 'test://blob' });
  await eventually(() => updates.length >= 1, 'the update notification');
  await client.ping();
  assert.deepEqual(updates, ['test://text']);
  await client.unsubscribeResource('test://text');
  await client.callTool('touch', { uri: 'test://text' });
  await client.ping();
  assert.deepEqual(updates, ['test://text']);
});

test('prompts and completion', { skip: posixOnly }, async () => {
  assert.deepEqual(
    (await client.listPrompts()).map((p) => p.name),
    ['greet'],
  );
  assert.deepEqual(await client.getPrompt('greet', { name: 'Ada' }), {
    messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }],
  });
  await assert.rejects(
    () => client.getPrompt('greet'),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
  );
  assert.deepEqual(
    (await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'A' })).values,
    ['Ada', 'Alan'],
  );
  assert.deepEqual(
    (await client.complete({ type: 'ref/resource', uri: 'test://items/{id}' }, { name: 'id', value: 'g' }))
      .values,
    ['gamma'],
  );
});

test('logging threshold over stdio', { skip: posixOnly }, async () => {
  await client.setLoggingLevel('warning');
  await client.callTool('log', { level: 'info', data: 'quiet' });
  await client.callTool('log', { level: 'error', data: 'loud' });
  await client.ping();
  assert.deepEqual(logs, [{ level: 'error', data: 'loud', logger: 'fixture' }]);
  await assert.rejects(
    () => client.request('logging/setLevel', { level: 'loudest' }),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
  );
});

test('progress over stdio', { skip: posixOnly }, async () => {
  const events: ProgressParams[] = [];
  const result = await client.callTool('progress', { steps: 3 }, { onprogress: (p) => events.push(p) });
  assert.equal(text(result), 'progress: 3');
  assert.deepEqual(
    events.map((e) => [e.progress, e.total, e.message]),
    [
      [1, 3, 'step 1'],
      [2, 3, 'step 2'],
      [3, 3, 'step 3'],
    ],
  );
});

test('sampling, elicitation (with defaults) and roots over stdio', { skip: posixOnly }, async () => {
  assert.equal(text(await client.callTool('sample', { prompt: 'hello' })), 'sampled: HELLO');
  assert.equal(sampled.at(-1)?.maxTokens, 50);
  assert.deepEqual(JSON.parse(text(await client.callTool('elicit'))), {
    action: 'accept',
    content: { age: 42, name: 'anon' },
  });
  assert.equal(elicited.at(-1)?.mode, 'form');
  assert.deepEqual(JSON.parse(text(await client.callTool('roots'))), [{ uri: 'file:///work', name: 'work' }]);
  await client.setRoots([{ uri: 'file:///elsewhere' }]);
  let changed = '0';
  await deadline(
    (async () => {
      while (changed === '0') changed = text(await client.callTool('roots_changed'));
    })(),
    'onRootsListChanged to be called in the server process',
  );
  assert.equal(changed, '1');
  assert.deepEqual(JSON.parse(text(await client.callTool('roots'))), [{ uri: 'file:///elsewhere' }]);
});

test('list_changed over stdio: the client refreshes its tool list', { skip: posixOnly }, async () => {
  toolsChanged = gate();
  await client.callTool('add_tool', { name: 'dynamic' });
  await deadline(toolsChanged.promise, 'onToolsChanged');
  assert.ok(toolLists.at(-1)?.some((t) => t.name === 'dynamic'));
  assert.equal(text(await client.callTool('dynamic')), 'I am dynamic');
});

test('cancellation over stdio: the server handler sees the abort and the call rejects', {
  skip: posixOnly,
}, async () => {
  const controller = new AbortController();
  const call = client.callTool('wait', {}, { signal: controller.signal });
  setTimeout(() => controller.abort('stop waiting'), 50);
  await assert.rejects(call, (e: unknown) => e instanceof McpkitError && e.code === 'REQUEST_CANCELLED');
  let reason = 'none';
  await deadline(
    (async () => {
      while (reason === 'none') reason = text(await client.callTool('last_cancel'));
    })(),
    'the server to record the cancel',
  );
  assert.match(reason, /stop waiting/);
});

test('a timeout over stdio cancels the server handler', { skip: posixOnly }, async () => {
  await assert.rejects(
    () => client.callTool('wait', {}, { timeout: 100 }),
    (e: unknown) => e instanceof McpkitError && e.code === 'REQUEST_TIMEOUT',
  );
  let reason = '';
  await deadline(
    (async () => {
      while (!/timed out/.test(reason)) reason = text(await client.callTool('last_cancel'));
    })(),
    'the server to record the timeout cancel',
  );
  assert.match(reason, /timed out after 100 ms/);
});
