// The example server protected with --auth-issuer names its scopes, in the 401 challenge (`scope=`) and in the
// Protected Resource Metadata (`scopes_supported`), as the specification says servers SHOULD: the official SDK 1.x
// client then asks for them, and its own OAuth flow completes against an oidc-provider whose resource server grants
// nothing that is not asked for (a request without the scopes is refused: access_denied).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startExampleHttp } from '../cli/helpers.js';
import { type OidcFixture, startOidcProvider } from '../fixtures/oidc.js';
import { freePort } from './helpers.js';
import { FixtureProvider } from './sdk-provider.js';

describe('the example server with --auth-issuer names its scopes', { timeout: 90_000 }, () => {
  let as: OidcFixture;
  let server: ChildProcess | undefined;
  let url: string;

  before(async () => {
    const port = await freePort();
    as = await startOidcProvider({ resource: `http://127.0.0.1:${port}/mcp` });
    ({ child: server, url } = await startExampleHttp(['--auth-issuer', as.issuer], port));
  });
  after(async () => {
    server?.kill('SIGTERM');
    await as?.stop();
  });

  test('in the challenge and the metadata', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await res.body?.cancel();
    assert.equal(res.status, 401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /scope="mcp:read mcp:write"/, challenge);
    const prm = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url))).json()) as {
      scopes_supported?: string[];
    };
    assert.deepEqual(prm.scopes_supported, ['mcp:read', 'mcp:write']);
  });

  test("the official SDK 1.x client's own OAuth flow completes: it asks for the scopes", async () => {
    const provider = new FixtureProvider(as);
    const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    const client = new Client({ name: 'official-oauth-scopes', version: '1.0.0' });
    await assert.rejects(client.connect(first), UnauthorizedError);
    assert.equal(provider.error, undefined, `the authorization server answered ${provider.error}`);
    assert.deepEqual(provider.scopesAsked, ['mcp:read mcp:write']);
    assert.ok(provider.code);
    await first.finishAuth(provider.code);
    const again = new Client({ name: 'official-oauth-scopes', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    try {
      const result = await again.callTool({ name: 'echo', arguments: { text: 'with scopes' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'echo: with scopes' }]);
    } finally {
      await again.close();
    }
  });
});
