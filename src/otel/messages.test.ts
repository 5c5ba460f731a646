// mcpkit/otel beyond the requests a handler answers, with the real OpenTelemetry JS SDK (in-memory exporters):
// notifications traced both ways as the conventions ask; requests refused before the middleware (an unknown method,
// a guard's refusal) traced with their `error.type`; W3C baggage carried in `_meta` from a client to a server and on
// through a proxy's hop, a malformed or oversized one ignored.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { memorySdk } from '../../test/fixtures/otel-sdk.js';
import { Client } from '../client/client.js';
import { createProxy } from '../compose/proxy.js';
import { JsonRpcError } from '../jsonrpc/errors.js';
import { McpServer } from '../server/server.js';
import { createLinkedTransports } from '../transport/memory.js';
import { instrumentTransport } from './client.js';
import { instrumentServer } from './server.js';

const sdk = memorySdk();
after(() => sdk.shutdown());
const providers = { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };

/** A server whose `who` tool answers with the baggage entry `user` its handler sees. */
function backend(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const server = new McpServer({ name: 'traced', version: '1.0.0' }, options);
  server.tool('who', {}, () => {
    const user = propagation.getBaggage(context.active())?.getEntry('user')?.value ?? 'nobody';
    return { content: [{ type: 'text', text: user }] };
  });
  return server;
}

async function connected(
  server: McpServer,
  instrumented = true,
  onToolsChanged?: () => void,
): Promise<Client> {
  const [clientSide, serverSide] = createLinkedTransports();
  await server.connect(serverSide);
  const client = new Client(
    { name: 'c', version: '1' },
    onToolsChanged ? { era: 'stateful', onToolsChanged } : { era: 'stateful' },
  );
  await client.connect(instrumented ? instrumentTransport(clientSide, providers) : clientSide);
  return client;
}

test("notifications: the client's span of notifications/initialized is the parent of the server's; the server's notifications get the client's", async () => {
  const server = instrumentServer(backend(), providers);
  const before = sdk.spans().length;
  let changed: () => void = () => undefined;
  const listed = new Promise<void>((resolve) => {
    changed = resolve;
  });
  const client = await connected(server, true, () => changed());
  // A tool added while connected: the server tells its sessions (notifications/tools/list_changed).
  server.tool('late', {}, () => ({ content: [] }));
  await listed;
  await client.close();
  const spans = sdk.spans().slice(before);
  const sent = spans.find((s) => s.name === 'notifications/initialized' && s.kind === SpanKind.CLIENT);
  const received = spans.find((s) => s.name === 'notifications/initialized' && s.kind === SpanKind.SERVER);
  assert.ok(sent && received, spans.map((s) => `${s.name}/${s.kind}`).join(' '));
  assert.equal(received.parentSpanContext?.spanId, sent.spanContext().spanId);
  assert.equal(received.spanContext().traceId, sent.spanContext().traceId);
  for (const span of [sent, received]) {
    assert.equal(span.attributes['mcp.method.name'], 'notifications/initialized');
    assert.equal(span.attributes['jsonrpc.request.id'], undefined, 'a notification has no id');
  }
  const listChanged = spans.find(
    (s) => s.name === 'notifications/tools/list_changed' && s.kind === SpanKind.SERVER,
  );
  assert.ok(listChanged, 'the client traces the notification it received');
  const metrics = await sdk.metrics();
  const serverOps = metrics.find((m) => m.name === 'mcp.server.operation.duration');
  assert.ok(serverOps?.points.some((p) => p.attributes['mcp.method.name'] === 'notifications/initialized'));
});

test('requests refused before the middleware get a span with error.type: an unknown method, a rate limit', async () => {
  const server = instrumentServer(backend({ rateLimit: { tools: { who: '1/min' } } }), providers);
  // A plain client: only the server's spans are in question.
  const client = await connected(server, false);
  const before = sdk.spans().length;
  const unknown = await client.request('nope/nothing', {}).then(
    () => assert.fail('answered'),
    (e: unknown) => e,
  );
  assert.ok(unknown instanceof JsonRpcError);
  await client.callTool('who');
  const limited = await client.callTool('who').then(
    () => assert.fail('answered'),
    (e: unknown) => e,
  );
  assert.ok(limited instanceof JsonRpcError);
  await client.close();
  const spans = sdk
    .spans()
    .slice(before)
    .filter((s) => s.kind === SpanKind.SERVER);
  const refused = spans.find((s) => s.name === 'nope/nothing');
  assert.ok(refused, spans.map((s) => s.name).join(' '));
  assert.equal(refused.attributes['error.type'], String(unknown.code));
  assert.equal(refused.attributes['rpc.response.status_code'], String(unknown.code));
  assert.equal(refused.status.code, SpanStatusCode.ERROR);
  const calls = spans.filter((s) => s.name === 'tools/call who');
  assert.equal(calls.length, 2);
  assert.equal(calls[0]?.attributes['error.type'], undefined);
  assert.equal(calls[1]?.attributes['error.type'], String(limited.code));
  assert.equal(calls[1]?.status.code, SpanStatusCode.ERROR);
});

test("baggage in _meta: a client's goes to the server, and on through a proxy's hop to the server behind it", async () => {
  const tracer = sdk.tracerProvider.getTracer('app');
  const withUser = propagation.setBaggage(
    context.active(),
    propagation.createBaggage({ user: { value: 'ada lovelace' } }),
  );
  // Straight to the server.
  const direct = await connected(instrumentServer(backend(), providers));
  const seen = await context.with(withUser, () => direct.callTool('who'));
  assert.deepEqual(seen.content, [{ type: 'text', text: 'ada lovelace' }]);
  await direct.close();
  // Through a proxy: client -> proxy (instrumented, its upstream transport too) -> server.
  const behind = instrumentServer(backend(), providers);
  const [upstream, behindSide] = createLinkedTransports();
  await behind.connect(behindSide);
  const proxy = instrumentServer(await createProxy(instrumentTransport(upstream, providers)), providers);
  const client = await connected(proxy);
  const before = sdk.spans().length;
  const root = tracer.startSpan('app work');
  const through = await context.with(trace.setSpan(withUser, root), () => client.callTool('who'));
  root.end();
  assert.deepEqual(through.content, [{ type: 'text', text: 'ada lovelace' }]);
  await client.close();
  await proxy.close();
  const spans = sdk
    .spans()
    .slice(before)
    .filter((s) => s.name === 'tools/call who');
  // The client's, the proxy's server and client spans, the server's behind: one trace.
  assert.equal(spans.length, 4, spans.map((s) => `${s.name}/${s.kind}`).join(' '));
  assert.equal(new Set(spans.map((s) => s.spanContext().traceId)).size, 1);
});

test('a malformed or oversized baggage in _meta is ignored, never an error', async () => {
  const server = instrumentServer(backend(), providers);
  const client = await connected(server, false);
  const cases = ['%%%=%zz', 'user=%E0%A4%A', `user=${'x'.repeat(9000)}`, '=novalue,,;', 'bad key=1'];
  for (const baggage of cases) {
    const result = await client.request('tools/call', { name: 'who', arguments: {}, _meta: { baggage } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'nobody' }], baggage);
  }
  const good = await client.request('tools/call', {
    name: 'who',
    arguments: {},
    _meta: { baggage: 'other=1, user = ada%20lovelace ;prop=1' },
  });
  assert.deepEqual(good.content, [{ type: 'text', text: 'ada lovelace' }]);
  await client.close();
});
