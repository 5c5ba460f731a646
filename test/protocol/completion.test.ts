// completion/complete for prompt arguments and template variables: context, the 100-value cap, errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CompletionContext, JsonRpcError, McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';

const MANY = Array.from({ length: 250 }, (_, i) => `value-${String(i).padStart(3, '0')}`);

function completionServer(contexts: CompletionContext[] = []): McpServer {
  const server = new McpServer({ name: 'complete', version: '1' });
  server.prompt(
    'pick',
    {
      arguments: {
        language: {
          complete: (value) => ['python', 'perl', 'php', 'rust'].filter((l) => l.startsWith(value)),
        },
        many: { complete: () => MANY },
        framework: {
          complete: (value, context) => {
            contexts.push(context);
            return context.arguments.language === 'python'
              ? ['django', 'flask'].filter((f) => f.startsWith(value))
              : [];
          },
        },
        plain: {},
        overclaimed: { complete: () => ({ values: MANY.slice(0, 150), hasMore: false }) },
      },
    },
    () => 'x',
  );
  server.resourceTemplate(
    'test://repos/{owner}/{repo}',
    {
      name: 'repo',
      complete: {
        owner: (value) => ['ada', 'alan', 'grace'].filter((o) => o.startsWith(value)),
        repo: () => ({ values: MANY.slice(0, 150), total: 1000, hasMore: true }),
      },
    },
    () => 'x',
  );
  return server;
}

test('completes a prompt argument by prefix', async () => {
  const { client } = await connectInMemory(completionServer());
  assert.ok(client.serverCapabilities?.completions);
  assert.deepEqual(
    await client.complete({ type: 'ref/prompt', name: 'pick' }, { name: 'language', value: 'p' }),
    {
      values: ['python', 'perl', 'php'],
      total: 3,
      hasMore: false,
    },
  );
  assert.deepEqual(
    await client.complete({ type: 'ref/prompt', name: 'pick' }, { name: 'language', value: 'z' }),
    {
      values: [],
      total: 0,
      hasMore: false,
    },
  );
  await client.close();
});

test('completes a template variable', async () => {
  const { client } = await connectInMemory(completionServer());
  const result = await client.complete(
    { type: 'ref/resource', uri: 'test://repos/{owner}/{repo}' },
    { name: 'owner', value: 'a' },
  );
  assert.deepEqual(result, { values: ['ada', 'alan'], total: 2, hasMore: false });
  await client.close();
});

test('at most 100 values, with the true total and hasMore (prompt argument)', async () => {
  const { client } = await connectInMemory(completionServer());
  const result = await client.complete({ type: 'ref/prompt', name: 'pick' }, { name: 'many', value: '' });
  assert.equal(result.values.length, 100);
  assert.deepEqual(result.values, MANY.slice(0, 100));
  assert.equal(result.total, 250);
  assert.equal(result.hasMore, true);
  await client.close();
});

test('at most 100 values, keeping the completer total and hasMore (template variable)', async () => {
  const { client } = await connectInMemory(completionServer());
  const result = await client.complete(
    { type: 'ref/resource', uri: 'test://repos/{owner}/{repo}' },
    { name: 'repo', value: '' },
  );
  assert.equal(result.values.length, 100);
  assert.equal(result.total, 1000);
  assert.equal(result.hasMore, true);
  await client.close();
});

test('truncating a completer answer to 100 values always reports hasMore', {}, async () => {
  const { client } = await connectInMemory(completionServer());
  const result = await client.complete(
    { type: 'ref/prompt', name: 'pick' },
    { name: 'overclaimed', value: '' },
  );
  assert.equal(result.values.length, 100);
  assert.equal(result.total, 150);
  assert.equal(result.hasMore, true, '50 values were dropped, so there are more');
});

test('context.arguments reach the completer', async () => {
  const contexts: CompletionContext[] = [];
  const { client } = await connectInMemory(completionServer(contexts));
  const ref = { type: 'ref/prompt', name: 'pick' } as const;
  assert.deepEqual(
    (await client.complete(ref, { name: 'framework', value: 'd' }, { language: 'python' })).values,
    ['django'],
  );
  assert.deepEqual((await client.complete(ref, { name: 'framework', value: 'd' })).values, []);
  assert.deepEqual(contexts, [{ arguments: { language: 'python' } }, { arguments: {} }]);
  await client.close();
});

test('an argument without a completer completes to nothing', async () => {
  const { client } = await connectInMemory(completionServer());
  assert.deepEqual(
    await client.complete({ type: 'ref/prompt', name: 'pick' }, { name: 'plain', value: 'x' }),
    {
      values: [],
      total: 0,
      hasMore: false,
    },
  );
  await client.close();
});

test('unknown prompts, unknown templates, bad refs and bad arguments are -32602', async () => {
  const { client } = await connectInMemory(completionServer());
  const bad: Record<string, unknown>[] = [
    { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } },
    { ref: { type: 'ref/resource', uri: 'test://nope/{x}' }, argument: { name: 'x', value: '' } },
    { ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'x', value: '' } },
    { argument: { name: 'x', value: '' } },
    { ref: { type: 'ref/prompt', name: 'pick' } },
    { ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'language', value: 5 } },
  ];
  for (const params of bad) {
    await assert.rejects(
      () => client.request('completion/complete', params),
      (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
      JSON.stringify(params),
    );
  }
  await client.close();
});

test('a server without prompts or templates does not offer completion', async () => {
  const server = new McpServer({ name: 'no-complete', version: '1' });
  server.tool('t', {}, () => 'x');
  const { client } = await connectInMemory(server);
  assert.equal(client.serverCapabilities?.completions, undefined);
  await assert.rejects(() => client.complete({ type: 'ref/prompt', name: 'x' }, { name: 'a', value: '' }), {
    code: 'CAPABILITY_MISSING',
  });
  await assert.rejects(
    () =>
      client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'x' },
        argument: { name: 'a', value: '' },
      }),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32601,
  );
  await client.close();
});
