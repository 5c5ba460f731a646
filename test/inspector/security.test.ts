// The inspector's web server refuses what is not its own page: no token, a foreign Origin, a foreign Host (DNS
// rebinding), a token in the wrong place; and it binds 127.0.0.1 only.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { type RunningInspector, startInspector } from '../../src/inspector/server.js';

let inspector: RunningInspector;
let token: string;
let cookie: string;

/** One raw request (node:http, so Host and Origin can be anything). */
function send(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: inspector.port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const json = { 'Content-Type': 'application/json' };

before(async () => {
  inspector = await startInspector();
  token = new URL(inspector.url).searchParams.get('token') ?? '';
  const opened = await send(`/?token=${token}`);
  assert.equal(opened.status, 303);
  const setCookie = String(opened.headers['set-cookie']);
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Strict/);
  cookie = setCookie.split(';')[0] as string;
});

after(async () => {
  await inspector?.close();
});

test('binds 127.0.0.1 and prints a URL carrying a long random token', () => {
  assert.match(inspector.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
});

test('the page and its actions work with the token (cookie or bearer header)', async () => {
  const page = await send('/', { headers: { Cookie: cookie } });
  assert.equal(page.status, 200);
  assert.match(page.body, /<div id="app">/);
  assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
  const state = await send('/api/state', {
    method: 'POST',
    headers: { ...json, Cookie: cookie },
    body: '{}',
  });
  assert.equal(state.status, 200);
  assert.equal(JSON.parse(state.body).result.state.status, 'idle');
  const bearer = await send('/api/state', {
    method: 'POST',
    headers: { ...json, Authorization: `Bearer ${token}` },
    body: '{}',
  });
  assert.equal(bearer.status, 200);
});

test('a request without the token is refused', async () => {
  for (const path of ['/', '/app.js', '/events']) assert.equal((await send(path)).status, 401, path);
  const action = await send('/api/state', { method: 'POST', headers: json, body: '{}' });
  assert.equal(action.status, 401);
  assert.doesNotMatch(action.body, /idle/);
});

test('a wrong token is refused, in the URL, the cookie or the header', async () => {
  const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
  assert.equal((await send(`/?token=${wrong}`)).status, 401);
  assert.equal(
    (await send('/', { headers: { Cookie: `mcpkit_inspector_${inspector.port}=${wrong}` } })).status,
    401,
  );
  assert.equal((await send('/', { headers: { Authorization: `Bearer ${wrong}` } })).status, 401);
  // Another inspector's cookie (another port) is not this one's.
  assert.equal((await send('/', { headers: { Cookie: `mcpkit_inspector_1=${token}` } })).status, 401);
  // The token in a query string is only taken by the opening URL, never as authentication of an action.
  const action = await send(`/api/state?token=${token}`, { method: 'POST', headers: json, body: '{}' });
  assert.equal(action.status, 401);
});

test('a foreign Origin is refused, even with the token', async () => {
  for (const origin of [
    'http://evil.example',
    'http://127.0.0.1:1',
    `https://127.0.0.1:${inspector.port}`,
    `http://127.0.0.1.evil.example:${inspector.port}`,
    'null',
  ]) {
    const res = await send('/api/state', {
      method: 'POST',
      headers: { ...json, Cookie: cookie, Origin: origin },
      body: '{}',
    });
    assert.equal(res.status, 403, origin);
    assert.doesNotMatch(res.body, /idle/);
  }
  const own = await send('/api/state', {
    method: 'POST',
    headers: { ...json, Cookie: cookie, Origin: inspector.origin },
    body: '{}',
  });
  assert.equal(own.status, 200);
  const crossSite = await send('/', { headers: { Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' } });
  assert.equal(crossSite.status, 403);
});

test('a foreign Host header (DNS rebinding) is refused, even with the token', async () => {
  for (const host of [
    'evil.example',
    `evil.example:${inspector.port}`,
    `127.0.0.1.evil.example:${inspector.port}`,
    '127.0.0.1:1',
  ]) {
    const res = await send('/', { headers: { Host: host, Cookie: cookie } });
    assert.equal(res.status, 403, host);
    const opening = await send(`/?token=${token}`, { headers: { Host: host } });
    assert.equal(opening.status, 403, `${host} (opening URL)`);
  }
  assert.equal(
    (await send('/', { headers: { Host: `localhost:${inspector.port}`, Cookie: cookie } })).status,
    200,
  );
});

test('actions need a JSON body; malformed ones are refused without harm', async () => {
  const auth = { Cookie: cookie };
  assert.equal(
    (
      await send('/api/state', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'text/plain' },
        body: '{}',
      })
    ).status,
    415,
  );
  assert.equal(
    (await send('/api/nope', { method: 'POST', headers: { ...auth, ...json }, body: '{}' })).status,
    404,
  );
  for (const [op, body] of [
    ['state', '{not json'],
    ['state', '[]'],
    ['connect', '{"target": {"kind": "stdio", "command": "   "}}'],
    ['connect', '{"target": {"kind": "http", "url": "file:///etc/passwd"}}'],
    ['connect', '{"target": {"kind": "ftp"}}'],
    ['connect', '{"revision": "1999-01-01"}'],
    ['call', '{"callId": 1, "name": "x"}'],
    ['answer', '{"id": "ask-404", "answer": {}}'],
    ['roots', '{"roots": [{"uri": "http://not-a-file"}]}'],
    ['tools', '{}'],
  ] as const) {
    const res = await send(`/api/${op}`, { method: 'POST', headers: { ...auth, ...json }, body });
    assert.equal(res.status, 400, `${op} ${body}: ${res.body}`);
    assert.equal(JSON.parse(res.body).ok, false);
  }
  // Still serving.
  assert.equal(
    (await send('/api/state', { method: 'POST', headers: { ...auth, ...json }, body: '{}' })).status,
    200,
  );
});
