// The conformance suite's client scenario `sse-retry` (0.1.16), restaged as a raw node:http mock and driven by
// OUR Client + HttpClientTransport: initialize answers JSON (2025-03-26, with a session id); tools/call answers
// SSE with a priming event (`retry: 500`) and closes after 50 ms without a result; every GET gets a priming
// event and stays open, and a GET arriving while the call is pending gets the result. The suite measures the
// time from that close to the LAST GET it received: 450–700 ms passes; it also wants Last-Event-ID on the GET.
import assert from 'node:assert/strict';
import type http from 'node:http';
import { afterEach, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { HttpClientTransport } from '../../src/transport/http-client/fallback.js';
import { event, json, MockServer, message, openSse } from './mock-server.js';

const RETRY = 500;
let server: MockServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
});

test('sse-retry: reconnects by GET after the server retry, with Last-Event-ID, and finishes the call', {
  timeout: 15_000,
}, async (t) => {
  const session = `session-${Date.now()}`;
  let counter = 0;
  let pendingCall: unknown = null;
  let closedAt: number | undefined;
  let primingId = '';
  server = await MockServer.start((req, res) => {
    if (req.method === 'GET') {
      openSse(res, { 'mcp-session-id': session });
      event(res, { id: `event-${++counter}`, retry: RETRY, data: '' });
      if (pendingCall !== null) {
        message(
          res,
          { jsonrpc: '2.0', id: pendingCall, result: { content: [{ type: 'text', text: 'ok' }] } },
          `event-${++counter}`,
        );
        pendingCall = null;
      }
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const body = req.body;
    const headers = { 'mcp-session-id': session };
    if (body.method === 'initialize') {
      json(
        res,
        {
          jsonrpc: '2.0',
          id: body.id,
          result: {
            protocolVersion: '2025-03-26',
            serverInfo: { name: 'sse-retry', version: '1' },
            capabilities: { tools: {} },
          },
        },
        headers,
      );
    } else if (body.method === 'tools/list') {
      json(
        res,
        {
          jsonrpc: '2.0',
          id: body.id,
          result: {
            tools: [
              { name: 'test_reconnection', inputSchema: { type: 'object', properties: {}, required: [] } },
            ],
          },
        },
        headers,
      );
    } else if (body.method === 'tools/call') {
      pendingCall = body.id;
      openSse(res, headers);
      primingId = `event-${++counter}`;
      event(res, { id: primingId, retry: RETRY, data: '' });
      setTimeout(() => {
        closedAt = performance.now();
        (res as http.ServerResponse).end();
      }, 50);
    } else if (body.id === undefined) {
      res.writeHead(202).end();
    } else {
      json(res, { jsonrpc: '2.0', id: body.id, result: {} }, headers);
    }
  });
  server.url = server.url.replace('/mcp', '/');

  client = new Client({ name: 'conformance-like', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
  await client.connect(new HttpClientTransport(server.url), { timeout: 5_000 });
  const tools = await client.listTools({ timeout: 5_000 });
  assert.deepEqual(
    tools.map((t) => t.name),
    ['test_reconnection'],
  );
  const result = await client.callTool('test_reconnection', {}, { timeout: 5_000 });
  assert.deepEqual(result.content, [{ type: 'text', text: 'ok' }]);

  const gets = server.seen('GET');
  assert.ok(gets.length >= 1, 'client-sse-graceful-reconnect');
  const last = gets.at(-1)!;
  const delay = last.at - closedAt!;
  t.diagnostic(`close -> last GET: ${delay.toFixed(1)} ms (retry ${RETRY})`);
  assert.ok(delay >= 450 && delay <= 700, `client-sse-retry-timing: ${delay.toFixed(1)} ms`);
  const firstWithId = gets.find((g) => g.headers['last-event-id'] !== undefined);
  assert.ok(firstWithId, 'client-sse-last-event-id');
  assert.equal(last.headers['last-event-id'], primingId);
  assert.equal(last.headers['mcp-protocol-version'], '2025-03-26');
});
