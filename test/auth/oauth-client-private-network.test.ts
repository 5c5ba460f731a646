// A remote MCP server's discovery cannot aim the OAuth client at this machine or its network: every URL learned
// from discovery (the challenge's resource_metadata, authorization_servers, the authorization server's token,
// registration and authorization endpoints, the 2025-03-26 fallback's metadata) on a loopback, private,
// link-local, unique-local, unspecified, multicast or CGNAT address, in any notation, is refused (or, for the
// challenge's hint, ignored) and never requested; a server on such an address may use the same range; the app may
// allow more; with a checked fetch, a host name that resolves to 127.0.0.1 is refused as it connects.
// The network is an in-memory fetch recording every request (real HTTPS host names), beside real sockets where the
// connection itself is the point.
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type LookupFunction } from 'node:net';
import { describe, test } from 'node:test';
import { type CheckedFetch, OAuthClient, type OAuthClientOptions } from '../../src/auth.js';
import type { AuthChallenge } from '../../src/index.js';
import { McpkitError } from '../../src/index.js';
import { checkedFetch } from '../../src/node.js';

const AS = 'https://as.example';
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** What a discovery document says, each part replaceable by a test. */
interface Setup {
  /** The MCP server. Default https://rs.example/mcp. */
  server?: string;
  /** The issuer its protected-resource metadata names. */
  authorizationServer?: string;
  /** Endpoints of the authorization server's metadata that replace the defaults on its own origin. */
  endpoints?: Record<string, string>;
  /** No protected-resource metadata: the 2025-03-26 fallback (metadata at the server's origin). */
  legacy?: boolean;
}

/** A world answering discovery on any origin, recording every URL requested. */
function world(setup: Setup = {}) {
  const server = new URL(setup.server ?? 'https://rs.example/mcp');
  const issuer = setup.authorizationServer ?? AS;
  const seen: URL[] = [];
  const fetch = async (url: URL, _init: RequestInit): Promise<Response> => {
    seen.push(url);
    const path = url.pathname;
    if (path === '/.well-known/oauth-protected-resource/mcp' || path === '/prm') {
      if (setup.legacy) return new Response(null, { status: 404 });
      return json({ resource: server.href, authorization_servers: [issuer] });
    }
    if (path === '/.well-known/oauth-authorization-server') {
      const origin = url.origin;
      return json({
        issuer: new URL(issuer).origin === origin ? issuer : origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        ...setup.endpoints,
      });
    }
    if (path === '/register') return json({ client_id: 'c1', token_endpoint_auth_method: 'none' }, 201);
    if (path === '/token') return json({ access_token: `token-from-${url.host}`, token_type: 'Bearer' });
    return new Response('not found', { status: 404 });
  };
  return { server, fetch, seen };
}

/** A user who approves every authorization; `calls` are the URLs the browser was sent to. */
function user() {
  const calls: URL[] = [];
  const authorize = async (url: URL) => {
    calls.push(url);
    return `http://127.0.0.1:9/callback?code=c&state=${url.searchParams.get('state')}`;
  };
  return { authorize, calls };
}

function client(w: ReturnType<typeof world>, u = user(), extra: Partial<OAuthClientOptions> = {}) {
  return new OAuthClient({
    grant: { type: 'authorization_code', redirectUri: 'http://127.0.0.1:9/callback', authorize: u.authorize },
    fetch: w.fetch,
    ...extra,
  });
}

const challenge = (server: URL, header = 'Bearer'): AuthChallenge => ({
  status: 401,
  headers: new Headers({ 'www-authenticate': header }),
  url: server,
  sentAuthorization: undefined,
});

/** Runs the sign-in; resolves with the error it ended with, or undefined when it got a token. */
async function signIn(auth: OAuthClient, server: URL, header?: string): Promise<McpkitError | undefined> {
  await auth.authorization(server);
  try {
    await auth.unauthorized(challenge(server, header), undefined);
  } catch (e) {
    assert.ok(e instanceof McpkitError, `an McpkitError, not ${String(e)}`);
    return e;
  }
  assert.ok((await auth.authorization(server))?.startsWith('Bearer '), 'a token');
  return undefined;
}

/**
 * Hosts a remote server may not send the client to, as a URL writes them: the URL parser's normalisation
 * (decimal, octal, hex, short IPv4; compressed IPv6) is part of what is tested.
 */
const FORBIDDEN = [
  '10.1.2.3',
  '172.16.0.1',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '224.0.0.1',
  '0.0.0.0',
  '0',
  '127.0.0.1',
  '127.0.0.1.',
  '2130706433',
  '0177.0.0.1',
  '0x7f.0.0.1',
  '0x7f000001',
  '127.1',
  '0x0a.1',
  'localhost',
  'localhost.',
  'app.localhost',
  '[::1]',
  '[::]',
  '[::ffff:127.0.0.1]',
  '[0:0:0:0:0:ffff:7f00:1]',
  '[::ffff:169.254.169.254]',
  '[::ffff:0:127.0.0.1]',
  '[::127.0.0.1]',
  '[64:ff9b::127.0.0.1]',
  '[64:ff9b::a9fe:a9fe]',
  '[64:ff9b:1::1]',
  '[2002:7f00:1::]',
  '[2002:a9fe:a9fe::1]',
  '[fd00::1]',
  '[fe80::1]',
  '[ff02::1]',
];

