import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FetchLike } from '../fetch.js';
import { type AuthChallenge, authorizedFetch, type HttpAuthorizer, MAX_AUTH_RETRIES } from './auth-hook.js';

const URL_ = new URL('http://127.0.0.1:1/mcp');

/** A fetch answering from a list of statuses and recording the Authorization header of each request. */
function scripted(statuses: number[]): { fetch: FetchLike; sent: (string | null)[]; bodies: string[] } {
  const sent: (string | null)[] = [];
  const bodies: string[] = [];
  const fetch: FetchLike = async (_url, init) => {
    sent.push(new Headers(init.headers).get('authorization'));
    bodies.push(String(init.body));
    const status = statuses.shift() ?? 200;
    return new Response(status === 200 ? '{}' : 'no', {
      status,
      headers: status === 200 ? {} : { 'www-authenticate': 'Bearer error="invalid_token"' },
    });
  };
  return { fetch, sent, bodies };
}

/** An authorizer handing out token-1, token-2, … one per 401/403 it agrees to retry. */
function counting(retry: (c: AuthChallenge) => boolean): HttpAuthorizer & { seen: AuthChallenge[] } {
  let n = 0;
  const seen: AuthChallenge[] = [];
  return {
    seen,
    authorization: () => (n === 0 ? undefined : `Bearer token-${n}`),
    unauthorized: async (challenge) => {
      seen.push(challenge);
      if (!retry(challenge)) return false;
      n++;
      return true;
    },
  };
}

test('a 401 is offered to the authorizer and the same request goes again with the new header', async () => {
  const { fetch, sent, bodies } = scripted([401, 200]);
  const auth = counting(() => true);
  const response = await authorizedFetch(fetch, auth)(URL_, {
    method: 'POST',
    body: '{"a":1}',
    headers: { x: 'y' },
  });
  assert.equal(response.status, 200);
  assert.deepEqual(sent, [null, 'Bearer token-1']);
  assert.deepEqual(bodies, ['{"a":1}', '{"a":1}']);
  assert.equal(auth.seen[0]?.status, 401);
  assert.equal(auth.seen[0]?.sentAuthorization, undefined);
  assert.equal(auth.seen[0]?.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
});

test('a declined challenge hands the refused answer, body intact, to the transport', async () => {
  const { fetch } = scripted([403]);
  const response = await authorizedFetch(
    fetch,
    counting(() => false),
  )(URL_, { method: 'GET' });
  assert.equal(response.status, 403);
  assert.equal(await response.text(), 'no');
});

test('one request is resent at most MAX_AUTH_RETRIES times', async () => {
  const { fetch, sent } = scripted([401, 403, 403, 403, 403, 403]);
  const auth = counting(() => true);
  const response = await authorizedFetch(fetch, auth)(URL_, { method: 'POST', body: '{}' });
  assert.equal(response.status, 403);
  assert.equal(sent.length, MAX_AUTH_RETRIES + 1);
  assert.equal(auth.seen.length, MAX_AUTH_RETRIES);
});

test('a failing authorizer rejects the fetch with its error', async () => {
  const { fetch } = scripted([401]);
  const auth: HttpAuthorizer = {
    authorization: () => undefined,
    unauthorized: async () => {
      throw new Error('discovery failed');
    },
  };
  await assert.rejects(authorizedFetch(fetch, auth)(URL_, { method: 'GET' }), /discovery failed/);
});

test("a configured Authorization header is sent while the authorizer has none, and the authorizer's token wins", async () => {
  const { fetch, sent } = scripted([401, 200]);
  const auth = counting(() => true);
  const response = await authorizedFetch(fetch, auth)(URL_, {
    method: 'POST',
    body: '{}',
    headers: { authorization: 'Bearer configured' },
  });
  assert.equal(response.status, 200);
  assert.deepEqual(sent, ['Bearer configured', 'Bearer token-1']);
  assert.equal(auth.seen[0]?.sentAuthorization, 'Bearer configured');
});
