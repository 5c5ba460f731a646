// mcpkit/otel at the edges of a server, with the real OpenTelemetry JS SDK (in-memory exporters): the notifications
// the server sends get CLIENT spans, their trace context in `_meta` (its HTTP refusals: refusals.test.ts).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
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
