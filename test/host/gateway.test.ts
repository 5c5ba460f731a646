// host.toServer(): the registry as one MCP server. Qualified tools for any client, in both eras (in memory stateful,
// Streamable HTTP stateless); approval applied: `allow` runs, `deny` is a tool result, `ask` is an elicitation to
// the connecting client (allowed there, or denied when the client cannot ask); list changes reach the client.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Host, type ServerConfig } from '../../src/host.js';
import { Client, HttpClientTransport, type McpServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { connectInMemory } from '../../src/testing.js';
import { ODD_SERVER, text, until } from './helpers.js';

const config: ServerConfig = {
  name: 'up',
  transport: {
    type: 'stdio',
    command: process.execPath,
    args: [ODD_SERVER, '--name', 'up'],
    env: {},
    namedEnv: [],
  },
  disabled: false,
  trusted: false,
  approval: {
    default: 'ask',
    tools: { echo: 'allow', flood: 'allow', measure: 'allow', read_thing: 'deny' },
  },
  source: { file: 'test', format: 'mcpkit' },
};

let host: Host;
let gateway: McpServer;
let http: RunningServer;
const asked: string[] = [];

before(async () => {
  host = new Host([config], { refreshDebounceMs: 20 });
  await host.start();
  gateway = host.toServer();
  http = await serve(gateway, { port: 0, host: '127.0.0.1' });
});

after(async () => {
  await http.close();
  await host.close();
});

function elicitingClient() {
  return {
    elicitation: (params: { message: string }) => {
      asked.push(params.message);
      return { action: 'accept' as const, content: { decision: 'Allow once' } };
    },
  };
}

test('a stateful client sees the qualified tools; allow runs, deny is a result, ask is elicited from it', async () => {
  const { client } = await connectInMemory(gateway, elicitingClient());
  try {
    const names = (await client.listTools()).map((t) => t.name);
    assert.ok(names.includes('up__echo') && names.includes('up__delete_thing'), names.join(' '));
    assert.equal(text(await client.callTool('up__echo', { text: 'via gateway' })), 'up: via gateway');
    const denied = await client.callTool('up__read_thing', {});
    assert.equal(denied.isError, true);
    assert.match(text(denied), /approval policy denies/);
    assert.equal(text(await client.callTool('up__delete_thing', {})), 'deleted');
    assert.equal(asked.length, 1);
    assert.match(asked[0] ?? '', /up__delete_thing/);
  } finally {
    await client.close();
  }
  const log = host.log.entries().filter((e) => e.name === 'up__delete_thing');
  assert.deepEqual(
    log.map((e) => [e.kind, e.outcome, e.approval]),
    [
      ['approval', 'allowed', 'once'],
      ['tool', 'ok', 'once'],
    ],
  );
});

test("a tool's outputSchema is offered by the gateway and its structured content comes through", async () => {
  const { client } = await connectInMemory(gateway);
  try {
    const measure = (await client.listTools()).find((t) => t.name === 'up__measure');
    assert.deepEqual(measure?.outputSchema, {
      type: 'object',
      properties: { length: { type: 'number' } },
      required: ['length'],
    });
    const result = await client.callTool('up__measure', { text: 'four' });
    assert.deepEqual(result.structuredContent, { length: 4 });
  } finally {
    await client.close();
  }
});

test('resources and templates of the servers are read through the gateway', async () => {
  const { client } = await connectInMemory(gateway);
  try {
    const templates = await client.listResourceTemplates();
    assert.ok(templates.length > 0, 'templates offered');
    const resources = await client.listResources();
    const first = resources[0];
    assert.ok(first, 'resources offered');
    assert.equal(first.uri, 'odd://up/info');
    const [info] = (await client.readResource('odd://up/info')).contents;
    assert.ok(info && 'text' in info && info.text === 'info of up');
    const [item] = (await client.readResource('odd://up/items/7')).contents;
    assert.ok(item && 'text' in item && item.text === 'item 7', JSON.stringify(item));
  } finally {
    await client.close();
  }
});

test('a client that cannot elicit gets a denial for ask, never a hang', async () => {
  const { client } = await connectInMemory(gateway);
  try {
    const result = await client.callTool('up__delete_thing', {});
    assert.equal(result.isError, true);
    assert.match(text(result), /cannot ask its user/);
  } finally {
    await client.close();
  }
});

test('a stateless (2026-07-28) client over HTTP: the elicitation comes as an input request', async () => {
  const client = new Client({ name: 'modern', version: '1.0.0' }, { era: 'stateless', ...elicitingClient() });
  await client.connect(new HttpClientTransport(http.url));
  try {
    assert.equal(client.era, 'stateless');
    assert.equal(text(await client.callTool('up__delete_thing', {})), 'deleted');
  } finally {
    await client.close();
  }
});

test('a list change on the server reaches the gateway client', async () => {
  let changed = 0;
  const { client } = await connectInMemory(gateway, { onToolsChanged: () => changed++ });
  try {
    assert.ok((await client.listTools()).some((t) => t.name === 'up__toggled'));
    assert.equal(text(await client.callTool('up__flood', { count: 1 })), 'sent 1');
    await until(() => changed > 0, 'a tools/list_changed from the gateway');
    await until(() => host.registry.tool('up__toggled') === undefined, 'the registry to drop up__toggled');
    const names = (await client.listTools()).map((t) => t.name);
    assert.ok(!names.includes('up__toggled'), names.join(' '));
  } finally {
    await client.close();
  }
});
