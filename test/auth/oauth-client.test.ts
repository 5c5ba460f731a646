// Our OAuth client (mcpkit/auth OAuthClient over HttpClientTransport) against our protected server and a real
// authorization server (oidc-provider): discovery, dynamic registration, the authorization code flow through the
// loopback receiver (the fixture plays the browser), step-up, refresh on 401 and before expiry, a token file shared
// by two clients; JWT access tokens and opaque ones checked by introspection.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { introspectionVerifier, jwtVerifier, OAuthClient, type OAuthClientOptions } from '../../src/auth.js';
import { Client, HttpClientTransport, SseLegacyClientTransport } from '../../src/index.js';
import { FileTokenStore, LoopbackReceiver, type RunningServer, serve } from '../../src/node.js';
import { type OidcFixture, type OidcProviderOptions, startOidcProvider } from '../fixtures/oidc.js';
import { authOptions, freePort, protectedServer } from './helpers.js';

const TIMEOUT = { timeout: 60_000 };

/** The fixture's browser, then the browser's last hop: the redirect lands on our loopback receiver. */
function browserFor(as: OidcFixture, counter: { authorizations: number; scopes: string[] }) {
  return async (url: URL) => {
    counter.authorizations++;
    counter.scopes.push(url.searchParams.get('scope') ?? '');
    const back = await as.authorize(url);
    await (await fetch(back)).text();
  };
}

interface Setup {
  as: OidcFixture;
  running: RunningServer;
  resource: string;
  receiver: LoopbackReceiver;
  counter: { authorizations: number; scopes: string[] };
}

async function setup(mode: 'jwt' | 'introspection', options: OidcProviderOptions = {}): Promise<Setup> {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const as = await startOidcProvider({
    resource,
    ...(mode === 'introspection' ? { accessTokenFormat: 'opaque' as const } : {}),
    ...options,
  });
  const verifier =
    mode === 'jwt'
      ? jwtVerifier({ issuer: as.issuer, audience: resource })
      : introspectionVerifier({
          issuer: as.issuer,
          audience: resource,
          clientId: as.introspectionClient.clientId,
          clientSecret: as.introspectionClient.clientSecret,
          cacheTtlMs: 0,
        });
  const running = await serve(protectedServer(), { port, auth: authOptions(resource, as.issuer, verifier) });
  const receiver = await LoopbackReceiver.start({ timeoutMs: 20_000 });
  return { as, running, resource, receiver, counter: { authorizations: 0, scopes: [] } };
}

async function teardown(s: Setup): Promise<void> {
  await s.receiver.close();
  await s.running.close();
  await s.as.stop();
}

function oauth(s: Setup, extra: Partial<OAuthClientOptions> = {}): OAuthClient {
  const open = browserFor(s.as, s.counter);
  return new OAuthClient({
    grant: {
      type: 'authorization_code',
      redirectUri: s.receiver.redirectUri,
      authorize: (url, signal) => s.receiver.authorize(url, open, signal),
    },
    clientMetadata: { client_name: 'mcpkit e2e' },
    ...extra,
  });
}

async function connect(
  s: Setup,
  auth: OAuthClient,
  era: 'stateful' | 'stateless' = 'stateful',
): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { era });
  await client.connect(new HttpClientTransport(s.resource, { auth }));
  return client;
}

async function whoami(client: Client): Promise<Record<string, unknown>> {
  const result = await client.callTool('whoami', {});
  assert.equal(result.isError ?? false, false, JSON.stringify(result));
  return result.structuredContent as Record<string, unknown>;
}

