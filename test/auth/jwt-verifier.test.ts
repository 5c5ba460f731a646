// The JWT verifier against a real authorization server (oidc-provider) and against hand-made bad tokens.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CryptoKey, exportSPKI, importJWK, SignJWT, UnsecuredJWT } from 'jose';
import { jwtVerifier } from '../../src/auth.js';
import type { AuthFailure, AuthInfo } from '../../src/server/handler/auth.js';
import { type OidcFixture, startOidcProvider } from '../fixtures/oidc.js';
import { b64, type KeyServer, startKeyServer } from './key-server.js';

const RESOURCE = 'http://127.0.0.1:3999/mcp';

function failure(outcome: AuthInfo | AuthFailure): AuthFailure {
  assert.ok('error' in outcome, `expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome;
}

function principal(outcome: AuthInfo | AuthFailure): AuthInfo {
  assert.ok(!('error' in outcome), `expected a principal, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('jwtVerifier with oidc-provider', () => {
  let as: OidcFixture;
  before(async () => {
    as = await startOidcProvider({ resource: RESOURCE });
  });
  after(() => as.stop());

  test('a client-credentials token for this server is verified; keys are fetched once', async () => {
    const verifier = jwtVerifier({ issuer: as.issuer, audience: RESOURCE });
    const { access_token } = await as.clientCredentialsToken({ scope: 'mcp:read mcp:write' });
    const auth = principal(await verifier.verify(access_token));
    assert.equal(auth.subject, as.client.clientId);
    assert.equal(auth.clientId, as.client.clientId);
    assert.deepEqual(auth.scopes, ['mcp:read', 'mcp:write']);
    assert.equal(auth.issuer, as.issuer);
    assert.ok(typeof auth.expiresAt === 'number' && auth.expiresAt > Date.now() / 1000);
    assert.equal(auth.claims?.aud, RESOURCE);
    const second = await as.clientCredentialsToken({ scope: 'mcp:read' });
    principal(await verifier.verify(second.access_token));
    assert.equal(as.hits.get('/jwks'), 1);
  });

  test('an authorization-code token (PKCE, dynamic registration) carries the user as subject', async () => {
    const redirectUri = 'http://127.0.0.1:5555/callback';
    const registered = await as.register({
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    const tokens = await as.authorizationCodeToken({
      client: { clientId: String(registered.client_id) },
      redirectUri,
      scope: 'mcp:read',
    });
    assert.equal(typeof tokens.refresh_token, 'string');
    const auth = principal(
      await jwtVerifier({ issuer: as.issuer, audience: RESOURCE }).verify(tokens.access_token),
    );
    assert.equal(auth.subject, as.accountId);
    assert.equal(auth.clientId, registered.client_id);
    assert.deepEqual(auth.scopes, ['mcp:read']);
  });

  test('a token for another resource is refused (audience)', async () => {
    const { access_token } = await as.clientCredentialsToken({ resource: 'http://127.0.0.1:4000/other' });
    const f = failure(await jwtVerifier({ issuer: as.issuer, audience: RESOURCE }).verify(access_token));
    assert.equal(f.error, 'invalid_token');
    assert.match(f.description, /"aud"/);
  });
});

describe('jwtVerifier refuses bad tokens with a clear reason', () => {
  let keys: KeyServer;
  before(async () => {
    keys = await startKeyServer(RESOURCE);
  });
  after(() => keys.stop());
  const verifier = () => jwtVerifier({ issuer: keys.issuer, audience: RESOURCE, timeoutMs: 500 });

  test('a valid token passes', async () => {
    keys.mode = 'ok';
    const auth = principal(await verifier().verify(await keys.sign()));
    assert.equal(auth.subject, 'user-1');
  });

  const cases: [string, () => Promise<string>, RegExp][] = [
    ['malformed', async () => 'not-a-jwt', /not a JWT/],
    ['garbage segments', async () => 'abc.def.ghi', /malformed/],
    ['expired', async () => keys.sign({ exp: Math.floor(Date.now() / 1000) - 120 }), /expired/],
    ['not yet valid', async () => keys.sign({ nbf: Math.floor(Date.now() / 1000) + 3600 }), /not valid yet/],
    ['wrong audience', async () => keys.sign({ aud: 'http://127.0.0.1:1/elsewhere' }), /"aud"/],
    ['wrong issuer', async () => keys.sign({ iss: 'http://evil.example' }), /"iss"/],
    [
      'alg none',
      async () =>
        new UnsecuredJWT({
          iss: keys.issuer,
          aud: RESOURCE,
          sub: 'x',
          exp: Math.floor(Date.now() / 1000) + 60,
        }).encode(),
      /algorithm is not allowed/,
    ],
    [
      'HMAC signed with the public key',
      async () => {
        const pem = await exportSPKI(
          (await importJWK(keys.publicJwk, 'ES256', { extractable: true })) as CryptoKey,
        );
        return new SignJWT({ sub: 'attacker', scope: 'mcp:admin' })
          .setProtectedHeader({ alg: 'HS256', kid: keys.publicJwk.kid as string })
          .setIssuer(keys.issuer)
          .setAudience(RESOURCE)
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(pem));
      },
      /algorithm is not allowed/,
    ],
    ['unknown kid', async () => keys.sign({}, { kid: 'nobody', unpublished: true }), /No key/],
    ['signed by another key with a known kid', async () => keys.sign({}, { unpublished: true }), /signature/],
    [
      'tampered payload',
      async () => {
        const [h, , s] = (await keys.sign()).split('.');
        return `${h}.${b64({ iss: keys.issuer, aud: RESOURCE, sub: 'admin', exp: 9999999999 })}.${s}`;
      },
      /signature/,
    ],
    ['oversized', async () => `${'a'.repeat(9000)}.b.c`, /too long/],
    ['no exp', async () => keys.sign({}, { omitExp: true }), /"exp"/],
  ];
  for (const [name, make, reason] of cases) {
    test(name, async () => {
      keys.mode = 'ok';
      const f = failure(await verifier().verify(await make()));
      assert.equal(f.error, 'invalid_token');
      assert.match(f.description, reason);
    });
  }

  test('a JWT that is not typed at+jwt (an ID token, say) is refused unless requiredType is false', async () => {
    keys.mode = 'ok';
    const token = await keys.sign({}, { typ: 'JWT' });
    const f = failure(await verifier().verify(token));
    assert.equal(f.error, 'invalid_token');
    assert.match(f.description, /typ/);
    principal(
      await jwtVerifier({ issuer: keys.issuer, audience: RESOURCE, requiredType: false }).verify(token),
    );
    principal(await verifier().verify(await keys.sign({}, { typ: 'application/at+jwt' })));
  });

  test('no kid and two keys for the algorithm (a rotation): each candidate is tried', async () => {
    keys.mode = 'ok';
    const v = jwtVerifier({ issuer: keys.issuer, audience: RESOURCE });
    const first = keys.publicJwk.kid as string;
    await keys.rotate();
    principal(await v.verify(await keys.sign({ sub: 'old' }, { kid: first, noKid: true })));
    principal(await v.verify(await keys.sign({ sub: 'new' }, { noKid: true })));
    const f = failure(await v.verify(await keys.sign({}, { unpublished: true, noKid: true })));
    assert.equal(f.error, 'invalid_token');
    assert.match(f.description, /signature/);
  });

  test('an unknown kid refetches the key set once (rotation), within the cooldown it does not', async () => {
    keys.mode = 'ok';
    const v = jwtVerifier({ issuer: keys.issuer, audience: RESOURCE, jwksCooldownMs: 0 });
    principal(await v.verify(await keys.sign()));
    const before = keys.hits.get('/jwks') ?? 0;
    await keys.rotate();
    principal(await v.verify(await keys.sign()));
    assert.equal(keys.hits.get('/jwks'), before + 1);
    const cooling = jwtVerifier({ issuer: keys.issuer, audience: RESOURCE, jwksCooldownMs: 60_000 });
    principal(await cooling.verify(await keys.sign()));
    const fetched = keys.hits.get('/jwks') ?? 0;
    for (let i = 0; i < 5; i++)
      failure(await cooling.verify(await keys.sign({}, { kid: `ghost${i}`, unpublished: true })));
    assert.equal(keys.hits.get('/jwks'), fetched);
  });

  for (const mode of ['error', 'slow', 'garbage'] as const) {
    test(`a key server that is ${mode} fails closed (unavailable), and recovers`, async () => {
      keys.mode = mode;
      const v = verifier();
      const token = await keys.sign();
      const started = Date.now();
      const f = failure(await v.verify(token));
      assert.equal(f.error, 'unavailable');
      assert.ok(Date.now() - started < 2500, 'the time limit holds');
      keys.mode = 'ok';
      principal(await v.verify(token));
    });
  }

  test('a verified token is cached: no signature check or fetch per request', async () => {
    keys.mode = 'ok';
    const v = verifier();
    const token = await keys.sign();
    principal(await v.verify(token));
    keys.mode = 'error';
    // The key server is down now, but the token was verified and has not expired.
    principal(await v.verify(token));
    keys.mode = 'ok';
  });

  test('descriptions never contain the token', async () => {
    const token = await keys.sign({ aud: 'http://127.0.0.1:1/x' });
    const f = failure(await verifier().verify(token));
    assert.ok(!f.description.includes(token.split('.')[1] as string));
  });

  test('configurations that cannot be safe are refused at creation', () => {
    assert.throws(() => jwtVerifier({ issuer: 'http://as.example.com', audience: RESOURCE }), /https/);
    assert.throws(
      () => jwtVerifier({ issuer: keys.issuer, audience: RESOURCE, algorithms: ['HS256'] }),
      /HS256/,
    );
    assert.throws(
      () => jwtVerifier({ issuer: keys.issuer, audience: RESOURCE, algorithms: ['none'] }),
      /none/,
    );
  });
});

test('plain HTTP only on a real loopback address: 127.evil.example is not one', () => {
  for (const issuer of ['http://127.evil.example', 'http://127.0.0.1.nip.io', 'http://127.1.2.3.4']) {
    assert.throws(() => jwtVerifier({ issuer, audience: 'https://mcp.example/mcp' }), TypeError, issuer);
  }
  for (const issuer of [
    'http://127.0.0.1:8080',
    'http://localhost:9',
    'http://[::1]:9',
    'http://127.2.3.4',
  ]) {
    jwtVerifier({ issuer, audience: 'https://mcp.example/mcp' });
  }
});
