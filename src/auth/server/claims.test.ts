import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authInfoFromClaims, hasAudience, scopesOf } from './claims.js';

test('the principal of RFC 9068 claims', () => {
  const auth = authInfoFromClaims({
    sub: 'u',
    client_id: 'c',
    scope: 'a  b',
    exp: 5,
    iss: 'https://as',
    aud: 'x',
  });
  assert.deepEqual(
    { ...auth, claims: undefined },
    {
      subject: 'u',
      clientId: 'c',
      scopes: ['a', 'b'],
      expiresAt: 5,
      issuer: 'https://as',
      claims: undefined,
    },
  );
  assert.equal(auth.claims?.aud, 'x');
});

test('azp stands in for client_id; scp as an array or a string; odd types are ignored', () => {
  assert.equal(authInfoFromClaims({ azp: 'c' }).clientId, 'c');
  assert.deepEqual(scopesOf({ scp: ['a', 1, 'b'] }), ['a', 'b']);
  assert.deepEqual(scopesOf({ scp: 'a b' }), ['a', 'b']);
  assert.deepEqual(scopesOf({ scope: 7 }), []);
  const odd = authInfoFromClaims({ sub: 1, exp: '5', iss: {} });
  assert.deepEqual([odd.subject, odd.expiresAt, odd.issuer], [undefined, undefined, undefined]);
});

test('audience: a string or an array naming it', () => {
  assert.ok(hasAudience('x', 'x'));
  assert.ok(hasAudience(['y', 'x'], 'x'));
  assert.ok(!hasAudience('xx', 'x'));
  assert.ok(!hasAudience(undefined, 'x'));
  assert.ok(!hasAudience([['x']], 'x'));
});
