// `mcpkit gateway`: the servers of a host config as one MCP server, over stdio and over Streamable HTTP, for our
// client (both eras; `ask` put to it as an elicitation) and the official SDK 1.x client (no elicitation: `ask` is a
// denial the model can read).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, HttpClientTransport } from '../../src/index.js';
import { StdioClientTransport } from '../../src/stdio.js';
import { fromStderr, MCPKIT, mcpkit, ROOT, tempHome } from './helpers.js';

const ODD = join(ROOT, 'dist/test/host/fixtures/odd-server.js');
/** The gateway's config folder (its tool pins), never the user's. */
const home = { XDG_CONFIG_HOME: tempHome() };
let config: string;

before(() => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-gateway-'));
  config = join(dir, 'mcpkit.json');
  writeFileSync(
    config,
    JSON.stringify({
      servers: {
        up: {
          command: process.execPath,
          args: [ODD, '--name', 'up'],
          approval: { default: 'ask', tools: { echo: 'allow' } },
        },
      },
    }),
  );
});

function gatewayArgs(...extra: string[]): string[] {
  return [MCPKIT, 'gateway', '--config', config, ...extra];
}

function elicitingClient(era: 'stateful' | 'stateless'): Client {
  return new Client(
    { name: 'gateway-test', version: '1.0.0' },
    { era, elicitation: () => ({ action: 'accept', content: { decision: 'Allow once' } }) },
  );
}

function firstText(result: unknown): string {
  const content = (result as { content?: unknown }).content;
  const [block] = (Array.isArray(content) ? content : []) as { type: string; text?: string }[];
  return block?.type === 'text' ? (block.text ?? '') : '';
}

for (const era of ['stateful', 'stateless'] as const) {
  test(`stdio, our client (${era}): qualified tools, calls, and ask elicited from the client`, async () => {
    const client = elicitingClient(era);
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: gatewayArgs(), env: home }),
    );
    try {
      assert.equal(client.era, era);
      const names = (await client.listTools()).map((t) => t.name);
      assert.ok(names.includes('up__echo') && names.includes('up__delete_thing'), names.join(' '));
      assert.equal(firstText(await client.callTool('up__delete_thing', {})), 'deleted');
      const [info] = (await client.readResource('odd://up/info')).contents;
      assert.ok(info && 'text' in info && info.text === 'info of up');
    } finally {
      await client.close();
    }
  });
}

test('stdio, the official SDK client: tools listed and called; ask without elicitation is a denial', async () => {
  const client = new SdkClient({ name: 'official', version: '1.0.0' });
  await client.connect(
    new SdkStdioClientTransport({
      command: process.execPath,
      args: gatewayArgs(),
      env: home,
      stderr: 'pipe',
    }),
  );
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'up__echo'));
    const result = await client.callTool({ name: 'up__delete_thing', arguments: {} });
    assert.equal(result.isError, true);
    assert.match(firstText(result), /cannot ask its user/);
  } finally {
    await client.close();
  }
});

let http: ChildProcess | undefined;
let url = '';
after(() => {
  http?.kill('SIGKILL');
});

test('over HTTP: the URL on stderr, our client in both eras and the official client, SIGTERM ends it with 0', async () => {
  http = spawn(process.execPath, gatewayArgs('--http', '0'), {
    env: { ...process.env, ...home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const child = http;
  url = await fromStderr(child, /Gateway: (\S+)/);
  for (const era of ['stateful', 'stateless'] as const) {
    const client = elicitingClient(era);
    await client.connect(new HttpClientTransport(url));
    try {
      assert.equal(client.era, era);
      assert.equal(firstText(await client.callTool('up__echo', { text: era })), `up: ${era}`);
      assert.equal(firstText(await client.callTool('up__delete_thing', {})), 'deleted');
    } finally {
      await client.close();
    }
  }
  const official = new SdkClient({ name: 'official', version: '1.0.0' });
  await official.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const result = await official.callTool({ name: 'up__echo', arguments: { text: 'sdk' } });
    assert.equal(firstText(result), 'up: sdk');
  } finally {
    await official.close();
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});

test('a non-loopback --host is refused with exit 1 unless --allow-remote is given', async () => {
  const refused = await mcpkit(['gateway', '--config', config, '--http', '0', '--host', '0.0.0.0']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /--host 0\.0\.0\.0 is not a loopback address/);
  assert.match(refused.stderr, /--allow-remote/);
  assert.doesNotMatch(refused.stderr, /Gateway:/);
});

test('--allow-remote: a warning on stderr, served, a foreign Origin still refused, SIGTERM ends it', async () => {
  const child = spawn(process.execPath, gatewayArgs('--http', '0', '--host', '0.0.0.0', '--allow-remote'), {
    env: { ...process.env, ...home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    let text = '';
    const remote = await new Promise<string>((resolve, reject) => {
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
        const m = /Gateway: (\S+)/.exec(text);
        if (m?.[1]) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`the gateway exited with ${code}: ${text}`)));
    });
    assert.match(text, /warning: serving on 0\.0\.0\.0 without authentication/);
    const local = remote.replace('0.0.0.0', '127.0.0.1');
    const foreign = await fetch(local, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'http://evil.example',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(foreign.status, 403);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    child.kill('SIGKILL');
  }
});
