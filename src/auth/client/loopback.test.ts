import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { McpkitError } from '../../jsonrpc/errors.js';
import { LoopbackReceiver } from './loopback.js';

/** A GET with a chosen Host header (fetch would not let us forge it). */
function get(url: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      { host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, headers: host ? { host } : {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject).end();
  });
}

test('the redirect with the right state resolves; others get 400 and change nothing', async () => {
  const receiver = await LoopbackReceiver.start();
  try {
    assert.match(receiver.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const auth = new URL('https://as.example/authorize?state=abc123');
    const pages: { status: number; body: string }[] = [];
    const browse = async () => {
      pages.push(await get(`${receiver.redirectUri}?code=x&state=wrong`));
      pages.push(await get(`${receiver.redirectUri}?code=x&state=abc123`, 'evil.example:80'));
      pages.push(await get(`${receiver.redirectUri.replace('/callback', '/other')}?state=abc123`));
      pages.push(
        await get(`${receiver.redirectUri}?code=the-code&state=abc123&iss=https%3A%2F%2Fas.example`),
      );
    };
    let opened: Promise<void> = Promise.resolve();
    const received = receiver.authorize(auth, () => {
      opened = browse();
    });
    const url = await received;
    await opened;
    assert.equal(url.searchParams.get('code'), 'the-code');
    assert.deepEqual(
      pages.map((p) => p.status),
      [400, 400, 404, 200],
    );
    assert.match(pages[3]?.body ?? '', /close this window/);
    assert.ok(!(pages[0]?.body ?? '').includes('wrong'), 'nothing from the request is echoed');
    // The state is used up: the same redirect again is unexpected.
    assert.equal((await get(`${receiver.redirectUri}?code=the-code&state=abc123`)).status, 400);
  } finally {
    await receiver.close();
  }
});

test('no answer within the time limit fails clearly; so does an aborted or stateless authorization', async () => {
  const receiver = await LoopbackReceiver.start({ timeoutMs: 50 });
  try {
    await assert.rejects(
      receiver.authorize(new URL('https://as.example/a?state=s1'), () => undefined),
      (e) => e instanceof McpkitError && e.code === 'AUTH_AUTHORIZATION_FAILED' && /within/.test(e.message),
    );
    const abort = new AbortController();
    const pending = receiver.authorize(
      new URL('https://as.example/a?state=s2'),
      () => abort.abort(),
      abort.signal,
    );
    await assert.rejects(pending, (e) => e instanceof McpkitError && e.code === 'REQUEST_CANCELLED');
    await assert.rejects(
      receiver.authorize(new URL('https://as.example/a'), () => undefined),
      /no state/,
    );
  } finally {
    await receiver.close();
  }
});
