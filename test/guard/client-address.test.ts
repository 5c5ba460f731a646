// The rate limiter's key of an anonymous client on stateless HTTP (no session, no token): its network address, so one
// such client flooding never spends another's budget; a forwarded header is read only when the endpoint is told to
// (and then only the entries its own proxies appended); many addresses take bounded memory.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import { serve } from '../../src/node.js';
import { addressKey } from '../../src/server/guard/subject.js';
import { addressReader } from '../../src/server/http/core/client-address.js';
import type { HttpRequestLike } from '../../src/server/http/core/http.js';
import { createStreamableHttpHandler } from '../../src/server/http/streamable/handler.js';
import { McpServer, type ServerOptions } from '../../src/server/server.js';
import { MemoryRateLimitStore } from '../../src/store/rate-limit-store.js';
import { collect } from './helpers.js';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'same-app', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function server(options: ServerOptions = {}): McpServer {
  const s = new McpServer(
    { name: 'keys', version: '1' },
    { rateLimit: { methods: { 'tools/call': { limit: '2/h', key: 'client' } } }, ...options },
  );
  s.tool('echo', {}, () => 'echo');
  return s;
}

type Style = '2025 without sessions' | '2026-07-28';
const STYLES: readonly Style[] = ['2025 without sessions', '2026-07-28'];

/** One tools/call from `localAddress` (any 127/8 address reaches the loopback server); answers the JSON-RPC code. */
function callFrom(
  url: string,
  style: Style,
  localAddress: string,
  extra: Record<string, string> = {},
): Promise<number | undefined> {
  const modern = style === '2026-07-28';
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: modern ? { name: 'echo', _meta: MODERN_META } : { name: 'echo' },
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': modern ? '2026-07-28' : '2025-06-18',
    ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': 'echo' } : {}),
    ...extra,
  };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        const reply = JSON.parse(text) as { error?: { code: number } };
        resolve(reply.error?.code);
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function flood(
  n: number,
  call: () => Promise<number | undefined>,
): Promise<{ ok: number; limited: number }> {
  const out = { ok: 0, limited: 0 };
  for (let i = 0; i < n; i++) {
    const code = await call();
    if (code === undefined) out.ok++;
    else if (code === ErrorCode.RateLimited) out.limited++;
    else assert.fail(`unexpected code ${code}`);
  }
  return out;
}

