// The OAuth client facing a hostile or broken authorization server, resource or redirect: every case a clear
// McpkitError with its code, nothing crashing, nothing sent where it must not go, no token or secret in a message.
// The network is an in-memory fetch (so real HTTPS host names can be used) recording every request.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OAuthClient, type OAuthClientOptions } from '../../src/auth.js';
import type { AuthChallenge } from '../../src/index.js';
import { Client, HttpClientTransport, McpkitError } from '../../src/index.js';

const RS = 'https://rs.example';
const AS = 'https://as.example';
const SERVER = new URL(`${RS}/mcp`);
const SECRET = 'SUPER-SECRET-VALUE';
const TOKEN = 'ACCESS-TOKEN-VALUE';

type Route = (request: { url: URL; init: RequestInit; body: URLSearchParams }) => Response;

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

function prm(overrides: Record<string, unknown> = {}): Route {
  return () => json({ resource: `${RS}/mcp`, authorization_servers: [AS], ...overrides });
}

function asMetadata(overrides: Record<string, unknown> = {}): Route {
  return () =>
    json({
      issuer: AS,
      authorization_endpoint: `${AS}/authorize`,
      token_endpoint: `${AS}/token`,
      registration_endpoint: `${AS}/register`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
      ...overrides,
    });
}

/** A working world; each test replaces the route it breaks. */
function world(overrides: Record<string, Route> = {}) {
  const routes: Record<string, Route> = {
    [`${RS}/.well-known/oauth-protected-resource/mcp`]: prm(),
    [`${AS}/.well-known/oauth-authorization-server`]: asMetadata(),
    [`${AS}/register`]: () => json({ client_id: 'c1', token_endpoint_auth_method: 'none' }, 201),
    [`${AS}/token`]: () => json({ access_token: TOKEN, token_type: 'Bearer', expires_in: 3600 }),
    ...overrides,
  };
  const seen: string[] = [];
  const fetch = async (url: URL, init: RequestInit): Promise<Response> => {
    const key = `${url.origin}${url.pathname}`;
    seen.push(key);
    const body = new URLSearchParams(
      typeof init.body === 'string' ? init.body : (init.body?.toString() ?? ''),
    );
    const route = routes[key];
    return route ? route({ url, init, body }) : new Response('not found', { status: 404 });
  };
  return { fetch, seen };
}

/** A user who approves: the redirect carries the code, the request's state and the issuer (or what `reply` makes of them). */
function user(reply: (state: string) => Record<string, string> = (state) => ({ code: 'c', state, iss: AS })) {
  const calls: URL[] = [];
  const authorize = async (url: URL) => {
    calls.push(url);
    const back = new URL('http://127.0.0.1:9/callback');
    for (const [k, v] of Object.entries(reply(url.searchParams.get('state') ?? '')))
      back.searchParams.set(k, v);
    return back;
  };
  return { authorize, calls };
}

function client(
  w: ReturnType<typeof world>,
  u = user(),
  extra: Partial<OAuthClientOptions> = {},
): OAuthClient {
  return new OAuthClient({
    grant: { type: 'authorization_code', redirectUri: 'http://127.0.0.1:9/callback', authorize: u.authorize },
    fetch: w.fetch,
    ...extra,
  });
}

const challenge = (
  header = `Bearer resource_metadata="${RS}/.well-known/oauth-protected-resource/mcp"`,
): AuthChallenge => ({
  status: 401,
  headers: new Headers({ 'www-authenticate': header }),
  url: SERVER,
  sentAuthorization: undefined,
});

/** Runs the flow and returns the error it ends with (it must end with one). */
async function failure(auth: OAuthClient): Promise<McpkitError> {
  await auth.authorization(SERVER);
  try {
    await auth.unauthorized(challenge(), undefined);
  } catch (e) {
    assert.ok(e instanceof McpkitError, `an McpkitError, not ${String(e)}`);
    for (const leak of [SECRET, TOKEN]) assert.ok(!e.message.includes(leak), `no secret in: ${e.message}`);
    return e;
  }
  assert.fail('the flow succeeded');
}

