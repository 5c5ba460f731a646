// The stable command other tools rely on: the example server protecting itself with --auth-issuer (JWT) and
// --auth-introspect (opaque tokens), as a real child process, with oidc-provider as the authorization server.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type OidcFixture, startOidcProvider } from '../fixtures/oidc.js';
import { freePort, initialize, post } from './helpers.js';

const SERVER = fileURLToPath(new URL('../../examples/everything/server.js', import.meta.url));

/** Starts the example server with `args`; resolves with its URL once it listens. */
function start(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      text += chunk;
      const m = /Streamable HTTP at (\S+),/.exec(text);
      if (m?.[1]) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${text}`)));
  });
}

describe('example server: --auth-issuer and --auth-introspect', { timeout: 60_000 }, () => {
  const fixtures: OidcFixture[] = [];
  const children: ChildProcess[] = [];
  after(async () => {
    for (const c of children) c.kill('SIGTERM');
    for (const f of fixtures) await f.stop();
  });

  test('--http PORT --auth-issuer URL: JWTs for http://127.0.0.1:PORT/mcp, metadata naming the issuer', async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const as = await startOidcProvider({ resource });
    fixtures.push(as);
    const { child, url } = await start(['--http', String(port), '--auth-issuer', as.issuer]);
    children.push(child);
    assert.equal(url, resource);
    const prm = (await (
      await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    assert.deepEqual([prm.resource, prm.authorization_servers], [resource, [as.issuer]]);
    assert.equal((await post(url, undefined, initialize())).status, 401);
    const { access_token } = await as.clientCredentialsToken();
    const ok = await post(url, access_token, initialize());
    assert.equal(ok.status, 200);
    assert.equal(
      (ok.body?.result as { serverInfo: { name: string } } | undefined)?.serverInfo.name,
      'mcpkit-everything',
    );
    const other = await as.clientCredentialsToken({ resource: 'http://127.0.0.1:1/mcp' });
    assert.equal((await post(url, other.access_token, initialize())).status, 401);
  });

  test('--auth-introspect URL with the credentials from the environment: opaque tokens', async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const as = await startOidcProvider({ resource, accessTokenFormat: 'opaque' });
    fixtures.push(as);
    const env = {
      ...process.env,
      MCPKIT_INTROSPECTION_CLIENT_ID: as.introspectionClient.clientId,
      MCPKIT_INTROSPECTION_CLIENT_SECRET: as.introspectionClient.clientSecret,
    };
    const { child, url } = await start(
      ['--http', String(port), '--auth-introspect', `${as.issuer}/token/introspection`],
      env,
    );
    children.push(child);
    const { access_token } = await as.clientCredentialsToken();
    assert.equal((await post(url, access_token, initialize())).status, 200);
    assert.equal((await post(url, 'made-up-opaque-token', initialize())).status, 401);
  });

  test('bad usage exits 2 with a message', () => {
    const env = {
      ...process.env,
      MCPKIT_INTROSPECTION_CLIENT_ID: '',
      MCPKIT_INTROSPECTION_CLIENT_SECRET: '',
    };
    for (const [args, message] of [
      [['--auth-issuer', 'http://127.0.0.1:1'], /need --http/],
      [['--http', '0', '--auth-issuer', 'http://127.0.0.1:1'], /fixed port/],
      [['--http', '3999', '--auth-issuer', 'not a url'], /needs a URL/],
      [['--http', '3999', '--auth-introspect', 'http://127.0.0.1:1/i'], /MCPKIT_INTROSPECTION_CLIENT_ID/],
    ] as const) {
      const run = spawnSync(process.execPath, [SERVER, ...args], { encoding: 'utf8', env });
      assert.equal(run.status, 2, run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, message);
    }
  });
});
