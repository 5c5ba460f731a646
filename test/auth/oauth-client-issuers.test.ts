// Registrations are kept per authorization server: when the MCP server moves to another issuer, the client
// registers there afresh and never sends the first server's client id or secret to the second (SEP-2352).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryTokenStore, OAuthClient } from '../../src/auth.js';
import type { AuthChallenge } from '../../src/index.js';

const RS = 'https://rs.example';
const SERVER = new URL(`${RS}/mcp`);
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

test('a second authorization server gets its own registration; the first one is kept for its issuer', async () => {
  let current = 'https://as-one.example';
  const registered: string[] = [];
  const tokenCalls: { issuer: string; authorization: string | null; clientId: string | null }[] = [];
  const fetch = async (url: URL, init: RequestInit): Promise<Response> => {
    const body = new URLSearchParams(typeof init.body === 'string' ? '' : (init.body?.toString() ?? ''));
    if (url.href === `${RS}/.well-known/oauth-protected-resource/mcp`) {
      return json({ resource: SERVER.href, authorization_servers: [current] });
    }
    const issuer = url.origin;
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (url.pathname === '/register') {
      registered.push(issuer);
      return json({ client_id: `id-at-${url.hostname}`, client_secret: `secret-at-${url.hostname}` }, 201);
    }
    if (url.pathname === '/token') {
      const authorization = new Headers(init.headers).get('authorization');
      tokenCalls.push({ issuer, authorization, clientId: body.get('client_id') });
      return json({ access_token: `token-from-${url.hostname}`, token_type: 'Bearer' });
    }
    return new Response(null, { status: 404 });
  };
  const store = new MemoryTokenStore();
  const auth = new OAuthClient({
    grant: {
      type: 'authorization_code',
      redirectUri: 'http://127.0.0.1:9/cb',
      authorize: async (url) => `http://127.0.0.1:9/cb?code=c&state=${url.searchParams.get('state')}`,
    },
    store,
    fetch,
  });
  const challenge: AuthChallenge = {
    status: 401,
    headers: new Headers({ 'www-authenticate': 'Bearer' }),
    url: SERVER,
    sentAuthorization: undefined,
  };
  await auth.authorization(SERVER);
  await auth.unauthorized(challenge, undefined);
  assert.equal(await auth.authorization(SERVER), 'Bearer token-from-as-one.example');

  current = 'https://as-two.example';
  await auth.unauthorized({ ...challenge, sentAuthorization: 'Bearer token-from-as-one.example' }, undefined);
  assert.equal(await auth.authorization(SERVER), 'Bearer token-from-as-two.example');

  assert.deepEqual(registered, ['https://as-one.example', 'https://as-two.example']);
  const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;
  assert.deepEqual(
    tokenCalls.map((c) => [c.issuer, c.authorization]),
    [
      ['https://as-one.example', basic('id-at-as-one.example', 'secret-at-as-one.example')],
      ['https://as-two.example', basic('id-at-as-two.example', 'secret-at-as-two.example')],
    ],
  );
  assert.equal((await store.loadClient('https://as-one.example'))?.clientId, 'id-at-as-one.example');
  assert.equal((await store.loadClient('https://as-two.example'))?.clientId, 'id-at-as-two.example');
});

/** An MCP server at RS whose metadata names `current()` (or none: the 2025-03-26 fallback); token calls logged. */
function world(current: () => string | undefined, tokenCalls: string[]) {
  return async (url: URL, init: RequestInit): Promise<Response> => {
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      const as = current();
      if (as === undefined) return new Response(null, { status: 404 });
      return json({ resource: SERVER.href, authorization_servers: [as] });
    }
    const issuer = url.origin;
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
      });
    }
    if (url.pathname === '/token') {
      tokenCalls.push(`${issuer} ${new Headers(init.headers).get('authorization') ?? ''}`);
      return json({ access_token: `token-from-${url.hostname}`, token_type: 'Bearer' });
    }
    return new Response(null, { status: 404 });
  };
}

