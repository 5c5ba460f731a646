// Bad input at a protected server over real sockets: each gets a clear answer, none a 500 or a crash, and the
// server keeps serving valid tokens afterwards.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { SignJWT, UnsecuredJWT } from 'jose';
import { customVerifier, jwtVerifier } from '../../src/auth.js';
import { type RunningServer, serve } from '../../src/node.js';
import { authOptions, freePort, modern, post, protectedServer } from './helpers.js';
import { type KeyServer, startKeyServer } from './key-server.js';

/** A raw POST (any header size, the node:http client does not limit it) answering the status. */
function rawStatus(url: string, authorization: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        authorization,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

/** Asserts that `reported` holds one failure to check a token, with a cause the reply `body` does not show. */
function assertReported(reported: Error[], body: unknown): Error {
  assert.equal(reported.length, 1, reported.map((e) => e.message).join('; '));
  const error = reported[0] as Error & { code?: string };
  assert.equal(error.code, 'AUTH_VERIFIER_FAILED');
  assert.ok(error.cause instanceof Error, 'the cause is reported');
  assert.ok(!JSON.stringify(body).includes(error.cause.message), 'the cause is not sent to the client');
  return error.cause;
}

describe('a protected server refuses bad tokens clearly', { timeout: 60_000 }, () => {
  let keys: KeyServer;
  let running: RunningServer;
  let resource: string;
  const reported: Error[] = [];

  before(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    keys = await startKeyServer(resource);
    const verifier = jwtVerifier({
      issuer: keys.issuer,
      audience: resource,
      timeoutMs: 500,
      jwksCooldownMs: 0,
    });
    running = await serve(protectedServer({ onerror: (e) => reported.push(e) }), {
      port,
      auth: authOptions(resource, keys.issuer, verifier),
    });
  });
  after(async () => {
    await running.close();
    await keys.stop();
  });

  const call = (token: string | undefined) => {
    const { message, headers } = modern('tools/call', { name: 'whoami', arguments: {} });
    return post(running.url, token, message, headers);
  };

  test('missing, malformed, expired, not-yet-valid, wrong audience or issuer, alg none, HMAC, unknown kid: 401', async () => {
    keys.mode = 'ok';
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string | undefined, RegExp | undefined][] = [
      ['missing', undefined, undefined],
      ['malformed', 'x.y', /not a JWT/],
      ['expired', await keys.sign({ exp: now - 600 }), /expired/],
      ['not yet valid', await keys.sign({ nbf: now + 600 }), /not valid yet/],
      ['wrong audience', await keys.sign({ aud: 'http://127.0.0.1:1/mcp' }), /aud/],
      ['wrong issuer', await keys.sign({ iss: 'http://127.0.0.1:1' }), /iss/],
      [
        'alg none',
        new UnsecuredJWT({ iss: keys.issuer, aud: resource, exp: now + 60 }).encode(),
        /algorithm/,
      ],
      [
        'HMAC with the public key',
        await new SignJWT({})
          .setProtectedHeader({ alg: 'HS256', kid: keys.publicJwk.kid as string })
          .setIssuer(keys.issuer)
          .setAudience(resource)
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(JSON.stringify(keys.publicJwk))),
        /algorithm/,
      ],
      ['unknown kid', await keys.sign({}, { kid: 'ghost', unpublished: true }), /No key/],
    ];
    for (const [name, token, reason] of cases) {
      const x = await call(token);
      assert.equal(x.status, 401, name);
      const challenge = x.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer resource_metadata="/, name);
      if (reason) {
        assert.match(challenge, /error="invalid_token"/, name);
        assert.match(challenge, reason, name);
      }
    }
    assert.equal((await call(await keys.sign())).status, 200, 'a valid token still works');
  });

  test('oversized Authorization headers: 401 from the gate, 431 from node:http past its limit; still serving', async () => {
    assert.equal(await rawStatus(running.url, `Bearer ${'a'.repeat(10_000)}`), 401);
    assert.equal(await rawStatus(running.url, `Bearer ${'a'.repeat(20_000)}`), 431);
    assert.equal((await call(await keys.sign())).status, 200);
  });

  for (const mode of ['error', 'slow', 'garbage'] as const) {
    test(`a JWKS endpoint that is ${mode}: 503 (fail closed), then served again once it recovers`, async () => {
      // A new key, so the key set must be fetched again.
      await keys.rotate();
      const token = await keys.sign();
      keys.mode = mode;
      reported.length = 0;
      const x = await call(token);
      assert.equal(x.status, 503, JSON.stringify(x.body));
      assertReported(reported, x.body);
      keys.mode = 'ok';
      assert.equal((await call(token)).status, 200);
    });
  }
});

describe('a custom verifier that throws or answers nothing', { timeout: 30_000 }, () => {
  test('throws: 503; undefined: 401; never 500', async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const verifier = customVerifier((token) => {
      if (token === 'boom') throw new Error('database down');
      if (token === 'good')
        return { subject: 'alice', scopes: ['mcp:read'], expiresAt: Date.now() / 1000 + 60 };
      return undefined;
    });
    const reported: Error[] = [];
    const running = await serve(protectedServer({ onerror: (e) => reported.push(e) }), {
      port,
      auth: authOptions(resource, 'https://as.example.com', verifier),
    });
    try {
      const { message, headers } = modern('tools/call', { name: 'whoami', arguments: {} });
      const boom = await post(running.url, 'boom', message, headers);
      assert.equal(boom.status, 503);
      assert.equal(assertReported(reported, boom.body).message, 'database down');
      assert.equal((await post(running.url, 'nope', message, headers)).status, 401);
      const ok = await post(running.url, 'good', message, headers);
      assert.equal(ok.status, 200);
      const auth = (ok.body?.result as { structuredContent: { subject: string } } | undefined)
        ?.structuredContent;
      assert.equal(auth?.subject, 'alice');
    } finally {
      await running.close();
    }
  });
});