describe('the OAuth client refuses bad input', () => {
  test('a working world gets a token (the baseline the other cases break)', async () => {
    const w = world();
    const auth = client(w);
    await auth.authorization(SERVER);
    assert.equal(await auth.unauthorized(challenge(), undefined), true);
    assert.equal(await auth.authorization(SERVER), `Bearer ${TOKEN}`);
  });

  test('authorization server metadata naming another issuer', async () => {
    const w = world({
      [`${AS}/.well-known/oauth-authorization-server`]: asMetadata({ issuer: 'https://evil.example' }),
    });
    const e = await failure(client(w));
    assert.equal(e.code, 'AUTH_DISCOVERY_FAILED');
    assert.match(e.message, /issuer/);
    assert.ok(!w.seen.some((s) => s.includes('/authorize') || s.includes('/token')));
  });

  test('endpoints that are not HTTPS off loopback', async () => {
    for (const broken of [
      {
        [`${RS}/.well-known/oauth-protected-resource/mcp`]: prm({
          authorization_servers: ['http://as.example'],
        }),
      },
      {
        [`${AS}/.well-known/oauth-authorization-server`]: asMetadata({
          token_endpoint: 'http://as.example/token',
        }),
      },
      {
        [`${AS}/.well-known/oauth-authorization-server`]: asMetadata({
          authorization_endpoint: 'http://as.example/a',
        }),
      },
    ]) {
      const w = world(broken);
      const u = user();
      const e = await failure(client(w, u));
      assert.equal(e.code, 'AUTH_INSECURE_ENDPOINT', e.message);
      assert.equal(u.calls.length, 0, 'the user is never sent anywhere');
      assert.ok(!w.seen.some((s) => s.startsWith('http://')));
    }
  });

  test('protected-resource metadata for another resource: no authorization at all', async () => {
    const w = world({
      [`${RS}/.well-known/oauth-protected-resource/mcp`]: prm({ resource: 'https://evil.example/mcp' }),
    });
    const u = user();
    const e = await failure(client(w, u));
    assert.equal(e.code, 'AUTH_RESOURCE_MISMATCH');
    assert.equal(u.calls.length, 0);
  });

  test('an endless metadata document is cut off, not buffered', async () => {
    const endless = () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            controller.enqueue(new TextEncoder().encode(' '.repeat(64 * 1024)));
          },
        }),
        { headers: { 'content-type': 'application/json' } },
      );
    const e = await failure(client(world({ [`${RS}/.well-known/oauth-protected-resource/mcp`]: endless })));
    assert.equal(e.code, 'AUTH_DISCOVERY_FAILED');
    assert.match(e.message, /exceeded/);
  });

  test('a redirect to another origin during discovery is not followed', async () => {
    const w = world({
      [`${RS}/.well-known/oauth-protected-resource/mcp`]: () =>
        new Response(null, { status: 302, headers: { location: 'https://evil.example/prm' } }),
    });
    const e = await failure(client(w));
    assert.equal(e.code, 'AUTH_DISCOVERY_FAILED');
    assert.match(e.message, /redirected to https:\/\/evil\.example/);
    assert.ok(!w.seen.some((s) => s.startsWith('https://evil.example')));
  });

  test('a state that does not match: the code is never redeemed', async () => {
    const w = world();
    const e = await failure(
      client(
        w,
        user(() => ({ code: 'c', state: 'forged', iss: AS })),
      ),
    );
    assert.equal(e.code, 'AUTH_AUTHORIZATION_FAILED');
    assert.match(e.message, /state/);
    assert.ok(!w.seen.includes(`${AS}/token`));
  });

  test('an iss that does not match, or is missing where the server promised it (RFC 9207)', async () => {
    const promised = {
      [`${AS}/.well-known/oauth-authorization-server`]: asMetadata({
        authorization_response_iss_parameter_supported: true,
      }),
    };
    for (const reply of [
      (state: string) => ({ code: 'c', state, iss: 'https://evil.example' }),
      (state: string) => ({
        error: 'access_denied',
        error_description: 'FORGED-TEXT',
        state,
        iss: 'https://evil.example',
      }),
      (state: string) => ({ code: 'c', state }),
    ]) {
      const w = world(promised);
      const e = await failure(client(w, user(reply)));
      assert.equal(e.code, 'AUTH_AUTHORIZATION_FAILED');
      assert.match(e.message, /iss/);
      assert.ok(!e.message.includes('FORGED-TEXT'), 'error fields of a mismatched response are not shown');
      assert.ok(!w.seen.includes(`${AS}/token`));
    }
  });

  test('metadata without PKCE S256 is refused before the user is sent anywhere', async () => {
    const w = world({
      [`${AS}/.well-known/oauth-authorization-server`]: asMetadata({
        code_challenge_methods_supported: ['plain'],
      }),
    });
    const u = user();
    const e = await failure(client(w, u));
    assert.equal(e.code, 'AUTH_UNSUPPORTED');
    assert.equal(u.calls.length, 0);
  });

  test('a registration endpoint answering garbage', async () => {
    for (const answer of [
      () => new Response('<html>oops</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
      () => json({ client_name: 'no id' }, 201),
      () => json({ client_id: 42 }, 201),
      () => json({ error: 'invalid_redirect_uri', error_description: 'nope' }, 400),
    ]) {
      const e = await failure(client(world({ [`${AS}/register`]: answer })));
      assert.equal(e.code, 'AUTH_REGISTRATION_FAILED', e.message);
    }
  });

  test('a token endpoint answering garbage, an error, or a token it should not: never a token in the message', async () => {
    for (const answer of [
      () => new Response('not json', { status: 200 }),
      () => json([TOKEN]),
      () => json({ access_token: TOKEN, token_type: 'mac' }),
      () => json({ access_token: TOKEN }),
      () => json({ error: 'invalid_grant', error_description: 'bad code' }, 400),
      () => new Response(TOKEN, { status: 500 }),
      () => new Response(null, { status: 204 }),
      () => json({ access_token: TOKEN, token_type: 'Bearer', padding: 'x'.repeat(2 * 1024 * 1024) }),
    ]) {
      const e = await failure(client(world({ [`${AS}/token`]: answer })));
      assert.equal(e.code, 'AUTH_TOKEN_FAILED', e.message);
    }
  });

  test('a client secret is never in an error, and pre-registered credentials are never sent to another issuer', async () => {
    const refused = world({ [`${AS}/token`]: () => json({ error: 'invalid_client' }, 401) });
    const e1 = await failure(
      client(refused, user(), { credentials: { clientId: 'pre', clientSecret: SECRET } }),
    );
    assert.equal(e1.code, 'AUTH_TOKEN_FAILED');
    const other = world();
    const e2 = await failure(
      client(other, user(), {
        credentials: { clientId: 'pre', clientSecret: SECRET, issuer: 'https://other-as.example' },
      }),
    );
    assert.equal(e2.code, 'AUTH_REGISTRATION_FAILED');
    assert.ok(!other.seen.includes(`${AS}/token`));
  });

  test('a challenge header oauth4webapi cannot parse is no challenge: well-known discovery still works', async () => {
    const w = world();
    const auth = client(w);
    await auth.authorization(SERVER);
    assert.equal(await auth.unauthorized(challenge('Bearer ,,,="'), undefined), true);
    assert.equal(await auth.authorization(SERVER), `Bearer ${TOKEN}`);
  });

  test('through a transport, the refusal reaches the app with its own code', async () => {
    const w = world({
      [`${RS}/.well-known/oauth-protected-resource/mcp`]: prm({ resource: 'https://evil.example/mcp' }),
      [`${RS}/mcp`]: () => new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } }),
    });
    const u = user();
    const mcp = new Client({ name: 't', version: '1' }, { era: 'stateful' });
    await assert.rejects(
      mcp.connect(
        new HttpClientTransport(SERVER, { auth: client(w, u), fetch: w.fetch, legacyFallback: false }),
      ),
      (e) => e instanceof McpkitError && e.code === 'AUTH_RESOURCE_MISMATCH',
    );
    assert.equal(u.calls.length, 0);
  });
});
