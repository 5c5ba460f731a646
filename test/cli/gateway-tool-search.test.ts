// `mcpkit gateway --config FILE --tool-search` as Claude Desktop would run it, driven by the official SDK 1.x client
// over stdio: exactly two tools, search_tools and call_tool; a call found by the search is approved per call (an
// elicitation to the client for `ask`, a denial for `deny`). With --lazy and the cache folder of an earlier run, the
// servers start only when a call needs them: a search is answered from their last known tools.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { MCPKIT, ROOT, tempHome } from './helpers.js';

const ODD = join(ROOT, 'dist/test/host/fixtures/odd-server.js');
const MANY = join(ROOT, 'dist/test/host/fixtures/many-tools-server.js');
const home = tempHome();
const env = { XDG_CONFIG_HOME: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache') };
let config: string;

before(() => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-gateway-search-'));
  config = join(dir, 'mcpkit.json');
  writeFileSync(
    config,
    JSON.stringify({
      servers: {
        up: {
          command: process.execPath,
          args: [ODD, '--name', 'up'],
          approval: { default: 'ask', tools: { echo: 'allow', read_thing: 'deny' } },
        },
        many: {
          command: process.execPath,
          args: [MANY, '--tools', '300'],
          lazy: true,
          approval: { default: 'allow' },
        },
      },
    }),
  );
});

/** The official client on the gateway over stdio; it answers elicitations with "Allow once" and keeps their messages. */
async function connect(...flags: string[]) {
  const asked: string[] = [];
  const transport = new SdkStdioClientTransport({
    command: process.execPath,
    args: [MCPKIT, 'gateway', '--config', config, '--tool-search', ...flags],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new SdkClient({ name: 'official', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { decision: 'Allow once' } };
  });
  await client.connect(transport);
  return { client, asked, stderr: () => stderr };
}

function firstText(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  return content[0]?.text ?? '';
}

interface Found {
  name: string;
  server: string;
  inputSchema: { properties: Record<string, { type: string }> };
}

function found(result: unknown): Found[] {
  return ((result as { structuredContent?: { tools: Found[] } }).structuredContent ?? { tools: [] }).tools;
}

/** Arguments that fit a generated tool's schema (every property, of its type). */
function argumentsFor(tool: Found): Record<string, unknown> {
  const values: Record<string, unknown> = { integer: 1, array: ['x'], string: 'x' };
  return Object.fromEntries(Object.entries(tool.inputSchema.properties).map(([k, v]) => [k, values[v.type]]));
}

test('two tools, a search, a call approved by the client, a denial, a lazy server started by its search', async () => {
  const { client, asked, stderr } = await connect();
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['search_tools', 'call_tool'],
    );
    const hits = found(
      await client.callTool({
        name: 'search_tools',
        arguments: { query: 'delete a thing', servers: ['up'] },
      }),
    );
    assert.equal(hits[0]?.name, 'up__delete_thing', 'a search limited to one server starts no other');
    const deleted = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'up__delete_thing', arguments: {} },
    });
    assert.equal(firstText(deleted), 'deleted');
    assert.equal(asked.length, 1);
    assert.match(asked[0] as string, /up__delete_thing/);
    const denied = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'up__read_thing', arguments: {} },
    });
    assert.equal(denied.isError, true);
    assert.match(firstText(denied), /not run: the approval policy denies this tool/);
    assert.equal(asked.length, 1, 'a deny tool is not asked about');
    // The lazy server had not started; the search that needs its tools starts it.
    assert.doesNotMatch(stderr(), /many: ready/);
    const generated = found(
      await client.callTool({
        name: 'search_tools',
        arguments: { query: 'export a hr payslip', servers: ['many'] },
      }),
    );
    assert.ok(generated.length > 0 && generated.every((t) => t.server === 'many'));
    assert.match(stderr(), /many: ready/);
  } finally {
    await client.close();
  }
});

test('--lazy with the cache of that run: ready at once, searched from the cache, a server started by its call only', async () => {
  const { client, stderr } = await connect('--lazy');
  try {
    assert.match(stderr(), /gateway on stdio: 0 servers ready, tool search over \d+ tools/);
    const hits = found(
      await client.callTool({ name: 'search_tools', arguments: { query: 'archive a crm record' } }),
    );
    const target = hits.find((t) => t.server === 'many');
    assert.ok(target, JSON.stringify(hits));
    assert.doesNotMatch(stderr(), /: ready/, 'no server started for a search the cache answers');
    const ran = await client.callTool({
      name: 'call_tool',
      arguments: {
        name: target.name,
        arguments: argumentsFor(target),
      },
    });
    assert.match(firstText(ran), /ran with/);
    assert.match(stderr(), /many: ready/);
    assert.doesNotMatch(stderr(), /up: ready/, 'the other server is still not started');
  } finally {
    await client.close();
  }
});
