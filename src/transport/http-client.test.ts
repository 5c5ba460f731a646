import assert from 'node:assert/strict';
import type http from 'node:http';
import { afterEach, describe, test } from 'node:test';
import {
  event,
  INIT,
  INITIALIZED,
  initResult,
  MockServer,
  mcpHandler,
  message,
  openSse,
  Recorder,
} from '../../test/http-client/mock-server.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import { HttpClientTransport } from './http-client.js';

const servers: MockServer[] = [];
const transports: HttpClientTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

/** A 2024-11-05 server whose SSE endpoint is the URL itself; a POST to it gets `status`. */
async function legacyOnly(status: number): Promise<MockServer> {
  let stream: http.ServerResponse | undefined;
  const server = await MockServer.start((req, res) => {
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
});