/** Whether any recorded request went to `host` (compared as the URL parser writes it). */
function requested(seen: readonly URL[], host: string): boolean {
  const target = new URL(`https://${host}/`).host;
  return seen.some((url) => url.host === target);
}

/** Why `e` is not the refusal naming `host` that a forbidden URL must end in; undefined when it is. */
function notRefused(e: McpkitError | undefined, host: string): string | undefined {
  if (e === undefined) return 'got a token';
  if (e.code !== 'AUTH_PRIVATE_NETWORK') return `${e.code}: ${e.message}`;
  if (!e.message.includes(new URL(`https://${host}/`).host)) return `does not name the URL: ${e.message}`;
  return undefined;
}

function refusedNaming(e: McpkitError | undefined, host: string, label: string): void {
  assert.equal(notRefused(e, host), undefined, label);
}

describe('a remote server cannot aim the OAuth client at private addresses', () => {
  // Each test tries every notation and lists those that got through, so a failure shows all of them at once.
  test("the challenge's resource_metadata on one is ignored (never requested): the server's well-known URI is used", async () => {
    const leaks: string[] = [];
    for (const host of FORBIDDEN) {
      const w = world();
      const e = await signIn(client(w), w.server, `Bearer resource_metadata="https://${host}/prm"`);
      if (e !== undefined) leaks.push(`${host}: ${e.message}`);
      if (requested(w.seen, host)) leaks.push(`${host}: requested`);
      if (w.seen[0]?.href !== 'https://rs.example/.well-known/oauth-protected-resource/mcp')
        leaks.push(`${host}: started at ${w.seen[0]?.href}`);
    }
    assert.deepEqual(leaks, []);
  });

  test('an authorization server on one is refused, naming it, and never requested', async () => {
    const leaks: string[] = [];
    for (const host of FORBIDDEN) {
      const w = world({ authorizationServer: `https://${host}` });
      const why = notRefused(await signIn(client(w), w.server), host);
      if (why !== undefined) leaks.push(`${host}: ${why}`);
      if (requested(w.seen, host)) leaks.push(`${host}: requested`);
    }
    assert.deepEqual(leaks, []);
  });

  test('a token, registration or authorization endpoint on one is refused before any is used', async () => {
    const leaks: string[] = [];
    for (const endpoint of ['token_endpoint', 'registration_endpoint', 'authorization_endpoint']) {
      for (const host of FORBIDDEN) {
        const w = world({ endpoints: { [endpoint]: `https://${host}/x` } });
        const u = user();
        const label = `${endpoint} on ${host}`;
        const why = notRefused(await signIn(client(w, u), w.server), host);
        if (why !== undefined) leaks.push(`${label}: ${why}`);
        if (requested(w.seen, host)) leaks.push(`${label}: requested`);
        if (u.calls.length > 0) leaks.push(`${label}: the browser was sent to the authorization endpoint`);
        if (w.seen.some((url) => url.pathname === '/register')) leaks.push(`${label}: registered anyway`);
      }
    }
    assert.deepEqual(leaks, []);
  });

  test('the 2025-03-26 fallback: endpoints of the metadata at the server origin on one are refused', async () => {
    const leaks: string[] = [];
    for (const host of FORBIDDEN) {
      const w = world({ legacy: true, endpoints: { token_endpoint: `https://${host}/token` } });
      const why = notRefused(await signIn(client(w), w.server), host);
      if (why !== undefined) leaks.push(`${host}: ${why}`);
      if (requested(w.seen, host)) leaks.push(`${host}: requested`);
    }
    assert.deepEqual(leaks, []);
  });
});