const challenge401 = (sent: string | undefined): AuthChallenge => ({
  status: 401,
  headers: new Headers({ 'www-authenticate': 'Bearer' }),
  url: SERVER,
  sentAuthorization: sent,
});

test('pre-registered credentials without an issuer are pinned to the first authorization server', async () => {
  let current = 'https://as-one.example';
  const tokenCalls: string[] = [];
  const store = new MemoryTokenStore();
  const options = {
    grant: { type: 'client_credentials' as const },
    credentials: { clientId: 'app', clientSecret: 's3cret' },
    store,
    fetch: world(() => current, tokenCalls),
  };
  const auth = new OAuthClient(options);
  await auth.authorization(SERVER);
  await auth.unauthorized(challenge401(undefined), undefined);
  assert.equal(await auth.authorization(SERVER), 'Bearer token-from-as-one.example');
  current = 'https://evil.example';
  await assert.rejects(
    auth.unauthorized(challenge401('Bearer token-from-as-one.example'), undefined),
    /first used with https:\/\/as-one\.example/,
  );
  // A new client over the same store remembers the pin.
  const again = new OAuthClient({ ...options, store });
  await again.authorization(SERVER);
  await assert.rejects(
    again.unauthorized(challenge401('Bearer token-from-as-one.example'), undefined),
    /first used with/,
  );
  assert.equal(tokenCalls.length, 1);
  assert.match(tokenCalls[0] ?? '', /^https:\/\/as-one\.example Basic /);
});

test('a secret without an issuer is never sent in the 2025-03-26 fallback; with an explicit issuer it is', async () => {
  const tokenCalls: string[] = [];
  const fetch = world(() => undefined, tokenCalls);
  const refused = new OAuthClient({
    grant: { type: 'client_credentials' },
    credentials: { clientId: 'app', clientSecret: 's3cret' },
    fetch,
  });
  await refused.authorization(SERVER);
  await assert.rejects(refused.unauthorized(challenge401(undefined), undefined), /2025-03-26 fallback/);
  assert.deepEqual(tokenCalls, []);
  const explicit = new OAuthClient({
    grant: { type: 'client_credentials' },
    credentials: { clientId: 'app', clientSecret: 's3cret', issuer: RS },
    fetch,
  });
  await explicit.authorization(SERVER);
  await explicit.unauthorized(challenge401(undefined), undefined);
  assert.equal(await explicit.authorization(SERVER), 'Bearer token-from-rs.example');
  assert.equal(tokenCalls.length, 1);
});

test("a remote server's resource_metadata on loopback is ignored (the well-known URIs are used), its loopback HTTP issuer refused", async () => {
  const fetched: string[] = [];
  let issuer = 'https://as.example';
  const inner = world(() => issuer, []);
  const fetch = async (url: URL, init: RequestInit) => {
    fetched.push(url.href);
    return inner(url, init);
  };
  const auth = new OAuthClient({
    grant: { type: 'client_credentials' },
    credentials: { clientId: 'app', issuer: 'https://as.example' },
    fetch,
  });
  await auth.authorization(SERVER);
  const challenge: AuthChallenge = {
    ...challenge401(undefined),
    headers: new Headers({ 'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1:2375/prm"' }),
  };
  await auth.unauthorized(challenge, undefined);
  assert.equal(await auth.authorization(SERVER), 'Bearer token-from-as.example');
  assert.ok(!fetched.some((u) => u.includes('127.0.0.1')), fetched.join(' '));
  assert.equal(fetched[0], `${RS}/.well-known/oauth-protected-resource/mcp`);

  issuer = 'http://127.0.0.1:8080';
  fetched.length = 0;
  const other = new OAuthClient({
    grant: { type: 'client_credentials' },
    credentials: { clientId: 'app' },
    fetch,
  });
  await other.authorization(SERVER);
  await assert.rejects(
    other.unauthorized(challenge401(undefined), undefined),
    /AUTH_INSECURE_ENDPOINT|must use HTTPS/,
  );
  assert.ok(!fetched.some((u) => u.includes('127.0.0.1')), fetched.join(' '));
});