describe('anonymous clients of stateless HTTP are keyed by address', { timeout: 60_000 }, () => {
  for (const style of STYLES) {
    test(`${style}: a flood from one address leaves another's budget whole; the audit names the address`, async () => {
      const { records, sink } = collect();
      const running = await serve(server({ audit: { sink } }), { sessions: false, legacySse: false });
      try {
        assert.deepEqual(await flood(5, () => callFrom(running.url, style, '127.0.0.2')), {
          ok: 2,
          limited: 3,
        });
        // The same client software, announcing the same name, from another address.
        assert.deepEqual(await flood(3, () => callFrom(running.url, style, '127.0.0.3')), {
          ok: 2,
          limited: 1,
        });
        assert.deepEqual([...new Set(records.map((r) => r.client))].sort(), [
          'addr:127.0.0.2',
          'addr:127.0.0.3',
        ]);
      } finally {
        await running.close();
      }
    });
  }

  test('a forwarded header is ignored unless the endpoint names it', async () => {
    const running = await serve(server(), { sessions: false, legacySse: false });
    try {
      let n = 0;
      const counted = await flood(4, () =>
        callFrom(running.url, '2025 without sessions', '127.0.0.4', { 'x-forwarded-for': `10.0.0.${++n}` }),
      );
      assert.deepEqual(counted, { ok: 2, limited: 2 }, 'one bucket: the connection address');
    } finally {
      await running.close();
    }
  });

  for (const style of STYLES) {
    test(`${style}, behind one proxy: the address it appended is the key, what the client sent is not`, async () => {
      const running = await serve(server(), {
        sessions: false,
        legacySse: false,
        clientAddress: { header: 'x-forwarded-for' },
      });
      try {
        // Every request comes from the proxy's address; a client rotating a spoofed first entry stays one client.
        let n = 0;
        const spoofing = await flood(4, () =>
          callFrom(running.url, style, '127.0.0.5', { 'x-forwarded-for': `6.6.6.${++n}, 10.0.0.1` }),
        );
        assert.deepEqual(spoofing, { ok: 2, limited: 2 });
        const other = await flood(2, () =>
          callFrom(running.url, style, '127.0.0.5', { 'x-forwarded-for': '10.0.0.2' }),
        );
        assert.deepEqual(other, { ok: 2, limited: 0 });
      } finally {
        await running.close();
      }
    });
  }

  test('many addresses take bounded memory: the store keeps at most maxBuckets', async () => {
    const store = new MemoryRateLimitStore({ maxBuckets: 100 });
    const s = server({ rateLimit: { store, methods: { 'tools/call': { limit: '1/h', key: 'client' } } } });
    const handler = createStreamableHttpHandler(s, {
      sessions: false,
      responseMode: 'json',
      overload: false,
    });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } });
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    };
    const from = (remoteAddress: string): HttpRequestLike => ({
      method: 'POST',
      path: '/mcp',
      query: new URLSearchParams(),
      header: (name) => headers[name],
      text: async () => body,
      remoteAddress,
    });
    try {
      for (let i = 0; i < 2000; i++) {
        const reply = await handler.handle(from(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`));
        assert.equal(reply.status, 200, 'each new address has a fresh bucket');
      }
      assert.ok(store.size <= 100, `${store.size} buckets`);
      // The most recent address is still remembered (and refused).
      assert.equal((await handler.handle(from('10.0.7.207'))).status, 429);
    } finally {
      await handler.close();
    }
  });
});

describe('addresses and their keys', () => {
  test('IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64 network', () => {
    assert.equal(addressKey('192.0.2.7'), 'addr:192.0.2.7');
    assert.equal(addressKey('::ffff:192.0.2.7'), 'addr:192.0.2.7');
    assert.equal(addressKey('2001:db8:0:1:aaaa::1'), 'addr:2001:db8:0:1::/64');
    assert.equal(addressKey('2001:0db8:0000:0001:ffff:ffff:ffff:ffff'), 'addr:2001:db8:0:1::/64');
    assert.equal(addressKey('2001:db8::1'), 'addr:2001:db8:0:0::/64');
    assert.equal(addressKey('::1'), 'addr:0:0:0:0::/64');
    assert.equal(addressKey('fe80::1%eth0'), 'addr:fe80:0:0:0::/64');
  });

  const req = (headers: Record<string, string>, remoteAddress = '192.0.2.1'): HttpRequestLike => ({
    method: 'POST',
    path: '/',
    query: new URLSearchParams(),
    header: (name) => headers[name],
    text: async () => '',
    remoteAddress,
  });

  test('the reader: the peer by default; the header entries its proxies appended when configured', () => {
    const peer = addressReader(undefined);
    assert.equal(peer(req({ 'x-forwarded-for': '6.6.6.6' })), '192.0.2.1');
    const one = addressReader({ header: 'X-Forwarded-For' });
    assert.equal(one(req({ 'x-forwarded-for': '6.6.6.6, 198.51.100.9' })), '198.51.100.9');
    assert.equal(one(req({})), '192.0.2.1', 'no header: the peer');
    assert.equal(one(req({ 'x-forwarded-for': 'garbage' })), '192.0.2.1', 'not an address: the peer');
    const two = addressReader({ header: 'x-forwarded-for', proxies: 2 });
    assert.equal(two(req({ 'x-forwarded-for': '6.6.6.6, 198.51.100.9, 203.0.113.1' })), '198.51.100.9');
    assert.equal(two(req({ 'x-forwarded-for': '198.51.100.9' })), '192.0.2.1', 'fewer entries: the peer');
    const rfc = addressReader({ header: 'forwarded' });
    assert.equal(rfc(req({ forwarded: 'for=6.6.6.6, for="[2001:db8::7]:4711";proto=https' })), '2001:db8::7');
    assert.equal(rfc(req({ forwarded: 'for=198.51.100.9:8080' })), '198.51.100.9');
    const real = addressReader({ header: 'x-real-ip' });
    assert.equal(real(req({ 'x-real-ip': '198.51.100.10' })), '198.51.100.10');
  });

  test('bad options are refused when the endpoint is made', () => {
    const s = server();
    assert.throws(
      () => createStreamableHttpHandler(s, { clientAddress: { header: 'x forwarded' } }),
      /clientAddress\.header/,
    );
    assert.throws(
      () => createStreamableHttpHandler(s, { clientAddress: { header: 'x-forwarded-for', proxies: 0 } }),
      /clientAddress\.proxies/,
    );
  });
});
