// One exit code per class of failure, each meaning what docs/cli.md says: a request that times out on a running
// server is 7 (it was 2, "did not start", over stdio and 4 over HTTP), a server's JSON-RPC error is 6 (it was 1,
// "usage"), a 401 or 403 without a Bearer challenge is 6 with its status and the body's first line (it was 3 with the
// `mcpkit auth login` hint, which only an OAuth challenge gets), and a server that fails to start has its stderr
// printed once.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXAMPLE_STDIO, mcpkit, startExampleHttp, tempHome } from './helpers.js';

/** The JSON error object a `--format json` run printed on stderr. */
function jsonError(stderr: string): Record<string, unknown> {
  return (JSON.parse(stderr) as { error: Record<string, unknown> }).error;
}

/** A stdio server that answers the handshake and the tool list, then never answers a call. */
function silentServer(): string {
  const file = join(tempHome(), 'silent.mjs');
  writeFileSync(
    file,
    [
      "import { createInterface } from 'node:readline';",
      'for await (const line of createInterface({ input: process.stdin })) {',
      '  const m = JSON.parse(line);',
      "  const reply = (body) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...body }) + '\\n');",
      "  if (m.method === 'initialize') reply({ result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'silent', version: '1' } } });",
      "  else if (m.method === 'tools/list') reply({ result: { tools: [{ name: 'wait', inputSchema: { type: 'object' } }] } });",
      "  else if (m.method === 'tools/call') console.error('got the call; not answering');",
      "  else if (m.id !== undefined) reply({ error: { code: -32601, message: 'Method not found' } });",
      '}',
    ].join('\n'),
  );
  return file;
}

/** An HTTP server answering every request with `status`, `headers` and a two-line text body. */
async function refusing(
  status: number,
  headers: Record<string, string> = {},
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    res
      .writeHead(status, { 'content-type': 'text/plain', ...headers })
      .end('Invalid Host header: evil.example\nmore\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}/mcp`, server };
}

describe('mcpkit: an exit code per failure class', { timeout: 300_000 }, () => {
  const servers: Server[] = [];
  let example: ChildProcess | undefined;
  let exampleUrl = '';
  before(async () => {
    ({ child: example, url: exampleUrl } = await startExampleHttp());
  });
  after(() => {
    example?.kill('SIGTERM');
    for (const server of servers) server.close();
  });

  test('a call a running server never answers: exit 7 "timeout", not 2 "did not start"', async () => {
    const call = (...format: string[]) =>
      mcpkit([
        'call',
        'wait',
        '--timeout',
        '300',
        '--era',
        'legacy',
        ...format,
        '--',
        process.execPath,
        silentServer(),
      ]);
    const run = await call();
    assert.equal(run.code, 7, run.stderr);
    assert.match(run.stderr, /^error: .* did not answer in time: Request timed out after 300 ms/m);
    assert.match(run.stderr, /give --timeout <ms> to wait longer/);
    assert.doesNotMatch(run.stderr, /did not start/);
    const asJson = await call('--format', 'json');
    assert.equal(asJson.code, 7);
    assert.deepEqual(
      [jsonError(asJson.stderr).kind, jsonError(asJson.stderr).code],
      ['timeout', 'REQUEST_TIMEOUT'],
    );
  });

  test('a URL that takes the request and never answers: exit 7, not 4 "unreachable"', async () => {
    const silent = createServer((req) => req.resume());
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const url = `http://127.0.0.1:${address.port}/mcp`;
    const run = await mcpkit(['tools', url, '--timeout', '300', '--era', 'legacy', '--format', 'json']);
    assert.equal(run.code, 7, run.stderr);
    assert.equal(jsonError(run.stderr).kind, 'timeout');
    silent.closeAllConnections();
  });

  test('a server\'s JSON-RPC error: exit 6 "server_error" with its code, not 1 "usage"', async () => {
    const run = await mcpkit(['read', 'test://no-such-resource', ...EXAMPLE_STDIO]);
    assert.equal(run.code, 6, run.stderr);
    assert.match(run.stderr, /answered with an error: .*test:\/\/no-such-resource \(JSON-RPC error -32\d+\)/);
    const asJson = await mcpkit(['read', exampleUrl, 'test://no-such-resource', '--format', 'json']);
    assert.equal(asJson.code, 6, asJson.stderr);
    const error = jsonError(asJson.stderr);
    assert.equal(error.kind, 'server_error');
    assert.equal(typeof error.code, 'number');
  });

  test('a 403 for a foreign Origin (a real server): exit 6 with the status and the reason, no sign-in hint', async () => {
    const run = await mcpkit(['tools', exampleUrl, '--header', 'Origin: http://evil.example']);
    assert.equal(run.code, 6, run.stderr);
    assert.match(
      run.stderr,
      /refused the request: HTTP 403 Forbidden: Forbidden: Origin "http:\/\/evil\.example" is not allowed/,
    );
    assert.match(run.stderr, /this is no OAuth challenge/);
    assert.doesNotMatch(run.stderr, /requires authorization|auth login http/);
  });

  test("a bare 401 or 403: exit 6 with the body's first line; a Bearer challenge: exit 3 and the sign-in hint", async () => {
    for (const status of [401, 403]) {
      const { url, server } = await refusing(status, {
        'www-authenticate': 'Basic realm="Bearer inside quotes"',
      });
      servers.push(server);
      const run = await mcpkit(['ping', url, '--format', 'json']);
      assert.equal(run.code, 6, run.stderr);
      const error = jsonError(run.stderr);
      assert.equal(error.kind, 'server_error');
      assert.equal(error.status, status);
      assert.match(
        String(error.message),
        new RegExp(`HTTP ${status} \\w+: Invalid Host header: evil\\.example$`),
      );
    }
    const { url, server } = await refusing(401, {
      'www-authenticate': 'Bearer realm="mcp", error="invalid_token"',
    });
    servers.push(server);
    const run = await mcpkit(['ping', url]);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /requires authorization/);
    assert.match(run.stderr, new RegExp(`run: mcpkit auth login ${url}`));
  });

  test('a server that fails to start: exit 2, its stderr printed once', async () => {
    // Joined when it runs, so that the command line the message shows does not carry the text itself.
    const run = await mcpkit([
      'tools',
      '--',
      process.execPath,
      '-e',
      "console.error(['boom', 'no API key'].join(': ')); process.exit(1)",
    ]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr.split('boom: no API key').length - 1, 1, run.stderr);
    assert.match(run.stderr, /--- the server's stderr \(last lines\) ---\nboom: no API key\n/);
  });

  test('a tool that returns isError: exit 5', async () => {
    const run = await mcpkit(['call', 'test_error_handling', ...EXAMPLE_STDIO]);
    assert.equal(run.code, 5, run.stderr);
  });
});
