// OAuth from the command line against the example server protected by --auth-issuer, with oidc-provider as the
// authorization server: a command needing a sign-in is exit 3 at once; `auth login --no-browser` prints the
// authorization URL (the test plays the browser) and stores the tokens 0600; the other commands then use them;
// `auth status` and `auth logout`.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type OidcFixture, startOidcProvider } from '../fixtures/oidc.js';
import { collect, freePort, json, MCPKIT, mcpkit, ROOT, startExampleHttp, tempHome } from './helpers.js';

describe('mcpkit auth against a protected server', { timeout: 300_000 }, () => {
  let as: OidcFixture | undefined;
  let server: ChildProcess | undefined;
  let url = '';
  const home = tempHome();
  const env = { XDG_CONFIG_HOME: home };
  before(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    as = await startOidcProvider({ resource: url });
    ({ child: server } = await startExampleHttp(['--auth-issuer', as.issuer], port));
  });
  after(async () => {
    server?.kill('SIGTERM');
    await as?.stop();
  });

  test('without a sign-in: exit 3 at once, saying how to sign in', async () => {
    const run = await mcpkit(['tools', url], { env });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /requires authorization/);
    assert.match(run.stderr, new RegExp(`run: mcpkit auth login ${url}`));
    const asJson = await mcpkit(['ping', url, '--format', 'json'], { env });
    assert.equal(asJson.code, 3);
    assert.equal(JSON.parse(asJson.stderr).error.kind, 'auth_required');
    const status = await mcpkit(['auth', 'status', url], { env });
    assert.equal(status.code, 3);
    assert.match(status.stdout, /not signed in/);
  });

  test('auth login without a terminal and without --no-browser: exit 3 at once', async () => {
    const run = await mcpkit(['auth', 'login', url], { env });
    assert.equal(run.code, 3);
    assert.match(run.stderr, /--no-browser/);
  });

  test('auth login --no-browser: the printed URL signed in by the test, tokens stored 0600, then used', async () => {
    const fixture = as;
    assert.ok(fixture);
    const child = spawn(
      process.execPath,
      [MCPKIT, 'auth', 'login', url, '--no-browser', '--scope', 'mcp:read', '--format', 'json'],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    // Play the browser as soon as the authorization URL is printed: sign in, then follow the redirect to the
    // command's loopback receiver.
    let seen = '';
    const played = new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const m = /Sign in at:\n(\S+)\n/.exec(seen);
        if (m?.[1] && !seen.includes('(played)')) {
          seen += '(played)';
          fixture
            .authorize(m[1])
            .then((redirect) => fetch(redirect))
            .then(async (answer) => {
              assert.equal(answer.status, 200, await answer.text());
              resolve();
            }, reject);
        }
      });
    });
    const [run] = await Promise.all([collect(child, undefined, 120_000), played]);
    assert.equal(run.code, 0, `${run.stdout}\n${seen}${run.stderr}`);
    const summary = json<{ signedIn: boolean; issuer: string; tokenFile: string }>(run);
    assert.equal(summary.signedIn, true);
    assert.equal(summary.issuer, fixture.issuer);
    assert.equal(summary.tokenFile, join(home, 'mcpkit', 'oauth.json'));
    assert.equal(statSync(summary.tokenFile).mode & 0o777, 0o600);

    const tools = await mcpkit(['tools', url], { env });
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /^echo\s/m);
    const status = await mcpkit(['auth', 'status', url, '--format', 'json'], { env });
    assert.equal(status.code, 0, status.stderr);
    const s = json<{ signedIn: boolean; issuer: string; expired: boolean }>(status);
    assert.deepEqual([s.signedIn, s.issuer, s.expired], [true, fixture.issuer, false]);

    const logout = await mcpkit(['auth', 'logout', url], { env });
    assert.equal(logout.code, 0, logout.stderr);
    assert.match(logout.stdout, /signed out/);
    assert.equal((await mcpkit(['tools', url], { env })).code, 3);
    assert.equal((await mcpkit(['auth', 'status', url], { env })).code, 3);
  });

  test('auth against a stdio target is a usage error', async () => {
    const run = await mcpkit(['auth', 'status', 'x', '--config', join(home, 'none.json')], { env });
    assert.equal(run.code, 1);
  });
});
