// Structured tool output: zod and raw JSON Schema output schemas, mirroring to text, server-side violations,
// and client-side outputSchema validation against a fake server that lies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { Client, JsonRpcError, McpkitError, McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { fakeServer, initializeResult, type RawAnswer } from './helpers.js';

const OUTPUT_JSON_SCHEMA = {
  type: 'object',
  properties: { sum: { type: 'number' } },
  required: ['sum'],
  additionalProperties: false,
};

function structuredServer(errors: Error[] = []): McpServer {
  const server = new McpServer({ name: 'structured', version: '1' }, { onerror: (e) => errors.push(e) });
  server.tool(
    'add_zod',
    {
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    ({ a, b }) => ({ structuredContent: { sum: a + b } }),
  );
  server.tool(
    'add_json',
    {
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      outputSchema: OUTPUT_JSON_SCHEMA,
    },
    (args) => ({ structuredContent: { sum: (args.a as number) + (args.b as number) } }),
  );
  server.tool(
    'add_with_text',
    { inputSchema: z.object({ a: z.number(), b: z.number() }), outputSchema: z.object({ sum: z.number() }) },
    ({ a, b }) => ({
      content: [{ type: 'text', text: `the sum is ${a + b}` }],
      structuredContent: { sum: a + b },
    }),
  );
  server.tool('bad_zod', { outputSchema: z.object({ sum: z.number() }) }, () => ({
    structuredContent: { sum: 'three' } as unknown as { sum: number },
  }));
  server.tool('bad_json', { outputSchema: OUTPUT_JSON_SCHEMA }, () => ({ structuredContent: { total: 3 } }));
  // Plain text from a tool that promised structured output: the spec requires structuredContent.
  server.tool('text_only', { outputSchema: OUTPUT_JSON_SCHEMA }, () => 'just text');
  server.tool('missing', { outputSchema: OUTPUT_JSON_SCHEMA }, () => ({
    content: [{ type: 'text', text: 'forgot it' }],
  }));
  server.tool('error_result', { outputSchema: OUTPUT_JSON_SCHEMA }, () => ({
    content: [{ type: 'text', text: 'failed' }],
    isError: true,
  }));
  return server;
}

test('output schemas are advertised as JSON Schema objects (zod and raw)', async () => {
  const { client } = await connectInMemory(structuredServer());
  const tools = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const zodOut = byName.get('add_zod')?.outputSchema;
  assert.equal(zodOut?.type, 'object');
  assert.deepEqual(zodOut?.required, ['sum']);
  assert.deepEqual((zodOut?.properties as Record<string, unknown> | undefined)?.sum, { type: 'number' });
  assert.deepEqual(byName.get('add_json')?.outputSchema, OUTPUT_JSON_SCHEMA);
  await client.close();
});

for (const name of ['add_zod', 'add_json']) {
  test(`${name}: structuredContent comes back and is mirrored to a JSON text block`, async () => {
    const { client } = await connectInMemory(structuredServer());
    await client.listTools();
    const result = await client.callTool(name, { a: 2, b: 3 });
    assert.deepEqual(result.structuredContent, { sum: 5 });
    assert.deepEqual(result.content, [{ type: 'text', text: '{"sum":5}' }]);
    assert.equal(result.isError, undefined);
    await client.close();
  });
}

test('a tool that gives its own content keeps it next to structuredContent', async () => {
  const { client } = await connectInMemory(structuredServer());
  await client.listTools();
  const result = await client.callTool('add_with_text', { a: 1, b: 1 });
  assert.deepEqual(result, {
    content: [{ type: 'text', text: 'the sum is 2' }],
    structuredContent: { sum: 2 },
  });
  await client.close();
});

for (const name of ['bad_zod', 'bad_json', 'missing', 'text_only']) {
  test(`${name}: structuredContent that violates the output schema is a -32603 protocol error`, async () => {
    const { client } = await connectInMemory(structuredServer());
    await assert.rejects(
      () => client.callTool(name),
      (error: unknown) => {
        assert.ok(error instanceof JsonRpcError, String(error));
        assert.equal(error.code, -32603);
        assert.match(error.message, new RegExp(name));
        return true;
      },
    );
    await client.ping();
    await client.close();
  });
}

test('an isError result is not checked against the output schema (server and client)', async () => {
  const { client } = await connectInMemory(structuredServer());
  await client.listTools();
  const result = await client.callTool('error_result');
  assert.equal(result.isError, true);
  await client.close();
});

test('input validation failures come back as isError results naming the problem (zod and raw)', async () => {
  const { client } = await connectInMemory(structuredServer());
  for (const name of ['add_zod', 'add_json']) {
    const wrongType = await client.callTool(name, { a: 'two', b: 3 });
    assert.equal(wrongType.isError, true, name);
    const [block] = wrongType.content;
    assert.ok(block?.type === 'text');
    assert.match(block.text, /Invalid arguments/, name);
    assert.match(block.text, /\ba\b/, `${name}: the message names the bad field`);
    const missing = await client.callTool(name, { a: 1 });
    assert.equal(missing.isError, true, name);
  }
  // Arguments that are not an object at all are an execution error too.
  const notObject = (await client.request('tools/call', { name: 'add_zod', arguments: [1, 2] })) as {
    isError?: boolean;
  };
  assert.equal(notObject.isError, true);
  await client.close();
});

test('an unknown tool is a -32602 protocol error', async () => {
  const { client } = await connectInMemory(structuredServer());
  await assert.rejects(
    () => client.callTool('no_such_tool'),
    (error: unknown) => {
      assert.ok(error instanceof JsonRpcError);
      assert.equal(error.code, -32602);
      assert.match(error.message, /no_such_tool/);
      return true;
    },
  );
  await client.close();
});

// A fake server whose tools/call answers do not match the outputSchema it listed.
async function lyingServer(structuredContent: unknown, extra: Record<string, unknown> = {}): Promise<Client> {
  const { clientTransport } = await fakeServer((request): RawAnswer => {
    if (request.method === 'initialize') return initializeResult('2025-11-25', { tools: {} });
    if (request.method === 'tools/list') {
      return {
        result: {
          tools: [
            { name: 'sum', inputSchema: { type: 'object' }, outputSchema: OUTPUT_JSON_SCHEMA },
            { name: 'free', inputSchema: { type: 'object' } },
          ],
        },
      };
    }
    if (request.method === 'tools/call') {
      const result: Record<string, unknown> = { content: [{ type: 'text', text: 'lie' }], ...extra };
      if (structuredContent !== undefined) result.structuredContent = structuredContent;
      return { result };
    }
    return { result: {} };
  });
  const client = new Client({ name: 'checking-client', version: '1' });
  await client.connect(clientTransport);
  return client;
}

test('the client checks structuredContent against the listed outputSchema (fake server lies)', async () => {
  for (const [what, content] of [
    ['a wrong type', { sum: 'five' }],
    ['an extra property', { sum: 5, extra: true }],
    ['nothing at all', undefined],
  ] as const) {
    const client = await lyingServer(content);
    await client.listTools();
    await assert.rejects(
      () => client.callTool('sum'),
      (error: unknown) => {
        assert.ok(error instanceof McpkitError, `${what}: ${String(error)}`);
        assert.equal(error.code, 'INVALID_RESULT', what);
        return true;
      },
    );
    await client.close();
  }
});

test('the client accepts a conforming answer, an isError answer, and tools without an outputSchema', async () => {
  const good = await lyingServer({ sum: 5 });
  await good.listTools();
  assert.deepEqual((await good.callTool('sum')).structuredContent, { sum: 5 });
  assert.deepEqual((await good.callTool('free')).structuredContent, { sum: 5 });
  await good.close();
  const failing = await lyingServer({ sum: 'five' }, { isError: true });
  await failing.listTools();
  assert.equal((await failing.callTool('sum')).isError, true);
  await failing.close();
});
