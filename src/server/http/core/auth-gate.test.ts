import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AuthInfo, principalOf, type TokenVerifier } from '../../handler/auth.js';
import { AuthGate } from './auth-gate.js';
import type { HttpReply, HttpRequestLike } from './http.js';

const verifier: TokenVerifier = {
  verify: async (token) =>
    token === 'good'
      ? { subject: 'u', scopes: ['read'] }
      : token === 'down'
        ? { error: 'unavailable', description: 'AS down' }
        : { error: 'invalid_token', description: 'The token\'s "aud" is "wrong"\\' },
};

function req(method: string, path: string, authorization?: string): HttpRequestLike {
  return {
    method,
    path,
    query: new URLSearchParams(),
    header: (name) => (name === 'authorization' ? authorization : undefined),
    text: async () => '',
  };
}

async function run(gate: AuthGate, r: HttpRequestLike): Promise<HttpReply | undefined> {
  return gate.authenticate(r);
}

test('metadata paths: path-inserted then root; a root resource has only the root one', () => {
  const gate = new AuthGate({
    verifier,
    resource: 'https://h.example/a/mcp',
    authorizationServers: ['https://as'],
  });
  assert.deepEqual(gate.metadataPaths, [
    '/.well-known/oauth-protected-resource/a/mcp',
    '/.well-known/oauth-protected-resource',
  ]);
  assert.equal(gate.metadataUrl, 'https://h.example/.well-known/oauth-protected-resource/a/mcp');
  const root = new AuthGate({
    verifier,
    resource: 'https://h.example',
    authorizationServers: ['https://as'],
  });
  assert.deepEqual(root.metadataPaths, ['/.well-known/oauth-protected-resource']);
  assert.equal(gate.metadata(req('POST', gate.metadataPaths[0] as string)).status, 405);
  assert.equal(gate.metadata(req('OPTIONS', gate.metadataPaths[0] as string)).status, 204);
});

test('bad configurations are refused at creation', () => {
  assert.throws(
    () => new AuthGate({ verifier, resource: 'https://h/mcp#x', authorizationServers: ['https://as'] }),
  );
  assert.throws(
    () => new AuthGate({ verifier, resource: 'ftp://h/mcp', authorizationServers: ['https://as'] }),
  );
  assert.throws(() => new AuthGate({ verifier, resource: 'https://h/mcp', authorizationServers: [] }));
});

test('challenges: quoted values stay valid (no " or \\ inside), 503 for an unreachable AS, a thrown verifier is 503', async () => {
  const gate = new AuthGate({ verifier, resource: 'https://h/mcp', authorizationServers: ['https://as'] });
  const bad = (await run(gate, req('POST', '/mcp', 'Bearer nope'))) as HttpReply;
  assert.equal(bad.status, 401);
  const challenge = bad.headers['www-authenticate'] as string;
  assert.match(challenge, /error_description="The token's 'aud' is 'wrong''"$/);
  assert.equal(((await run(gate, req('POST', '/mcp', 'Bearer down'))) as HttpReply).status, 503);
  const throwing = new AuthGate({
    verifier: {
      verify: () => {
        throw new Error('boom');
      },
    },
    resource: 'https://h/mcp',
    authorizationServers: ['https://as'],
  });
  assert.equal(((await run(throwing, req('POST', '/mcp', 'Bearer x'))) as HttpReply).status, 503);
});

test('why a token could not be checked goes to onerror, once per failure, and never into the 503', async () => {
  const cause = new Error('connect ECONNREFUSED 10.0.0.9:443 (secret-host)');
  const failure = { error: 'unavailable', description: 'AS down', cause } as const;
  const reported: Error[] = [];
  const onerror = (e: Error) => reported.push(e);
  const shared = new AuthGate(
    {
      verifier: { verify: async () => failure },
      resource: 'https://h/mcp',
      authorizationServers: ['https://as'],
    },
    onerror,
  );
  // Two requests sharing one verification (the verifiers' token cache): one report.
  const replies = await Promise.all([
    run(shared, req('POST', '/mcp', 'Bearer t')),
    run(shared, req('POST', '/mcp', 'Bearer t')),
  ]);
  for (const reply of replies) {
    assert.equal(reply?.status, 503);
    assert.ok(
      !('body' in (reply as HttpReply) && (reply as { body?: string }).body?.includes('secret-host')),
    );
  }
  assert.equal(reported.length, 1);
  assert.equal((reported[0] as { code?: string }).code, 'AUTH_VERIFIER_FAILED');
  assert.match((reported[0] as Error).message, /The access token could not be checked: AS down/);
  assert.equal((reported[0] as Error).cause, cause);
  const thrown = new Error('boom in the verifier');
  const throwing = new AuthGate(
    {
      verifier: {
        verify: () => {
          throw thrown;
        },
      },
      resource: 'https://h/mcp',
      authorizationServers: ['https://as'],
    },
    onerror,
  );
  const reply = (await run(throwing, req('POST', '/mcp', 'Bearer x'))) as HttpReply;
  assert.equal(reply.status, 503);
  assert.ok(!('body' in reply && reply.body?.includes('boom')));
  assert.equal(reported.length, 2);
  assert.equal((reported[1] as Error).cause, thrown);
});

test('a token the verifier already trusts is answered synchronously', () => {
  const known: AuthInfo = { subject: 'u', scopes: ['read'] };
  const gate = new AuthGate({
    verifier: { verify: async () => known, cached: (t) => (t === 'k' ? known : undefined) },
    resource: 'https://h/mcp',
    authorizationServers: ['https://as'],
  });
  const r = req('POST', '/mcp', 'bearer k');
  assert.equal(gate.authenticate(r), undefined, 'no promise');
  assert.equal(r.authInfo, known);
  assert.ok(
    gate.authenticate(req('POST', '/mcp', 'Bearer  k')) instanceof Promise,
    'odd spacing takes the full path',
  );
});

test('principals: a user and a client of the same name differ; a token naming neither is owned by its hash', async () => {
  assert.notEqual(
    principalOf({ subject: 'X', issuer: 'https://as', scopes: [] }),
    principalOf({ clientId: 'X', issuer: 'https://as', scopes: [] }),
  );
  assert.equal(principalOf({ scopes: [] }), undefined);
  const anonymous: AuthInfo = { scopes: [] };
  const gate = new AuthGate({
    verifier: {
      verify: async (token) =>
        token.startsWith('ok') ? { scopes: [] } : { error: 'invalid_token', description: 'no' },
      cached: (token) => (token === 'ok-cached' ? anonymous : undefined),
    },
    resource: 'https://h.example/mcp',
    authorizationServers: ['https://as'],
  });
  const owner = async (token: string) => {
    const r = req('POST', '/mcp', `Bearer ${token}`);
    assert.equal(await run(gate, r), undefined);
    return principalOf(r.authInfo);
  };
  const a = await owner('ok-a');
  const b = await owner('ok-b');
  assert.ok(a !== undefined && b !== undefined && a !== b);
  assert.equal(await owner('ok-a'), a);
  assert.ok(!a.includes('ok-a'), 'the token itself is not the principal');
  const cached = await owner('ok-cached');
  assert.ok(cached?.startsWith('token:'));
  assert.equal(await owner('ok-cached'), cached);
});
