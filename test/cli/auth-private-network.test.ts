// `mcpkit auth login` against a server whose discovery names an authorization server on an address it may not send
// this client to: exit 3 at once, naming the URL and the rule, with the hint of how the person can allow it (not
// "run: mcpkit auth login", which is what was just run), and nothing requested there.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { freePort, mcpkit, startExampleHttp } from './helpers.js';

describe('mcpkit auth login: a private authorization server', { timeout: 300_000 }, () => {
  let server: ChildProcess | undefined;
  let url = '';
  before(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    // 192.0.2.1 is TEST-NET-1 (documentation, unroutable): a client that does try it reaches nothing.
    ({ child: server } = await startExampleHttp(['--auth-issuer', 'https://192.0.2.1'], port));
  });
  after(() => {
    server?.kill('SIGTERM');
  });

  test('refused before any request, with the way to allow it', async () => {
    const run = await mcpkit(['auth', 'login', url, '--no-browser']);
    assert.equal(run.code, 3, run.stderr);
    assert.match(
      run.stderr,
      /Refused the authorization server https:\/\/192\.0\.2\.1\/: it is on a reserved address/,
    );
    assert.match(run.stderr, /MCPKIT_ALLOW_PRIVATE_NETWORK=1/);
    assert.doesNotMatch(run.stderr, /run: mcpkit auth login/);
  });
});
