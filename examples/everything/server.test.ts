// The main of the everything server, run as a real child process: over stdio, and over HTTP with its flags.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, ErrorCode, StreamableHttpClientTransport } from '../../src/index.js';
import { StdioClientTransport } from '../../src/stdio.js';

const serverPath = fileURLToPath(new URL('./server.js', import.meta.url));

/** Resolves with the Streamable HTTP URL of the server `child` once it listens. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      text += chunk;
      const m = /Streamable HTTP at (\S+),/.exec(text);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${text}`)));
  });
}

describe('everything server: the stdio main', { timeout: 10_000 }, () => {
  it('serves over stdio', async () => {
    const client = new Client({ name: 'smoke', version: '0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: 'pipe' }),
    );
    try {
      assert.equal(client.serverInfo?.name, 'mcpkit-everything');
      assert.deepEqual((await client.callTool('test_simple_text')).content, [
        { type: 'text', text: 'This is a simple text response for testing.' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('refuses a bad --http port with exit code 2', () => {
    const run = spawnSync(process.execPath, [serverPath, '--http', 'eighty'], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /--http needs a port number/);
  });

  it('serves Streamable HTTP with --http, on 127.0.0.1', async () => {
    const child = spawn(process.execPath, [serverPath, '--http', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await listening(child);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 't', version: '0' },
          },
        }),
      });
      assert.equal(res.status, 200);
      assert.ok(res.headers.get('mcp-session-id'));
      const body = (await res.json()) as { result: { serverInfo: { name: string } } };
      assert.equal(body.result.serverInfo.name, 'mcpkit-everything');
    } finally {
      child.kill('SIGTERM');
    }
  });
});

// Twenty sessions opened and closed one after another: a time limit of its own.
/** The outcomes of twenty calls against a limit of five: five through, the rest refused. */
const FIVE_OF_TWENTY = [
  ...Array<string>(5).fill('ok'),
  ...Array<string>(15).fill(String(ErrorCode.RateLimited)),
];

/**
 * Twenty tool calls at `url`, each by a new client in a 2025 session of its own (the stateless revision has none to
 * renew) with `headers(i)`: 'ok' or the error code of each.
 */
async function eachNew(url: string, headers?: (i: number) => Record<string, string>): Promise<string[]> {
  const outcomes: string[] = [];
  for (let i = 0; i < 20; i++) {
    const client = new Client({ name: `client-${i}`, version: '0' }, { era: 'stateful' });
    await client.connect(
      new StreamableHttpClientTransport(url, headers === undefined ? {} : { headers: headers(i) }),
    );
    try {
      await client.callTool('test_simple_text');
      outcomes.push('ok');
    } catch (e) {
      outcomes.push(String((e as { code?: unknown }).code));
    } finally {
      await client.close();
    }
  }
  return outcomes;
}

describe('everything server: its flags over HTTP', { timeout: 60_000 }, () => {
  it('--rate-limit over HTTP: a new session per call does not escape it (keyed by the client address)', async () => {
    const child = spawn(process.execPath, [serverPath, '--http', '0', '--rate-limit', '5/h'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await listening(child);
      assert.deepEqual(await eachNew(url), FIVE_OF_TWENTY);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('--rate-limit with --auth-introspect: a token of a new OAuth client per call does not escape it (keyed by the user)', async () => {
    // An RFC 7662 endpoint: "alice-7" is the user alice through the client "app-7" (registered anew for each call).
    const port = await freePort();
    const audience = `http://127.0.0.1:${port}/mcp`;
    const introspection = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
      });
      req.on('end', () => {
        const token = new URLSearchParams(body).get('token') ?? '';
        const [sub, client] = token.split('-');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            active: true,
            sub,
            client_id: `app-${client}`,
            aud: audience,
            scope: '',
            exp: Math.floor(Date.now() / 1000) + 600,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => introspection.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(introspection.address() as AddressInfo).port}/introspect`;
    const child = spawn(
      process.execPath,
      [serverPath, '--http', String(port), '--auth-introspect', endpoint, '--rate-limit', '5/h'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          MCPKIT_INTROSPECTION_CLIENT_ID: 'rs',
          MCPKIT_INTROSPECTION_CLIENT_SECRET: 's',
        },
      },
    );
    try {
      const url = await listening(child);
      assert.deepEqual(await eachNew(url, (i) => ({ authorization: `Bearer alice-${i}` })), FIVE_OF_TWENTY);
    } finally {
      child.kill('SIGTERM');
      introspection.closeAllConnections();
      await new Promise<void>((resolve) => introspection.close(() => resolve()));
    }
  });
});

/** A port that was free a moment ago (the audience of a protected server names its port before it listens). */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