for (const mode of ['jwt', 'introspection'] as const) {
  describe(`our OAuth client against our protected server (${mode} access tokens)`, TIMEOUT, () => {
    let s: Setup;
    before(async () => {
      s = await setup(mode);
    });
    after(() => teardown(s));

    test('a 401 runs discovery, registration and the code flow; then step-up to a scope a tool needs', async () => {
      const auth = oauth(s);
      const client = await connect(s, auth);
      try {
        const me = await whoami(client);
        assert.equal(me.subject, s.as.accountId);
        assert.equal(s.counter.authorizations, 1);
        // No scope in the challenge: the resource's scopes_supported, plus offline_access which the AS offers.
        assert.deepEqual(s.counter.scopes[0]?.split(' ').sort(), ['mcp:read', 'mcp:write', 'offline_access']);
        // admin needs mcp:admin: 403 insufficient_scope, a second authorization with the union of scopes.
        const admin = await client.callTool('admin', {});
        assert.equal(admin.isError ?? false, false, JSON.stringify(admin));
        assert.equal(s.counter.authorizations, 2);
        assert.deepEqual(s.counter.scopes[1]?.split(' ').sort(), [
          'mcp:admin',
          'mcp:read',
          'mcp:write',
          'offline_access',
        ]);
        assert.ok(((await whoami(client)).scopes as string[]).includes('mcp:admin'));
      } finally {
        await client.close();
      }
    });

    test('the stateless revision carries the token on every request too', async () => {
      const auth = oauth(s);
      const client = await connect(s, auth, 'stateless');
      try {
        assert.equal((await whoami(client)).subject, s.as.accountId);
        assert.equal(client.era, 'stateless');
      } finally {
        await client.close();
      }
    });

    test('a person slower than the era probe signs in once: the probe giving up does not cancel the sign-in', async () => {
      const before = s.counter.authorizations;
      const open = browserFor(s.as, s.counter);
      const auth = new OAuthClient({
        grant: {
          type: 'authorization_code',
          redirectUri: s.receiver.redirectUri,
          // The person takes longer than the probe's whole time limit to finish in the browser.
          authorize: (url, signal) =>
            s.receiver.authorize(
              url,
              async (u) => {
                await new Promise((r) => setTimeout(r, 1_500));
                await open(u);
              },
              signal,
            ),
        },
        clientMetadata: { client_name: 'mcpkit e2e' },
      });
      const client = new Client({ name: 'e2e', version: '1.0.0' }, { probeTimeoutMs: 500 });
      await client.connect(new HttpClientTransport(s.resource, { auth }));
      try {
        assert.equal((await whoami(client)).subject, s.as.accountId);
        assert.equal(s.counter.authorizations - before, 1);
      } finally {
        await client.close();
      }
    });
  });
}

describe(
  'tokens that expire: refresh on 401 and before expiry; a token file shared by two clients',
  TIMEOUT,
  () => {
    let s: Setup;
    let dir: string;
    before(async () => {
      s = await setup('jwt', { accessTokenTtl: 2 });
      dir = mkdtempSync(join(tmpdir(), 'mcpkit-oauth-e2e-'));
    });
    after(async () => {
      rmSync(dir, { recursive: true, force: true });
      await teardown(s);
    });

    test('an expired token is refreshed after its 401, with no new authorization', async () => {
      const store = new FileTokenStore(join(dir, 'tokens.json'));
      const auth = oauth(s, { store, refreshLeewaySeconds: 0 });
      const client = await connect(s, auth);
      try {
        await whoami(client);
        assert.equal(s.counter.authorizations, 1);
        const stored = await store.loadTokens(s.resource);
        assert.ok(stored?.refreshToken, 'a refresh token was issued and stored');
        await new Promise((r) => setTimeout(r, 2_500));
        await whoami(client);
        assert.equal(s.counter.authorizations, 1, 'refreshed, not authorized again');
        assert.notEqual((await store.loadTokens(s.resource))?.accessToken, stored.accessToken);
      } finally {
        await client.close();
      }
    });

    test('a second client on the same token file needs no authorization; a long leeway refreshes before sending', async () => {
      const store = new FileTokenStore(join(dir, 'tokens.json'));
      const before = (await store.loadTokens(s.resource))?.accessToken;
      const auth = oauth(s, { store, refreshLeewaySeconds: 3600 });
      const client = await connect(s, auth);
      try {
        assert.equal((await whoami(client)).subject, s.as.accountId);
        assert.equal(s.counter.authorizations, 1);
        assert.notEqual((await store.loadTokens(s.resource))?.accessToken, before);
      } finally {
        await client.close();
      }
    });
  },
);

describe('the legacy HTTP+SSE transport carries the token too (GET stream and every POST)', TIMEOUT, () => {
  test('our OAuth client over SseLegacyClientTransport against our protected legacy endpoint', async () => {
    const port = await freePort();
    // One resource for the whole origin, so it covers both /mcp and the legacy /sse.
    const resource = `http://127.0.0.1:${port}/`;
    const as = await startOidcProvider({ resource });
    const running = await serve(protectedServer(), {
      port,
      auth: authOptions(resource, as.issuer, jwtVerifier({ issuer: as.issuer, audience: resource })),
    });
    const receiver = await LoopbackReceiver.start({ timeoutMs: 20_000 });
    const s: Setup = { as, running, resource, receiver, counter: { authorizations: 0, scopes: [] } };
    try {
      assert.ok(running.sseUrl);
      const client = new Client({ name: 'e2e', version: '1.0.0' }, { era: 'stateful' });
      await client.connect(new SseLegacyClientTransport(running.sseUrl, { auth: oauth(s) }));
      try {
        assert.equal((await whoami(client)).subject, as.accountId);
        assert.equal(s.counter.authorizations, 1);
      } finally {
        await client.close();
      }
    } finally {
      await teardown(s);
    }
  });
});
