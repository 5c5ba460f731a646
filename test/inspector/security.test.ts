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
    ['connect', '{"target": {"kind": "configured", "name": "nowhere"}}'],
    ['connect', '{"target": {"kind": "host"}}'],
    ['connect', '{"target": {"kind": "http", "url": "http://127.0.0.1:1/mcp", "oauth": "yes"}}'],
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

test("the OAuth callback is refused without the sign-in's state and its binding cookie; the start needs the token", async () => {
  const grant = inspector.session.signIns.grant();
  assert.equal(grant.redirectUri, `${inspector.origin}/oauth/callback`);
  const authorization = new URL('https://as.example/authorize?client_id=c&state=the-state-0123456789');
  const redirected = grant.authorize(authorization, undefined);
  let settled = false;
  void redirected.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  // The page sees a path on the inspector to open, never the authorization URL or its state.
  const state = await send('/api/state', {
    method: 'POST',
    headers: { ...json, Cookie: cookie },
    body: '{}',
  });
  const signIn = JSON.parse(state.body).result.state.signIn as { start: string; server: string };
  assert.equal(signIn.server, 'https://as.example');
  assert.match(signIn.start, /^\/oauth\/start\/[\w-]{22}$/);
  assert.ok(!state.body.includes('the-state-0123456789'));
  // Starting needs the token (and the usual Origin and Host checks).
  assert.equal((await send(signIn.start)).status, 401);
  assert.equal(
    (await send(signIn.start, { headers: { Cookie: cookie, Origin: 'http://evil.example' } })).status,
    403,
  );
  assert.equal((await send('/oauth/start/not-a-sign-in', { headers: { Cookie: cookie } })).status, 404);
  const start = await send(signIn.start, { headers: { Cookie: cookie } });
  assert.equal(start.status, 303);
  assert.equal(start.headers.location, authorization.href);
  const setCookie = String(start.headers['set-cookie']);
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Lax/);
  assert.match(setCookie, /Path=\/oauth\/callback/);
  const binding = setCookie.split(';')[0] as string;
  const back = '/oauth/callback?code=the-code&state=the-state-0123456789';
  // Without the binding cookie (another browser, another page's fetch), with only the token, with a wrong binding,
  // with a wrong or missing state, with a foreign Host, or not a GET: refused, and the sign-in keeps waiting.
  for (const [path, headers, status] of [
    [back, {}, 403],
    [back, { Cookie: cookie }, 403],
    [back, { Cookie: `${binding.split('=')[0]}=wrong-binding-value-wrong-binding-value-wron` }, 403],
    ['/oauth/callback?code=the-code&state=other-state', { Cookie: binding }, 400],
    ['/oauth/callback?code=the-code', { Cookie: binding }, 400],
    [back, { Cookie: binding, Host: `evil.example:${inspector.port}` }, 403],
  ] as const) {
    const res = await send(path, { headers });
    assert.equal(res.status, status, `${path} ${JSON.stringify(headers)}: ${res.body}`);
    assert.doesNotMatch(res.body, /the-code|the-state/);
  }
  assert.equal((await send(back, { method: 'POST', headers: { Cookie: binding } })).status, 405);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(settled, false, 'the refused callbacks did not end the sign-in');
  // The browser that started it comes back with the state: accepted once; the OAuth client gets the redirect.
  const done = await send(back, { headers: { Cookie: binding, 'Sec-Fetch-Site': 'cross-site' } });
  assert.equal(done.status, 200);
  assert.match(done.body, /Signed in/);
  const url = new URL(String(await redirected));
  assert.equal(url.searchParams.get('code'), 'the-code');
  assert.equal((await send(back, { headers: { Cookie: binding } })).status, 400, 'a replay');
  const after = await send('/api/state', {
    method: 'POST',
    headers: { ...json, Cookie: cookie },
    body: '{}',
  });
  assert.equal(JSON.parse(after.body).result.state.signIn, undefined);
});
