// mcpkit/otel at the edges of a server, with the real OpenTelemetry JS SDK (in-memory exporters): HTTP requests its
// Streamable HTTP endpoint refuses before any message reaches it (a body that is not JSON, the auth gate's 401) get a
// span with `error.type`; the notifications the server sends get CLIENT spans, their trace context in `_meta`.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { memorySdk } from '../../test/fixtures/otel-sdk.js';
import { Client } from '../client/client.js';
import { serve } from '../server/http/adapters/node-serve.js';
import { McpServer } from '../server/server.js';
import { createLinkedTransports } from '../transport/memory.js';
import { instrumentTransport } from './client.js';
import { instrumentServer } from './server.js';

const sdk = memorySdk();
after(() => sdk.shutdown());
const providers = { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };

function backend(): McpServer {
  const server = new McpServer({ name: 'traced', version: '1.0.0' });
  server.tool('talk', {}, async (_args, ctx) => {
    await ctx.log('info', 'working');
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return server;
}

/** POSTs `body` to `url` as JSON-RPC over Streamable HTTP (`headers` added); the status. */
async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body,
  });
  await response.text();
  return response.status;
}

test('HTTP requests refused before any message reaches the server: a body that is not JSON, a missing token', async () => {
  const open = await serve(instrumentServer(backend(), providers), { sessions: false, legacySse: false });
  const gated = await serve(instrumentServer(backend(), providers), {
    sessions: false,
    legacySse: false,
    auth: {
      verifier: { verify: () => Promise.resolve({ error: 'invalid_token', description: 'not this one' }) },
      resource: 'http://127.0.0.1/mcp',
      authorizationServers: ['https://auth.example.com'],
    },
  });
  try {
    const before = sdk.spans().length;
    assert.equal(await post(open.url, '{"jsonrpc":"2.0","id":1,'), 400);
    assert.equal(await post(gated.url, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'), 401);
    assert.equal(
      await post(gated.url, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {
        authorization: 'Bearer nope',
      }),
      401,
    );
    const spans = sdk
      .spans()
      .slice(before)
      .filter((s) => s.kind === SpanKind.SERVER);
    assert.equal(spans.length, 3, spans.map((s) => s.name).join(' '));
    const [notJson, noToken, badToken] = spans;
    for (const span of spans) {
      assert.equal(span.name, '_OTHER');
      assert.equal(span.attributes['mcp.method.name'], '_OTHER');
      assert.equal(span.attributes['network.transport'], 'tcp');
      assert.equal(span.attributes['client.address'], '127.0.0.1');
      assert.equal(span.attributes['mcp.protocol.version'], '2025-11-25');
      assert.equal(span.status.code, SpanStatusCode.ERROR);
    }
    assert.equal(notJson?.attributes['error.type'], '-32700');
    assert.equal(notJson?.attributes['rpc.response.status_code'], '-32700');
    assert.match(String(notJson?.status.message), /Parse error/);
    assert.equal(noToken?.attributes['error.type'], '401');
    assert.equal(badToken?.attributes['error.type'], '401');
    const metrics = await sdk.metrics();
    const points = metrics.find((m) => m.name === 'mcp.server.operation.duration')?.points ?? [];
    assert.ok(points.some((p) => p.attributes['error.type'] === '-32700'));
    assert.ok(points.some((p) => p.attributes['error.type'] === '401'));
  } finally {
    await open.close();
    await gated.close();
  }
});

test("the server's notifications get CLIENT spans, under the handler's span, continued by the client", async () => {
  const server = instrumentServer(backend(), providers);
  const [clientSide, serverSide] = createLinkedTransports();
  await server.connect(serverSide);
  let changed: () => void = () => undefined;
  const listed = new Promise<void>((resolve) => {
    changed = resolve;
  });
  const client = new Client(
    { name: 'c', version: '1' },
    { era: 'stateful', onToolsChanged: () => changed() },
  );
  await client.connect(instrumentTransport(clientSide, providers));
  const before = sdk.spans().length;
  await client.callTool('talk');
  // A tool added while connected: the server tells its sessions (notifications/tools/list_changed).
  server.tool('late', {}, () => ({ content: [] }));
  await listed;
  await client.close();
  const spans = sdk.spans().slice(before);
  const call = spans.find((s) => s.name === 'tools/call talk' && s.kind === SpanKind.SERVER);
  const logged = spans.find((s) => s.name === 'notifications/message' && s.kind === SpanKind.CLIENT);
  const received = spans.find((s) => s.name === 'notifications/message' && s.kind === SpanKind.SERVER);
  assert.ok(call && logged && received, spans.map((s) => `${s.name}/${s.kind}`).join(' '));
  assert.equal(logged.parentSpanContext?.spanId, call.spanContext().spanId);
  assert.equal(logged.spanContext().traceId, call.spanContext().traceId);
  assert.equal(logged.attributes['mcp.method.name'], 'notifications/message');
  assert.equal(typeof logged.attributes['mcp.protocol.version'], 'string');
  assert.equal(logged.attributes['jsonrpc.request.id'], undefined, 'a notification has no id');
  // The client's span of the notification it received continues the server's, from `_meta`.
  assert.equal(received.parentSpanContext?.spanId, logged.spanContext().spanId);
  const listChanged = spans.find(
    (s) => s.name === 'notifications/tools/list_changed' && s.kind === SpanKind.CLIENT,
  );
  assert.ok(listChanged, 'the server traces the notification it sent');
  const metrics = await sdk.metrics();
  const points = metrics.find((m) => m.name === 'mcp.client.operation.duration')?.points ?? [];
  assert.ok(points.some((p) => p.attributes['mcp.method.name'] === 'notifications/message'));
});

test("a stateless HTTP request's notifications get CLIENT spans too, their trace context in the response's _meta", async () => {
  const running = await serve(instrumentServer(backend(), providers), { sessions: false, legacySse: false });
  try {
    const before = sdk.spans().length;
    const response = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"talk","arguments":{}}}',
    });
    const text = await response.text();
    const spans = sdk.spans().slice(before);
    const call = spans.find((s) => s.name === 'tools/call talk' && s.kind === SpanKind.SERVER);
    const logged = spans.find((s) => s.name === 'notifications/message' && s.kind === SpanKind.CLIENT);
    assert.ok(call && logged, spans.map((s) => `${s.name}/${s.kind}`).join(' '));
    assert.equal(logged.parentSpanContext?.spanId, call.spanContext().spanId);
    const { traceId, spanId } = logged.spanContext();
    assert.ok(text.includes(`"traceparent":"00-${traceId}-${spanId}-01"`), text);
  } finally {
    await running.close();
  }
});
