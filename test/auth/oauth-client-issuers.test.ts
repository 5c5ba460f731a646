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
