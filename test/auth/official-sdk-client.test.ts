// The official SDK 1.x client, with its own OAuth support (StreamableHTTPClientTransport + authProvider), runs the
// whole flow against our protected server with oidc-provider as the authorization server: 401, Protected Resource
// Metadata, authorization-server metadata, dynamic registration, authorization code with PKCE and the resource
// parameter, token, the call with the token; then step-up on 403 insufficient_scope.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { jwtVerifier } from '../../src/auth.js';
import { type RunningServer, serve } from '../../src/node.js';
import { type OidcFixture, startOidcProvider } from '../fixtures/oidc.js';
import { authOptions, freePort, protectedServer } from './helpers.js';
import { FixtureProvider } from './sdk-provider.js';

/** Connects, completing the authorization the first attempt starts (as an app does after its redirect). */
async function connect(url: string, provider: FixtureProvider): Promise<Client> {
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const client = new Client({ name: 'official-oauth', version: '1.0.0' });
  try {
    await client.connect(first);
    return client;
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || provider.code === undefined) throw e;
  }
  await first.finishAuth(provider.code);
  const again = new Client({ name: 'official-oauth', version: '1.0.0' });
  await again.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return again;
}

describe('the official SDK 1.x client with OAuth against our protected server', { timeout: 60_000 }, () => {
  let as: OidcFixture;
  let running: RunningServer;
  let resource: string;

  before(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    as = await startOidcProvider({ resource });
    running = await serve(protectedServer(), {
      port,
      auth: authOptions(resource, as.issuer, jwtVerifier({ issuer: as.issuer, audience: resource })),
    });
  });
  after(async () => {
    await running.close();
    await as.stop();
  });

  test('discovers, registers, authorizes with PKCE and calls a tool with the token', async () => {
    const provider = new FixtureProvider(as);
    const client = await connect(running.url, provider);
    try {
      assert.equal(provider.authorizations, 1);
      assert.equal(provider.scopesAsked[0], 'mcp:read mcp:write', 'the scopes of the challenge');
      assert.ok(provider.tokens()?.access_token);
      const who = await client.callTool({ name: 'whoami', arguments: {} });
      const auth = who.structuredContent as Record<string, unknown>;
      assert.equal(auth.subject, as.accountId);
      assert.equal(auth.aud, resource, 'the token was issued for this server (resource parameter)');
      assert.deepEqual(auth.scopes, ['mcp:read', 'mcp:write']);
      const tools = await client.listTools();
      assert.deepEqual(
        tools.tools.map((t) => t.name),
        ['whoami', 'ask'],
        'a tool needing mcp:admin is hidden',
      );
    } finally {
      await client.close();
    }
  });

  test('a tool needing more scope: 403 insufficient_scope naming it; the SDK re-authorizes with it and succeeds', async () => {
    // Without a refresh token the SDK must run a new authorization for the challenge's scopes (with one, SDK 1.x
    // refreshes with the old scopes and gives up: "Server returned 403 after trying upscoping"). The client is
    // pre-registered without a `scope`: registered dynamically, SDK 1.x names the first challenge's scopes, and
    // oidc-provider then holds the client to them (the step-up authorization answers invalid_scope).
    const registered = await as.register({
      redirect_uris: ['http://127.0.0.1:8976/callback'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const provider = new FixtureProvider(as, false);
    provider.saveClientInformation({ client_id: String(registered.client_id) });
    const client = await connect(running.url, provider);
    let stepUp: unknown;
    try {
      await client.callTool({ name: 'admin', arguments: {} });
    } catch (e) {
      stepUp = e;
    } finally {
      await client.close();
    }
    assert.ok(
      stepUp instanceof UnauthorizedError,
      `the step-up authorization was started: ${String(stepUp)}`,
    );
    assert.deepEqual(provider.scopesAsked, ['mcp:read mcp:write', 'mcp:read mcp:write mcp:admin']);
    // The app finishes the authorization the SDK started (as after its redirect), then connects again.
    await new StreamableHTTPClientTransport(new URL(running.url), { authProvider: provider }).finishAuth(
      provider.code as string,
    );
    const stepped = await connect(running.url, provider);
    try {
      const done = await stepped.callTool({ name: 'admin', arguments: {} });
      assert.deepEqual(done.content, [{ type: 'text', text: 'admin done' }]);
      assert.ok(
        (await stepped.listTools()).tools.some((t) => t.name === 'admin'),
        'now listed',
      );
    } finally {
      await stepped.close();
    }
  });
});
