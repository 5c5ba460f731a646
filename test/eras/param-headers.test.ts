// x-mcp-header, one rule on both sides (spec/tool-headers.ts): the server refuses at registration and at update()
// exactly the tools its own client would drop (the shared cases of test/fixtures/x-mcp-header-cases.ts), and a
// nested annotation travels end to end over HTTP in the stateless era: the client mirrors it, the server checks it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { ErrorCode, McpkitError } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { type RunningServer, serve } from '../../src/node.js';
import { McpServer } from '../../src/server/server.js';
import { connectInMemory } from '../../src/testing.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import { invalidCases, validCases } from '../fixtures/x-mcp-header-cases.js';
import { CALL, envelope, firstText, SUITE_TIMEOUT } from './helpers.js';

describe('registration: the server refuses what its client would drop', () => {
  for (const c of invalidCases) {
    test(`refused: ${c.name}`, () => {
      const server = new McpServer({ name: 'headers', version: '1' });
      assert.throws(
        () => server.tool('bad', { inputSchema: c.schema }, () => 'x'),
        (e: unknown) =>
          e instanceof McpkitError &&
          e.code === 'INVALID_DEFINITION' &&
          e.message.startsWith('Tool bad: ') &&
          e.message.includes(`parameter "${c.property}"`) &&
          e.message.includes(c.reason),
      );
    });
  }

  test('accepted: every valid case', () => {
    const server = new McpServer({ name: 'headers', version: '1' });
    validCases.forEach((c, i) => {
      server.tool(`ok${i}`, { inputSchema: c.schema }, () => 'x');
    });
  });

  test('update() with an invalid annotation is refused and the tool keeps its schema', async () => {
    const server = new McpServer({ name: 'headers', version: '1' });
    const good = validCases[1] as (typeof validCases)[number];
    const handle = server.tool('t', { inputSchema: good.schema }, () => 'x');
    for (const c of invalidCases) {
      assert.throws(() => handle.update({ inputSchema: c.schema }), { code: 'INVALID_DEFINITION' });
    }
    const { client } = await connectInMemory(server);
    const [listed] = await client.listTools();
    assert.deepEqual(listed?.inputSchema, good.schema);
    await client.close();
  });
});

describe('a nested x-mcp-header over HTTP (2026-07-28)', { timeout: SUITE_TIMEOUT }, () => {
  let running: RunningServer;
  const deploySchema: JsonObject = {
    type: 'object',
    properties: {
      target: {
        type: 'object',
        properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } },
      },
      replicas: { type: 'integer', 'x-mcp-header': 'Replicas' },
    },
  };

  before(async () => {
    const server = new McpServer({ name: 'nested-headers', version: '1' });
    server.tool('deploy', { inputSchema: deploySchema }, (args) => `deploy ${JSON.stringify(args)}`);
    running = await serve(server);
  });
  after(async () => {
    await running?.close();
  });

  test('the client mirrors target.zone and replicas; the server checks them', async () => {
    const sent: Headers[] = [];
    const transport = new StreamableHttpClientTransport(running.url, {
      fetch: (input, init) => {
        sent.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    const client = new Client({ name: 'c', version: '1' }, { era: 'stateless' });
    await client.connect(transport, CALL);
    try {
      const [tool] = await client.listTools(CALL);
      assert.equal(tool?.name, 'deploy');
      const args = { target: { zone: 'eu-1' }, replicas: 3 };
      assert.equal(firstText(await client.callTool('deploy', args, CALL)), `deploy ${JSON.stringify(args)}`);
      const call = sent.at(-1);
      assert.equal(call?.get('mcp-param-zone'), 'eu-1');
      assert.equal(call?.get('mcp-param-replicas'), '3');
    } finally {
      await client.close();
    }
  });

  test('a raw call without the nested header, or with a different value, is 400 -32020', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'deploy', arguments: { target: { zone: 'eu-1' } }, _meta: envelope() },
    });
    const headers = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'deploy',
    };
    for (const extra of [{}, { 'mcp-param-zone': 'us-1' }]) {
      const res = await fetch(running.url, { method: 'POST', headers: { ...headers, ...extra }, body });
      assert.equal(res.status, 400);
      const reply = (await res.json()) as { error: { code: number; message: string } };
      assert.equal(reply.error.code, ErrorCode.HeaderMismatch);
      assert.match(reply.error.message, /Mcp-Param-Zone/);
    }
    const ok = await fetch(running.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-param-zone': 'eu-1' },
      body,
    });
    assert.equal(ok.status, 200);
  });
});
