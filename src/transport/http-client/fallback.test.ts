import assert from 'node:assert/strict';
import type http from 'node:http';
import { afterEach, describe, test } from 'node:test';
import {
  event,
  type Handler,
  INIT,
  INITIALIZED,
  initResult,
  MockServer,
  mcpHandler,
  message,
  openSse,
  Recorder,
} from '../../../test/http-client/mock-server.js';
import type { JsonRpcMessage, JsonRpcRequest } from '../../jsonrpc/types.js';
import { META } from '../../spec/modern.js';
import { HttpClientTransport } from './fallback.js';

const servers: MockServer[] = [];
const transports: HttpClientTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

/**
 * A 2024-11-05 server whose SSE endpoint is the URL itself; a POST to it gets `status`, unless `modern`
 * handles it.
 */
async function legacyOnly(status: number, modern?: Handler): Promise<MockServer> {
  let stream: http.ServerResponse | undefined;
  const server = await MockServer.start((req, res) => {
    if (modern && req.method === 'POST' && req.url === '/mcp' && req.body?.params?._meta) {
      return modern(req, res);
    }
    if (req.method === 'GET' && req.url === '/mcp') {
      openSse(res);
      stream = res;
      event(res, { event: 'endpoint', data: '/messages?sessionId=L1' });
      return;
    }
    if (req.method === 'POST' && req.url.startsWith('/messages')) {
      res.writeHead(202).end();
      if (req.body?.method === 'initialize') message(stream!, initResult(req.body.id, '2024-11-05'));
      else if ('id' in req.body && 'method' in req.body)
        message(stream!, { jsonrpc: '2.0', id: req.body.id, result: {} });
      return;
    }
    res.writeHead(status).end();
  });
  servers.push(server);
  return server;
}

/** A 2026-07-28 request (protocol version and capabilities in `_meta`). */
function modern(id: number, method: string): JsonRpcRequest {
  const _meta = { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {} };
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: method === 'subscriptions/listen' ? { notifications: {}, _meta } : { _meta },
  };
}

async function open(url: string, options = {}) {
  const transport = new HttpClientTransport(url, options);
  transports.push(transport);
  const rx = new Recorder();
  await transport.start(rx);
  return { transport, rx };
}

describe('HttpClientTransport', { timeout: 20_000 }, () => {
  for (const status of [405, 404, 400]) {
    test(`falls back to HTTP+SSE when the initialize POST gets ${status}, re-sending initialize there`, async () => {
      const server = await legacyOnly(status);
      const { transport, rx } = await open(server.url);
      assert.equal(transport.kind, 'streamable-http');
      await transport.send(INIT as JsonRpcMessage);
      assert.equal(transport.kind, 'sse');
      assert.equal((await rx.response(1)).result.protocolVersion, '2024-11-05');
      await transport.send(INITIALIZED as JsonRpcMessage);
      await transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
      await rx.response(2);
      assert.deepEqual(
        server.requests.map((r) => `${r.method} ${r.url} ${r.body?.method ?? ''}`.trim()),
        [
          'POST /mcp initialize',
          'GET /mcp',
          'POST /messages?sessionId=L1 initialize',
          'POST /messages?sessionId=L1 notifications/initialized',
          'POST /messages?sessionId=L1 ping',
        ],
      );
      assert.deepEqual(rx.errors, []);
    });
  }

  test('stays on Streamable HTTP when the server speaks it', async () => {
    const server = await MockServer.start(mcpHandler({ session: 's' }));
    servers.push(server);
    const { transport, rx } = await open(server.url);
    await transport.send(INIT as JsonRpcMessage);
    await rx.response(1);
    assert.equal(transport.kind, 'streamable-http');
    assert.equal(transport.sessionId, 's');
  });

  test('does not fall back on other statuses: the initialize gets an error response', async () => {
    const server = await MockServer.start((_req, res) => {
      res.writeHead(500).end('boom');
    });
    servers.push(server);
    const { transport, rx } = await open(server.url);
    await transport.send(INIT as JsonRpcMessage);
    assert.match((await rx.response(1)).error.message, /HTTP 500.*boom/);
    assert.equal(transport.kind, 'streamable-http');
    assert.equal(server.seen('GET').length, 0);
  });

  test('a failed fallback rejects the initialize naming both failures', async () => {
    const server = await MockServer.start((_req, res) => {
      res.writeHead(405).end();
    });
    servers.push(server);
    const { transport } = await open(server.url);
    await assert.rejects(
      transport.send(INIT as JsonRpcMessage),
      /refused the Streamable HTTP initialize \(HTTP 405.*legacy HTTP\+SSE fallback failed too: .*HTTP 405/,
    );
  });

  test('legacyFallback: false keeps the 405 as an error response', async () => {
    const server = await legacyOnly(405);
    const { transport, rx } = await open(server.url, { legacyFallback: false });
    await transport.send(INIT as JsonRpcMessage);
    assert.match((await rx.response(1)).error.message, /HTTP 405/);
    assert.equal(transport.kind, 'streamable-http');
  });

  test('a failed modern probe decides nothing: the initialize after it still falls back', async () => {
    const server = await legacyOnly(405);
    const { transport, rx } = await open(server.url);
    await transport.send(modern(10, 'server/discover'));
    const probe = await rx.response(10);
    assert.match(probe.error.message, /HTTP 405/);
    assert.equal(transport.kind, 'streamable-http');
    assert.equal(server.seen('GET').length, 0);

    await transport.send(INIT as JsonRpcMessage);
    assert.equal(transport.kind, 'sse');
    assert.equal((await rx.response(1)).result.protocolVersion, '2024-11-05');
    assert.equal(server.seen('POST', 'initialize')[0]?.headers['mcp-protocol-version'], undefined);
    await assert.rejects(
      transport.send(modern(11, 'tools/list')),
      /only the 2024-11-05 HTTP\+SSE transport.*2026-07-28/,
    );
    assert.deepEqual(rx.errors, []);
  });

  test('a modern probe answered by a modern server decides nothing either', async () => {
    const server = await MockServer.start(mcpHandler({ session: 's' }));
    servers.push(server);
    const { transport, rx } = await open(server.url);
    await transport.send(modern(10, 'server/discover'));
    assert.deepEqual((await rx.response(10)).result, {});
    assert.equal(server.seen('POST', 'server/discover')[0]?.headers['mcp-protocol-version'], '2026-07-28');
    await transport.send(INIT as JsonRpcMessage);
    await rx.response(1);
    assert.equal(transport.kind, 'streamable-http');
    assert.equal(transport.sessionId, 's');
  });

  test('cancelling a modern request before any decision closes it without deciding', async () => {
    const server = await legacyOnly(405, (_req, res) => openSse(res));
    const { transport, rx } = await open(server.url);
    await transport.send(modern(10, 'subscriptions/listen'));
    const listen = await server.waitFor((r) => r.body?.method === 'subscriptions/listen');
    const gone = new Promise((resolve) => listen.res.once('close', resolve));
    await transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10 } });
    await gone;
    assert.equal(transport.kind, 'streamable-http');
    assert.equal(server.seen('POST', 'notifications/cancelled').length, 0);
    await transport.send(INIT as JsonRpcMessage);
    assert.equal(transport.kind, 'sse');
    await rx.response(1);
  });
});
