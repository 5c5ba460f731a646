// Capability checks on both sides: derived and explicit capabilities, refusals at registration and at call time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, JsonRpcError, McpkitError, McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';

const sampler = () => ({
  role: 'assistant' as const,
  content: { type: 'text' as const, text: 'x' },
  model: 'm',
});

test('derived server capabilities follow what is registered', async () => {
  const empty = await connectInMemory(new McpServer({ name: 'empty', version: '1' }));
  assert.deepEqual(empty.client.serverCapabilities, { logging: {} });
  await empty.client.close();

  const server = new McpServer({ name: 'full', version: '1' });
  server.tool('t', {}, () => 'x');
  server.resource('test://r', { name: 'r' }, () => 'x');
  server.prompt('p', {}, () => 'x');
  const full = await connectInMemory(server);
  assert.deepEqual(full.client.serverCapabilities, {
    logging: {},
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    completions: {},
  });
  await full.client.close();
});

test('explicit server capabilities are declared exactly', async () => {
  const server = new McpServer({ name: 'explicit', version: '1' }, { capabilities: { tools: {} } });
  server.tool('t', {}, () => 'x');
  const { client } = await connectInMemory(server);
  assert.deepEqual(client.serverCapabilities, { tools: {} });
  await client.close();
});

test('a server with explicit capabilities lacking tools refuses server.tool() at registration', () => {
  const server = new McpServer({ name: 'no-tools', version: '1' }, { capabilities: { prompts: {} } });
  for (const register of [
    () => server.tool('t', {}, () => 'x'),
    () => server.resource('test://r', { name: 'r' }, () => 'x'),
    () => server.resourceTemplate('test://r/{id}', { name: 'r' }, () => 'x'),
  ]) {
    assert.throws(register, (error: unknown) => {
      assert.ok(error instanceof McpkitError);
      assert.equal(error.code, 'INVALID_DEFINITION');
      return true;
    });
  }
  assert.doesNotThrow(() => server.prompt('p', {}, () => 'x'));
});

test('a client with explicit capabilities lacking sampling refuses a sampling handler', () => {
  assert.throws(
    () => new Client({ name: 'c', version: '1' }, { capabilities: { roots: {} }, sampling: sampler }),
    (error: unknown) => error instanceof McpkitError && error.code === 'CAPABILITY_MISSING',
  );
  assert.throws(
    () =>
      new Client(
        { name: 'c', version: '1' },
        { capabilities: {}, elicitation: () => ({ action: 'cancel' }) },
      ),
    (error: unknown) => error instanceof McpkitError && error.code === 'CAPABILITY_MISSING',
  );
  assert.throws(
    () => new Client({ name: 'c', version: '1' }, { capabilities: {}, roots: [] }),
    (error: unknown) => error instanceof McpkitError && error.code === 'CAPABILITY_MISSING',
  );
  assert.doesNotThrow(
    () => new Client({ name: 'c', version: '1' }, { capabilities: { sampling: {} }, sampling: sampler }),
  );
});

test('derived client capabilities follow the handlers given', () => {
  assert.deepEqual(new Client({ name: 'c', version: '1' }).capabilities, {});
  assert.deepEqual(
    new Client(
      { name: 'c', version: '1' },
      { sampling: sampler, elicitation: () => ({ action: 'cancel' }), roots: [] },
    ).capabilities,
    // URL-mode elicitation is opt-in through explicit capabilities.
    { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
  );
});

test('server ctx.sample when the client declared no sampling is McpkitError CAPABILITY_MISSING', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  let caught: unknown;
  server.tool('sample', {}, async (_args, ctx) => {
    try {
      await ctx.sample({ messages: [], maxTokens: 1 });
    } catch (error) {
      caught = error;
    }
    return 'done';
  });
  const { client } = await connectInMemory(server);
  await client.callTool('sample');
  assert.ok(caught instanceof McpkitError);
  assert.equal(caught.code, 'CAPABILITY_MISSING');
  await client.close();
});

/** Calls `fn` and returns its failure, whether it threw synchronously or rejected. */
async function failureOf(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  assert.fail('expected a failure');
}

test('client calls to features the server did not declare fail with CAPABILITY_MISSING', async () => {
  const server = new McpServer({ name: 'tools-only', version: '1' }, { capabilities: { tools: {} } });
  const { client } = await connectInMemory(server);
  const calls: [string, () => Promise<unknown>][] = [
    ['listPrompts', () => client.listPrompts()],
    ['getPrompt', () => client.getPrompt('p')],
    ['listResources', () => client.listResources()],
    ['listResourceTemplates', () => client.listResourceTemplates()],
    ['readResource', () => client.readResource('test://x')],
    ['subscribeResource', () => client.subscribeResource('test://x')],
    ['setLoggingLevel', () => client.setLoggingLevel('info')],
    ['complete', () => client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })],
  ];
  for (const [name, call] of calls) {
    const error = await failureOf(call);
    assert.ok(error instanceof McpkitError, `${name}: ${String(error)}`);
    assert.equal(error.code, 'CAPABILITY_MISSING', name);
  }
  // Sent anyway, the server refuses with method-not-found.
  await assert.rejects(
    () => client.request('prompts/list'),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32601,
  );
  await client.close();
});

test('client list calls report a missing capability as a rejected promise, not a synchronous throw', {}, async () => {
  const server = new McpServer({ name: 'tools-only', version: '1' }, { capabilities: { tools: {} } });
  const { client } = await connectInMemory(server);
  try {
    for (const [name, call] of [
      ['listPrompts', () => client.listPrompts()],
      ['listResources', () => client.listResources()],
      ['listResourceTemplates', () => client.listResourceTemplates()],
    ] as const) {
      let promise: Promise<unknown> | undefined;
      assert.doesNotThrow(() => {
        promise = call();
      }, `${name} threw synchronously`);
      await assert.rejects(promise!, { code: 'CAPABILITY_MISSING' }, name);
    }
  } finally {
    await client.close();
  }
});

test('client calls on a closed client reject rather than throw synchronously', {}, async () => {
  const { client } = await connectInMemory(new McpServer({ name: 's', version: '1' }));
  await client.close();
  for (const [name, call] of [
    ['request', () => client.request('ping')],
    ['notify', () => client.notify('notifications/x')],
  ] as const) {
    let promise: Promise<unknown> | undefined;
    assert.doesNotThrow(() => {
      promise = call();
    }, `${name} threw synchronously`);
    await assert.rejects(promise!, { code: 'NOT_CONNECTED' }, name);
  }
});

test('a closed client fails calls with NOT_CONNECTED', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.tool('t', {}, () => 'x');
  const { client } = await connectInMemory(server);
  await client.close();
  for (const call of [() => client.ping(), () => client.callTool('t'), () => client.listTools()]) {
    const error = await failureOf(call);
    assert.ok(error instanceof McpkitError);
    assert.equal(error.code, 'NOT_CONNECTED');
  }
});