describe('what may still be reached', () => {
  test('a server on a private address may use an authorization server in the same range, not another range', async () => {
    const same = world({ server: 'https://10.0.0.5/mcp', authorizationServer: 'https://10.0.0.6' });
    assert.equal(await signIn(client(same), same.server), undefined);
    assert.ok(requested(same.seen, '10.0.0.6'));

    for (const host of ['127.0.0.1', '169.254.169.254', '[fd00::1]', '[::ffff:127.0.0.1]']) {
      const other = world({ server: 'https://10.0.0.5/mcp', authorizationServer: `https://${host}` });
      refusedNaming(await signIn(client(other), other.server), host, host);
      assert.ok(!requested(other.seen, host), host);
    }
  });

  test('a server on loopback may use a loopback authorization server (by name or address), not a private one', async () => {
    for (const issuer of ['http://localhost:8', 'http://127.0.0.1:8', 'https://[::ffff:127.0.0.1]:8']) {
      const w = world({ server: 'http://127.0.0.1:9/mcp', authorizationServer: issuer });
      assert.equal(await signIn(client(w), w.server), undefined, issuer);
    }
    const w = world({ server: 'http://127.0.0.1:9/mcp', authorizationServer: 'https://192.168.1.1' });
    refusedNaming(await signIn(client(w), w.server), '192.168.1.1', 'private from loopback');
    assert.ok(!requested(w.seen, '192.168.1.1'));
  });

  test('allowPrivateNetwork: a predicate lets the app allow the ranges it chooses', async () => {
    const asked: string[] = [];
    const allowPrivateNetwork = (url: URL, range: string, address: string) => {
      asked.push(`${url.host} ${range} ${address}`);
      return range === 'private';
    };
    const ok = world({ endpoints: { token_endpoint: 'https://10.1.2.3/token' } });
    assert.equal(await signIn(client(ok, user(), { allowPrivateNetwork }), ok.server), undefined);
    assert.ok(requested(ok.seen, '10.1.2.3'));
    assert.ok(asked.includes('10.1.2.3 private 10.1.2.3'), asked.join(', '));

    const metadata = world({ endpoints: { token_endpoint: 'https://169.254.169.254/token' } });
    const e = await signIn(client(metadata, user(), { allowPrivateNetwork }), metadata.server);
    refusedNaming(e, '169.254.169.254', 'link-local');
    assert.ok(!requested(metadata.seen, '169.254.169.254'));

    const all = world({ endpoints: { token_endpoint: 'https://169.254.169.254/token' } });
    assert.equal(await signIn(client(all, user(), { allowPrivateNetwork: true }), all.server), undefined);
    assert.ok(requested(all.seen, '169.254.169.254'));
  });
});

/** A lookup answering from a fixed table, as the system resolver would for a name pointed anywhere. */
function mappedLookup(table: Record<string, string>, asked: string[] = []): LookupFunction {
  return (hostname, options, callback) => {
    asked.push(hostname);
    const address = table[hostname];
    if (address === undefined) {
      callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    if (options.all === true) callback(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  };
}

describe('addresses are checked as the client connects (a name resolving to a private address)', () => {
  test('a token endpoint whose name resolves to 127.0.0.1 is refused without a connection', async () => {
    let connections = 0;
    const listener = createTcpServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    try {
      const w = world({ endpoints: { token_endpoint: `https://rebind.example:${port}/token` } });
      const network = checkedFetch({ lookup: mappedLookup({ 'rebind.example': '127.0.0.1' }) });
      // The discovery documents come from the in-memory world; the token endpoint's name goes to the real resolver
      // step and socket of checkedFetch.
      const composed: CheckedFetch = (url, init, admit) =>
        url.hostname === 'rebind.example' ? network(url, init, admit) : w.fetch(url, init);
      const auth = client(w, user(), { checkedFetch: composed });
      const e = await signIn(auth, w.server);
      assert.ok(e, 'the sign-in must fail');
      assert.equal(e.code, 'AUTH_PRIVATE_NETWORK', e.message);
      assert.match(e.message, /rebind\.example resolves to 127\.0\.0\.1, a loopback address/);
      assert.equal(connections, 0);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  test('a loopback server with an authorization server named localhost: resolved, admitted, the real requests go through', async () => {
    const requests: string[] = [];
    const http = createHttpServer((req, res) => {
      requests.push(`${req.method} ${req.headers.host} ${req.url}`);
      const origin = `http://${req.headers.host}`;
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/.well-known/oauth-protected-resource/mcp')
        return send(200, { resource: `${origin}/mcp`, authorization_servers: [issuer] });
      if (req.url === '/.well-known/oauth-authorization-server')
        return send(200, { issuer, token_endpoint: `${issuer}/token` });
      if (req.url === '/token' && req.method === 'POST') {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => {
          body += chunk;
        });
        req.on('end', () => {
          const form = new URLSearchParams(body);
          send(200, { access_token: `for-${form.get('client_id')}`, token_type: 'Bearer' });
        });
        return;
      }
      send(404, {});
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as { port: number }).port;
    const issuer = `http://localhost:${port}`;
    try {
      const server = new URL(`http://127.0.0.1:${port}/mcp`);
      const asked: string[] = [];
      const auth = new OAuthClient({
        grant: { type: 'client_credentials' },
        credentials: { clientId: 'app', issuer },
        checkedFetch: checkedFetch({ lookup: mappedLookup({ localhost: '127.0.0.1' }, asked) }),
      });
      await auth.authorization(server);
      assert.equal(await auth.unauthorized(challenge(server), undefined), true);
      assert.equal(await auth.authorization(server), 'Bearer for-app');
      assert.deepEqual(requests, [
        `GET 127.0.0.1:${port} /.well-known/oauth-protected-resource/mcp`,
        `GET localhost:${port} /.well-known/oauth-authorization-server`,
        `POST localhost:${port} /token`,
      ]);
      // The name went through the checked fetch's resolution (and its loopback address was admitted).
      assert.deepEqual(asked, ['localhost', 'localhost']);
    } finally {
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
