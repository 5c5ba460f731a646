// Opaque access tokens checked through RFC 7662 introspection at oidc-provider, behind our protected server, and
// the ways an introspection endpoint fails (down, slow, refusing our credentials): 503, never 500, never a crash.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { introspectionVerifier } from '../../src/auth.js';
import { type RunningServer, serve } from '../../src/node.js';
import type { AuthFailure, AuthInfo } from '../../src/server/handler/auth.js';
import { type OidcFixture, startOidcProvider } from '../fixtures/oidc.js';
import { authOptions, freePort, modern, post, protectedServer } from './helpers.js';

function failure(outcome: AuthInfo | AuthFailure): AuthFailure {
  assert.ok('error' in outcome, `expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('introspection mode with opaque tokens from oidc-provider', { timeout: 60_000 }, () => {
  let as: OidcFixture;
  let running: RunningServer;
  let resource: string;

  before(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    as = await startOidcProvider({ resource, accessTokenFormat: 'opaque' });
    const verifier = introspectionVerifier({
      issuer: as.issuer,
      audience: resource,
      clientId: as.introspectionClient.clientId,
      clientSecret: as.introspectionClient.clientSecret,
    });
    running = await serve(protectedServer(), { port, auth: authOptions(resource, as.issuer, verifier) });
  });
  after(async () => {
    await running.close();
    await as.stop();
  });

  test('an opaque token is introspected once and its principal reaches the handler', async () => {
    const { access_token } = await as.clientCredentialsToken({ scope: 'mcp:read' });
    assert.ok(!access_token.includes('.'), 'opaque, not a JWT');
    const before = as.hits.get('/token/introspection') ?? 0;
    for (let i = 0; i < 3; i++) {
      const { message, headers } = modern('tools/call', { name: 'whoami', arguments: {} }, i);
      const x = await post(running.url, access_token, message, headers);
      assert.equal(x.status, 200, JSON.stringify(x.body));
      const auth = (x.body?.result as { structuredContent: Record<string, unknown> } | undefined)
        ?.structuredContent;
      // oidc-provider's introspection of a client-credentials token names the client, no subject.
      assert.equal(auth?.clientId, as.client.clientId);
      assert.deepEqual(auth?.scopes, ['mcp:read']);
      assert.equal(auth?.aud, resource);
    }
    assert.equal(as.hits.get('/token/introspection'), before + 1, 'answers are cached within their lifetime');
  });

  test('concurrent checks of a rejected token share one introspection request', async () => {
    const verifier = introspectionVerifier({
      issuer: as.issuer,
      audience: resource,
      clientId: as.introspectionClient.clientId,
      clientSecret: as.introspectionClient.clientSecret,
    });
    await verifier.verify('warm-up-token-0123456789'); // discovery, and one introspection
    const before = as.hits.get('/token/introspection') ?? 0;
    const outcomes = await Promise.all([1, 2, 3].map(() => verifier.verify('rejected-token-0123456789')));
    for (const outcome of outcomes) assert.equal(failure(outcome).error, 'invalid_token');
    assert.equal(as.hits.get('/token/introspection'), before + 1, 'one request for three waiters');
  });

  test('an unknown token and a token for another resource get 401', async () => {
    const { message, headers } = modern('tools/list');
    const unknown = await post(running.url, 'no-such-token-0123456789', message, headers);
    assert.equal(unknown.status, 401);
    assert.match(unknown.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const other = await as.clientCredentialsToken({ resource: 'http://127.0.0.1:1/other' });
    const x = await post(running.url, other.access_token, message, headers);
    assert.equal(x.status, 401);
    assert.match(x.headers.get('www-authenticate') ?? '', /not issued for this server/);
  });

  test('a revoked token stops working once the cached answer is older than cacheTtlMs', async () => {
    const verifier = introspectionVerifier({
      issuer: as.issuer,
      audience: resource,
      clientId: as.introspectionClient.clientId,
      clientSecret: as.introspectionClient.clientSecret,
      cacheTtlMs: 0,
    });
    const { access_token } = await as.clientCredentialsToken({ scope: 'mcp:read' });
    assert.ok(!('error' in (await verifier.verify(access_token))));
    const revoke = await fetch(`${as.issuer}/token/revocation`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${as.client.clientId}:${as.client.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token: access_token }),
    });
    assert.equal(revoke.status, 200);
    assert.equal(failure(await verifier.verify(access_token)).error, 'invalid_token');
  });

  test('wrong credentials at the introspection endpoint fail closed (unavailable)', async () => {
    const verifier = introspectionVerifier({
      issuer: as.issuer,
      audience: resource,
      clientId: as.introspectionClient.clientId,
      clientSecret: 'wrong-secret',
    });
    const { access_token } = await as.clientCredentialsToken({ scope: 'mcp:read' });
    const f = failure(await verifier.verify(access_token));
    assert.equal(f.error, 'unavailable');
    assert.ok(!f.description.includes(access_token));
  });
});

describe('an introspection endpoint that is down or slow', { timeout: 30_000 }, () => {
  let silent: Server;
  let silentUrl: string;
  before(async () => {
    // Accepts connections and never answers.
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/introspect`;
  });
  after(async () => {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  test('down (connection refused): 503 from the server, never 500', async () => {
    const port = await freePort();
    const dead = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const verifier = introspectionVerifier({
      endpoint: `http://127.0.0.1:${dead}/introspect`,
      audience: resource,
      clientId: 'rs',
      clientSecret: 's',
    });
    const reported: Error[] = [];
    const running = await serve(protectedServer({ onerror: (e) => reported.push(e) }), {
      port,
      auth: authOptions(resource, `http://127.0.0.1:${dead}`, verifier),
    });
    try {
      const { message, headers } = modern('tools/list');
      const x = await post(running.url, 'some-opaque-token', message, headers);
      assert.equal(x.status, 503);
      assert.equal(x.headers.get('retry-after'), '5');
      // Why, to the server's onerror (the refused connection), never to the client.
      assert.equal(reported.length, 1);
      const error = reported[0] as Error & { code?: string };
      assert.equal(error.code, 'AUTH_VERIFIER_FAILED');
      assert.ok(error.cause instanceof Error);
      assert.ok(!JSON.stringify(x.body).includes(error.cause.message));
    } finally {
      await running.close();
    }
  });

  test('slow: the time limit answers unavailable', async () => {
    const verifier = introspectionVerifier({
      endpoint: silentUrl,
      audience: 'http://127.0.0.1:1/mcp',
      clientId: 'rs',
      clientSecret: 's',
      timeoutMs: 300,
    });
    const started = Date.now();
    assert.equal(failure(await verifier.verify('some-opaque-token')).error, 'unavailable');
    assert.ok(Date.now() - started < 3000);
  });
});
