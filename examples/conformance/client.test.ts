// The conformance client as the suite runs it (URL as the last argument, scenario in the environment),
// against a small node:http mock of the suite's `initialize` and `tools_call` servers. Nothing is downloaded.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const CLIENT = fileURLToPath(new URL('./client.js', import.meta.url));

interface Seen {
  method: string;
  params: Record<string, unknown> | undefined;
}

/** A stateless mock like the suite's: JSON replies, notifications 202, GET and DELETE refused. */
function mockServer(seen: Seen[]): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const message = JSON.parse(body) as {
        id?: number | string;
        method: string;
        params?: Record<string, unknown>;
      };
      seen.push({ method: message.method, params: message.params });
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const reply = (result: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      switch (message.method) {
        case 'initialize':
          return reply({
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'mock', version: '1.0.0' },
          });
        case 'tools/list':
          return reply({
            tools: [
              {
                name: 'add_numbers',
                description: 'Add two numbers together',
                inputSchema: {
                  type: 'object',
                  properties: { a: { type: 'number' }, b: { type: 'number' } },
                  required: ['a', 'b'],
                },
              },
            ],
          });
        case 'tools/call': {
          const { a, b } = (message.params?.arguments ?? {}) as { a: number; b: number };
          return reply({ content: [{ type: 'text', text: `The sum of ${a} and ${b} is ${a + b}` }] });
        }
        default:
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              error: { code: -32601, message: 'Method not found' },
            }),
          );
      }
    });
  });
}

/** Runs the client the way the suite does; never rejects. */
function runClient(url: string, env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLIENT, url],
      { env: { ...process.env, ...env }, timeout: 20_000, encoding: 'utf8' },
      (error, _stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stderr });
      },
    );
  });
}

describe('conformance client', { timeout: 60_000 }, () => {
  const seen: Seen[] = [];
  let server: Server;
  let url: string;

  before(async () => {
    server = mockServer(seen);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  it('initialize: one stateful handshake with a 2025 revision and our client info, then exit 0', async () => {
    const run = await runClient(url, { MCP_CONFORMANCE_SCENARIO: 'initialize' });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      seen.map((s) => s.method),
      ['initialize', 'notifications/initialized'],
    );
    const params = seen[0]?.params as {
      protocolVersion: string;
      clientInfo: { name: string; version: string };
    };
    assert.ok(['2025-06-18', '2025-11-25'].includes(params.protocolVersion), params.protocolVersion);
    assert.ok(params.clientInfo.name && params.clientInfo.version);
  });

  it('tools_call: lists the tools, then calls add_numbers with two numbers', async () => {
    const run = await runClient(url, { MCP_CONFORMANCE_SCENARIO: 'tools_call' });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      seen.map((s) => s.method),
      ['initialize', 'notifications/initialized', 'tools/list', 'tools/call'],
    );
    const call = seen[3]?.params as { name: string; arguments: { a: unknown; b: unknown } };
    assert.equal(call.name, 'add_numbers');
    assert.equal(typeof call.arguments.a, 'number');
    assert.equal(typeof call.arguments.b, 'number');
  });

  it('accepts a JSON MCP_CONFORMANCE_CONTEXT', async () => {
    const run = await runClient(url, {
      MCP_CONFORMANCE_SCENARIO: 'initialize',
      MCP_CONFORMANCE_CONTEXT: JSON.stringify({ name: 'initialize', client_id: 'x' }),
    });
    assert.equal(run.code, 0, run.stderr);
  });

  it('exits 1 on an unknown scenario, a bad context or no URL, without connecting', async () => {
    const unknown = await runClient(url, { MCP_CONFORMANCE_SCENARIO: 'no-such-scenario' });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown scenario "no-such-scenario"/);
    const badContext = await runClient(url, {
      MCP_CONFORMANCE_SCENARIO: 'initialize',
      MCP_CONFORMANCE_CONTEXT: '{not json',
    });
    assert.equal(badContext.code, 1);
    assert.match(badContext.stderr, /MCP_CONFORMANCE_CONTEXT is not JSON/);
    const noUrl = await runClient('not a url', { MCP_CONFORMANCE_SCENARIO: 'initialize' });
    assert.equal(noUrl.code, 1);
    assert.deepEqual(seen, []);
  });

  it('exits 1 when the flow fails (the tool is not listed)', async () => {
    const run = await runClient(url, { MCP_CONFORMANCE_SCENARIO: 'sse-retry' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /does not list the tool "test_reconnection"/);
  });
});
