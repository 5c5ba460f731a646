import assert from 'node:assert/strict';
import type http from 'node:http';
import { afterEach, describe, test } from 'node:test';
import {
  event,
  INIT,
  initResult,
  json,
  MockServer,
  message,
  openSse,
  Recorder,
  sleep,
} from '../../../test/http-client/mock-server.js';
import { McpkitError } from '../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import { SseLegacyClientTransport } from './legacy-sse.js';

const servers: MockServer[] = [];
const transports: SseLegacyClientTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

/** A legacy server: GET opens the stream and names `endpoint`; POSTs there are answered on the stream. */
async function legacyServer(endpoint: string | ((url: string) => string) = '/messages?sessionId=abc') {
  const streams: http.ServerResponse[] = [];
  const server = await MockServer.start((req, res) => {
    if (req.method === 'GET') {
      openSse(res);
      streams.push(res);
      event(res, {
        event: 'endpoint',
        data: typeof endpoint === 'function' ? endpoint(server.url) : endpoint,
      });
      return;
    }
    if (req.method === 'POST' && req.url.startsWith('/messages')) {
      res.writeHead(202).end('Accepted');
      const body = req.body;
      if (body?.method === 'initialize') message(streams[0]!, initResult(body.id, '2024-11-05'));
      else if (body?.method === 'fail') return;
      else if ('id' in body && 'method' in body)
        message(streams[0]!, { jsonrpc: '2.0', id: body.id, result: {} });
      return;
    }
    res.writeHead(404).end();
  });
  servers.push(server);
  return { server, streams };
}

async function open(url: string, options = {}) {
  const transport = new SseLegacyClientTransport(url, options);
  transports.push(transport);
  const rx = new Recorder();
  await transport.start(rx);
  return { transport, rx };
}

describe('SseLegacyClientTransport', { timeout: 20_000 }, () => {
  test('waits for the endpoint event, POSTs there, and delivers message events', async () => {
    const { server } = await legacyServer();
    const { transport, rx } = await open(server.url, { headers: { authorization: 'Bearer x' } });
    assert.equal(transport.endpoint?.href, server.url.replace('/mcp', '/messages?sessionId=abc'));
    await transport.send(INIT as JsonRpcMessage);
    const response = await rx.response(1);
    assert.equal(response.result.protocolVersion, '2024-11-05');
    const get = server.seen('GET')[0];
    assert.equal(get?.headers.accept, 'text/event-stream');
    const post = server.seen('POST')[0];
    assert.equal(post?.url, '/messages?sessionId=abc');
    assert.equal(post?.headers['content-type'], 'application/json');
    assert.equal(post?.headers.authorization, 'Bearer x');
  });

  test('refuses an endpoint on another origin', async () => {
    const { server } = await legacyServer('http://evil.example:8080/messages');
    const transport = new SseLegacyClientTransport(server.url);
    await assert.rejects(transport.start(new Recorder()), /not the origin of the SSE stream/);
    await assert.rejects(transport.send(INIT as JsonRpcMessage), (e: unknown) => e instanceof McpkitError);
  });

  test('start() gives up when no endpoint event comes in time', async () => {
    const server = await MockServer.start((_req, res) => openSse(res));
    servers.push(server);
    const transport = new SseLegacyClientTransport(server.url, { endpointTimeoutMs: 150 });
    const started = performance.now();
    await assert.rejects(transport.start(new Recorder()), /no endpoint event within 150 ms/);
    assert.ok(performance.now() - started < 1_000);
  });

  test('start() reports an HTTP error on the GET', async () => {
    const server = await MockServer.start((_req, res) => json(res, { error: 'nope' }, {}, 403));
    servers.push(server);
    await assert.rejects(new SseLegacyClientTransport(server.url).start(new Recorder()), /HTTP 403/);
  });

  test('the stream ending closes the transport with an error; close() is quiet and once', async () => {
    const { server, streams } = await legacyServer();
    const { rx } = await open(server.url);
    streams[0]!.end();
    await sleep(100);
    assert.equal(rx.closes.length, 1);
    assert.match(rx.closes[0]!.message, /SSE stream was lost/);

    const second = await open(server.url);
    let closed = false;
    streams[1]!.on('close', () => {
      closed = true;
    });
    await second.transport.close();
    await second.transport.close();
    await sleep(50);
    assert.ok(closed, 'the server saw the stream end');
    assert.deepEqual(second.rx.closes, [undefined]);
  });

  test('a refused POST answers its request with an error response', async () => {
    const server = await MockServer.start((req, res) => {
      if (req.method === 'GET') {
        openSse(res);
        event(res, { event: 'endpoint', data: '/messages' });
      } else
        json(res, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no such session' } }, {}, 404);
    });
    servers.push(server);
    const { transport, rx } = await open(server.url);
    await transport.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    assert.deepEqual((await rx.response(9)).error, { code: -32000, message: 'no such session' });
    await assert.rejects(
      transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      /no such session/,
    );
  });
});
