// `mcpkit gateway --http` as users run it, with two real clients at once: ours (it can ask its user: elicitation) and
// the official SDK 1.x client (it cannot). "Allow for this session" given by the first holds for it alone and ends
// with its session; a tool that changed since it was approved (on tools/list_changed, and across a restart of the
// gateway, its pins in the config folder) is a fresh elicitation showing the diff, or a denial saying why.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, type ElicitParams, HttpClientTransport } from '../../src/index.js';
import { fromStderr, MCPKIT, ROOT, tempHome } from './helpers.js';

const ODD = join(ROOT, 'dist/test/host/fixtures/odd-server.js');
const CHANGING = join(ROOT, 'dist/test/host/fixtures/changing-server.js');
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** A config of the odd server (`delete_thing` asks) and the changing one, started changed when `changed`. */
function writeConfig(home: string, name: string, changed: boolean): string {
  const file = join(home, name);
  writeFileSync(
    file,
    JSON.stringify({
      servers: {
        up: { command: process.execPath, args: [ODD, '--name', 'up'], approval: { default: 'ask' } },
        changing: {
          command: process.execPath,
          args: [CHANGING],
          ...(changed ? { env: { CHANGED: '1' } } : {}),
          approval: { default: 'ask', tools: { mutate: 'allow' } },
        },
      },
    }),
  );
  return file;
}

/** Starts `mcpkit gateway --config FILE --http 0` with `home` as its config folder; resolves with its URL. */
async function startGateway(config: string, home: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MCPKIT, 'gateway', '--config', config, '--http', '0'], {
    env: { ...process.env, XDG_CONFIG_HOME: home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  return { child, url: await fromStderr(child, /Gateway: (\S+)/) };
}

async function stopGateway(child: ChildProcess): Promise<void> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  running.delete(child);
}

/** Our client, its user answering every elicitation with `decision`; what it was asked is kept. */
async function asking(url: string, decision: string) {
  const asked: ElicitParams[] = [];
  const client = new Client(
    { name: 'asking', version: '1.0.0' },
    {
      era: 'stateful',
      elicitation: (params) => {
        asked.push(params);
        return { action: 'accept', content: { decision } };
      },
    },
  );
  await client.connect(new HttpClientTransport(url));
  return { client, asked };
}

async function official(url: string): Promise<SdkClient> {
  const client = new SdkClient({ name: 'official', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function firstText(result: unknown): string {
  const content = (result as { content?: unknown }).content;
  const [block] = (Array.isArray(content) ? content : []) as { type: string; text?: string }[];
  return block?.type === 'text' ? (block.text ?? '') : '';
}

/** Waits (bounded) until the gateway lists `tool` with a description matching `pattern`. */
async function listed(client: Client, tool: string, pattern: RegExp): Promise<void> {
  const end = Date.now() + 10_000;
  for (;;) {
    const found = (await client.listTools()).find((t) => t.name === tool);
    if (pattern.test(found?.description ?? '')) return;
    if (Date.now() > end) assert.fail(`${tool} not listed as ${pattern}: ${found?.description}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('allow for this session: one client only, ending with its session; a changed tool elicits the diff again', async () => {
  const home = tempHome();
  const { child, url } = await startGateway(writeConfig(home, 'mcpkit.json', false), home);
  const sdk = await official(url);
  try {
    const a = await asking(url, 'Allow for this session');
    assert.equal(firstText(await a.client.callTool('up__delete_thing', {})), 'deleted');
    assert.equal(firstText(await a.client.callTool('up__delete_thing', {})), 'deleted');
    assert.equal(a.asked.length, 1);

    const refused = await sdk.callTool({ name: 'up__delete_thing', arguments: {} });
    assert.equal(refused.isError, true, 'the official client does not inherit the approval');
    assert.match(firstText(refused), /cannot ask its user/);

    await a.client.close();
    const again = await asking(url, 'Allow for this session');
    try {
      assert.equal(firstText(await again.client.callTool('up__delete_thing', {})), 'deleted');
      assert.equal(again.asked.length, 1, "A's approval ended with A's session");

      assert.equal(firstText(await again.client.callTool('changing__echo', { text: 'a' })), 'echo: a');
      assert.equal(again.asked.length, 2);
      assert.equal(firstText(await again.client.callTool('changing__mutate', {})), 'mutated');
      await listed(again.client, 'changing__echo', /Before answering/);

      const denied = await sdk.callTool({ name: 'changing__echo', arguments: { text: 'b', note: 'n' } });
      assert.equal(denied.isError, true);
      assert.match(
        firstText(denied),
        /changed since it was approved, and the connecting client cannot ask its user/,
      );

      assert.equal(
        firstText(await again.client.callTool('changing__echo', { text: 'b', note: 'n' })),
        'echo: b',
      );
      assert.equal(again.asked.length, 3, 'asked again: its session approval was for the old definition');
      const message = again.asked[2]?.message ?? '';
      assert.match(message, /changing__echo \(server changing\) changed since it was approved/);
      assert.match(message, /^- {3}"description": "Echoes text",$/m);
      assert.match(message, /^\+ {3}"description": "Echoes text\. Before answering/m);
      assert.equal(firstText(await again.client.callTool('up__delete_thing', {})), 'deleted');
      assert.equal(again.asked.length, 3, 'the unchanged tool keeps its approval');
    } finally {
      await again.client.close();
    }
  } finally {
    await sdk.close();
    await stopGateway(child);
  }
});

test('across a restart of the gateway: the tool approved before, started changed, is elicited again with the diff', async () => {
  const home = tempHome();
  const first = await startGateway(writeConfig(home, 'before.mcpkit.json', false), home);
  try {
    const a = await asking(first.url, 'Allow once');
    assert.equal(firstText(await a.client.callTool('changing__echo', { text: 'a' })), 'echo: a');
    await a.client.close();
  } finally {
    await stopGateway(first.child);
  }
  const second = await startGateway(writeConfig(home, 'after.mcpkit.json', true), home);
  try {
    const b = await asking(second.url, 'Allow once');
    assert.equal(firstText(await b.client.callTool('changing__echo', { text: 'b', note: 'n' })), 'echo: b');
    assert.match(b.asked[0]?.message ?? '', /changed since it was approved \(description, inputSchema\)/);
    assert.match(b.asked[0]?.message ?? '', /^\+ {7}"note": \{$/m);
    await b.client.close();
  } finally {
    await stopGateway(second.child);
  }
});
