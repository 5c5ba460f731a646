// How the OAuth client meets a failing authorization server: tokens are forgotten only when the refresh token
// itself is refused (invalid_grant), never for a network error or a 5xx; and a hanging endpoint is given up
// after the time limit instead of stalling every request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryTokenStore, OAuthClient } from '../../src/auth.js';

const RS = 'https://rs.example';
const AS = 'https://as.example';
const SERVER = new URL(`${RS}/mcp`);
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function world(token: (init: RequestInit) => Promise<Response>) {
  return async (url: URL, init: RequestInit): Promise<Response> => {
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource'))
      return json({ resource: SERVER.href, authorization_servers: [AS] });
    if (url.pathname === '/.well-known/oauth-authorization-server')
      return json({ issuer: AS, authorization_endpoint: `${AS}/authorize`, token_endpoint: `${AS}/token` });
    if (url.pathname === '/token') return token(init);
    return new Response(null, { status: 404 });
  };
}

const expired = { accessToken: 'old', tokenType: 'Bearer', refreshToken: 'r1', expiresAt: 1, issuer: AS };

test('a refresh that fails with a 5xx or a network error keeps the tokens; invalid_grant forgets them', async () => {
  let answer: () => Promise<Response> = async () => json({ error: 'server_error' }, 503);
  const store = new MemoryTokenStore();
  await store.saveTokens(SERVER.href, expired);
  const auth = new OAuthClient({
    grant: { type: 'client_credentials' },
    credentials: { clientId: 'app', issuer: AS },
    store,
    fetch: world(() => answer()),
  });
  assert.equal(await auth.authorization(SERVER), 'Bearer old');
  assert.equal((await store.loadTokens(SERVER.href))?.refreshToken, 'r1');
  answer = async () => {
    throw new TypeError('fetch failed');
  };
  assert.equal(await auth.authorization(SERVER), 'Bearer old');
  assert.equal((await store.loadTokens(SERVER.href))?.refreshToken, 'r1');
  answer = async () => json({ error: 'invalid_grant', error_description: 'revoked' }, 400);
  assert.equal(await auth.authorization(SERVER), undefined);
  assert.equal(await store.loadTokens(SERVER.href), undefined);
});

test('a token endpoint that never answers is given up after the time limit', {
  timeout: 10_000,
}, async () => {
  // A real hanging request holds a socket open; this stand-in holds the event loop with a timer instead.
  const hang = (init: RequestInit) =>
    new Promise<Response>((_, reject) => {
      const socket = setTimeout(() => reject(new Error('the test gave up waiting')), 8000);
      const signal = init.signal;
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(socket);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  const auth = new OAuthClient({
    grant: { type: 'client_credentials' },
    credentials: { clientId: 'app', issuer: AS },
    fetch: world(hang),
    timeoutMs: 200,
  });
  await auth.authorization(SERVER);
  const started = Date.now();
  await assert.rejects(
    auth.unauthorized(
      {
        status: 401,
        headers: new Headers({ 'www-authenticate': 'Bearer' }),
        url: SERVER,
        sentAuthorization: undefined,
      },
      undefined,
    ),
    /AUTH_TOKEN_FAILED|client-credentials/,
  );
  assert.ok(Date.now() - started < 3000, `gave up after ${Date.now() - started} ms`);
});

test('a token store that failed once is asked again by the next request', async () => {
  const store = new MemoryTokenStore();
  await store.saveTokens(SERVER.href, { accessToken: 'kept', tokenType: 'Bearer', issuer: AS });
  let fail = true;
  const load = store.loadTokens.bind(store);
  store.loadTokens = async (resource) => {
    if (fail) throw new Error('store unavailable');
    return load(resource);
  };
  const auth = new OAuthClient({
    grant: { type: 'client_credentials' },
    store,
    fetch: world(async () => json({})),
  });
  await assert.rejects(auth.authorization(SERVER), /store unavailable/);
  fail = false;
  assert.equal(await auth.authorization(SERVER), 'Bearer kept');
});

const challenge = (status: 401 | 403, header: string, url = SERVER, sent?: string) => ({
  status,
  headers: new Headers({ 'www-authenticate': header }),
  url,
  sentAuthorization: sent,
});

test('the client is bound to its server: another origin gets no token and no flow', async () => {
  let tokens = 0;
  const auth = new OAuthClient({
    grant: { type: 'client_credentials' },
    credentials: { clientId: 'app', issuer: AS },
    fetch: world(async () => json({ access_token: `t${++tokens}`, token_type: 'Bearer' })),
  });
  await auth.authorization(SERVER);
  assert.equal(await auth.unauthorized(challenge(401, 'Bearer'), undefined), true);
  assert.equal(await auth.authorization(SERVER), 'Bearer t1');
  const elsewhere = new URL('https://other.example/mcp');
  assert.equal(await auth.authorization(elsewhere), undefined);
  assert.equal(await auth.unauthorized(challenge(401, 'Bearer', elsewhere, 'Bearer t1'), undefined), false);
  assert.equal(tokens, 1);
});

test('step-ups for one scope set are counted across requests: a server that keeps refusing is given up', async () => {
  let tokens = 0;
  const auth = new OAuthClient({
    grant: { type: 'client_credentials' },
    credentials: { clientId: 'app', issuer: AS },
    fetch: world(async () => json({ access_token: `t${++tokens}`, token_type: 'Bearer' })),
  });
  await auth.authorization(SERVER);
  const refuse = 'Bearer error="insufficient_scope", scope="admin"';
  const answers: boolean[] = [];
  for (let request = 0; request < 5; request++) {
    answers.push(
      await auth.unauthorized(challenge(403, refuse, SERVER, await auth.authorization(SERVER)), undefined),
    );
  }
  assert.deepEqual(answers, [true, true, true, false, false]);
  assert.equal(tokens, 3);
  // Another scope set has its own count.
  assert.equal(
    await auth.unauthorized(challenge(403, 'Bearer error="insufficient_scope", scope="other"'), undefined),
    true,
  );
});
