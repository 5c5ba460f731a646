// The gateway's fallback: a server's tool whose outputSchema mcpkit cannot declare (its root type is not exactly
// "object", as the spec requires) is still offered through host.toServer(), without the schema, and the log says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Host } from '../../src/host.js';
import { createLinkedTransports, McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { text } from './helpers.js';

test('a tool with an outputSchema mcpkit cannot declare is offered without it, and logged', async () => {
  const upstream = new McpServer({ name: 'lists', version: '1.0.0' });
  upstream.tool(
    'names',
    {
      description: 'Names, as a list',
      outputSchema: { type: 'object', properties: { names: { type: 'array' } } },
    },
    () => ({ content: [{ type: 'text', text: 'Ada, Alan' }], structuredContent: { names: ['Ada', 'Alan'] } }),
  );
  upstream.tool('plain', { description: 'No schema' }, () => 'plain');
  // What a server written elsewhere may send: valid JSON Schema (objects pass it), but a root type that is not
  // exactly "object", which mcpkit's server refuses to declare.
  upstream.use(async (request, next) => {
    const result = await next();
    if (request.method !== 'tools/list') return result;
    const tools = (result.tools as { name: string; outputSchema?: unknown }[]).map((t) =>
      t.name === 'names' ? { ...t, outputSchema: { type: ['object', 'null'] } } : t,
    );
    return { ...result, tools };
  });
  const host = new Host(
    [
      {
        name: 'lists',
        transport: { type: 'stdio', command: 'never-spawned', args: [], env: {}, namedEnv: [] },
        disabled: false,
        trusted: false,
        approval: { default: 'allow' },
        source: { file: 'test', format: 'mcpkit' },
      },
    ],
    {
      transportFor: () => {
        const [clientSide, serverSide] = createLinkedTransports();
        void upstream.connect(serverSide);
        return clientSide;
      },
    },
  );
  try {
    await host.start();
    assert.equal(host.server('lists')?.state, 'ready', host.server('lists')?.reason);
    assert.deepEqual(host.registry.tool('lists__names')?.tool.outputSchema, { type: ['object', 'null'] });
    const { client } = await connectInMemory(host.toServer());
    try {
      const tools = await client.listTools();
      const names = tools.find((t) => t.name === 'lists__names');
      assert.ok(names, `offered: ${tools.map((t) => t.name).join(' ')}`);
      assert.equal(names.outputSchema, undefined);
      assert.ok(tools.some((t) => t.name === 'lists__plain'));
      const result = await client.callTool('lists__names', {});
      assert.equal(text(result), 'Ada, Alan');
      assert.deepEqual(result.structuredContent, { names: ['Ada', 'Alan'] });
    } finally {
      await client.close();
    }
    const logged = host.log
      .entries()
      .find((e) => /lists__names offered without its outputSchema/.test(e.summary ?? ''));
    assert.ok(logged, 'the fallback is logged');
    assert.equal(logged.outcome, 'warning');
  } finally {
    await host.close();
  }
});
