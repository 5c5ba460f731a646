// mcpkit/otel with the real OpenTelemetry JS SDK (in-memory exporters): a server's and a client's spans and metrics
// by the MCP semantic conventions, in both eras; the trace context carried in `_meta` from the client's span to the
// server's; errors as the conventions record them (JSON-RPC codes, `isError`, timeouts, cancellations); bad trace
// context ignored; nothing of the arguments unless opted in.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { memorySdk, only } from '../../test/fixtures/otel-sdk.js';
import { Client } from '../client/client.js';
import { McpkitError } from '../jsonrpc/errors.js';
import { McpServer } from '../server/server.js';
import { createLinkedTransports } from '../transport/memory.js';
import { StdioClientTransport } from '../transport/stdio-client.js';
import { instrumentTransport } from './client.js';
import { DURATION_BUCKETS } from './conventions.js';
import { instrumentServer } from './server.js';

const sdk = memorySdk();
after(() => sdk.shutdown());
const providers = { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };

function backend(): McpServer {
  const server = new McpServer({ name: 'traced', version: '1.0.0' });
  server.tool(
    'echo',
    { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args) => ({ content: [{ type: 'text', text: String((args as { text?: unknown }).text) }] }),
  );
  server.tool('fails', {}, () => ({ content: [{ type: 'text', text: 'no' }], isError: true }));
  server.tool(
    'slow',
    {},
    (_args, ctx) =>
      new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
      ),
  );
  server.prompt('greet', {}, () => ({ messages: [] }));
  return server;
}

async function pair(era: 'stateful' | 'stateless', captureContent = false) {
  const server = instrumentServer(backend(), { ...providers, captureContent });
  const [clientSide, serverSide] = createLinkedTransports();
  await server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' }, { era });
  await client.connect(instrumentTransport(clientSide, { ...providers, captureContent }));
  return client;
}

for (const era of ['stateful', 'stateless'] as const) {
  test(`${era}: the client's span is the parent of the server's, named and attributed by the conventions`, async () => {
    const client = await pair(era);
    const app = sdk.tracerProvider.getTracer('app');
    const before = sdk.spans().length;
    await app.startActiveSpan('app work', async (root) => {
      await client.callTool('echo', { text: 'secret-value' });
      root.end();
    });
    await client.close();
    const spans = sdk.spans().slice(before);
    const root = only(spans, 'app work');
    const calls = spans.filter((s) => s.name === 'tools/call echo');
    const clientSpan = calls.find((s) => s.kind === SpanKind.CLIENT);
    const serverSpan = calls.find((s) => s.kind === SpanKind.SERVER);
    assert.ok(clientSpan && serverSpan, spans.map((s) => `${s.name}/${s.kind}`).join(' '));
    assert.equal(clientSpan.spanContext().traceId, root.spanContext().traceId);
    assert.equal(clientSpan.parentSpanContext?.spanId, root.spanContext().spanId);
    assert.equal(serverSpan.spanContext().traceId, root.spanContext().traceId);
    assert.equal(serverSpan.parentSpanContext?.spanId, clientSpan.spanContext().spanId);
    for (const span of [clientSpan, serverSpan]) {
      assert.equal(span.attributes['mcp.method.name'], 'tools/call');
      assert.equal(span.attributes['gen_ai.tool.name'], 'echo');
      assert.equal(span.attributes['gen_ai.operation.name'], 'execute_tool');
      assert.equal(typeof span.attributes['jsonrpc.request.id'], 'string');
      assert.match(String(span.attributes['mcp.protocol.version']), /^\d{4}-\d{2}-\d{2}$/);
      assert.equal(span.status.code, SpanStatusCode.UNSET);
      assert.equal(span.attributes['error.type'], undefined);
      // No argument values unless the app opts in.
      assert.ok(!JSON.stringify(span.attributes).includes('secret-value'));
    }
    const metrics = await sdk.metrics();
    for (const name of ['mcp.client.operation.duration', 'mcp.server.operation.duration']) {
      const m = metrics.find((x) => x.name === name);
      assert.ok(m, `${name} recorded`);
      assert.equal(m.unit, 's');
      assert.deepEqual(m.boundaries, DURATION_BUCKETS);
      assert.ok(m.points.some((p) => p.attributes['mcp.method.name'] === 'tools/call' && p.count >= 1));
      // Metrics keep the low-cardinality attributes only.
      assert.ok(m.points.every((p) => p.attributes['jsonrpc.request.id'] === undefined));
    }
    assert.ok(metrics.some((m) => m.name === 'mcp.client.session.duration' && m.points.length > 0));
    if (era === 'stateful') {
      const sessions = metrics.find((m) => m.name === 'mcp.server.session.duration');
      assert.equal(sessions?.unit, 's');
      assert.ok(
        sessions?.points.some(
          (p) => p.count >= 1 && typeof p.attributes['mcp.protocol.version'] === 'string',
        ),
      );
    }
  });
}

test('errors: a JSON-RPC error code, an isError result, a cancellation and a timeout', async () => {
  const client = await pair('stateful');
  const before = sdk.spans().length;
  await assert.rejects(client.request('tools/call', { name: 'missing' }));
  const failed = await client.callTool('fails');
  assert.equal(failed.isError, true);
  const abort = new AbortController();
  const cancelled = client.callTool('slow', {}, { signal: abort.signal });
  setTimeout(() => abort.abort('enough'), 20);
  await assert.rejects(cancelled);
  // The client's request timers do not hold the process open; this one does while the test waits.
  const alive = setTimeout(() => undefined, 5000);
  await assert.rejects(client.callTool('slow', {}, { timeout: 30 }), (e: unknown) => {
    assert.ok(e instanceof McpkitError && e.code === 'REQUEST_TIMEOUT');
    return true;
  });
  clearTimeout(alive);
  await client.close();
  const spans = sdk.spans().slice(before);
  const of = (name: string, kind: SpanKind) => spans.filter((s) => s.name === name && s.kind === kind);
  const missing = of('tools/call missing', SpanKind.CLIENT)[0];
  assert.equal(missing?.attributes['error.type'], '-32602');
  assert.equal(missing?.attributes['rpc.response.status_code'], '-32602');
  assert.equal(missing?.status.code, SpanStatusCode.ERROR);
  assert.match(String(missing?.status.message), /missing/);
  assert.equal(of('tools/call missing', SpanKind.SERVER)[0]?.attributes['error.type'], '-32602');
  for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
    const tool = of('tools/call fails', kind)[0];
    assert.equal(tool?.attributes['error.type'], 'tool_error');
    assert.equal(tool?.status.code, SpanStatusCode.ERROR);
  }
  const slow = of('tools/call slow', SpanKind.CLIENT).map((s) => s.attributes['error.type']);
  assert.deepEqual(slow, ['cancelled', 'timeout']);
  const slowServer = of('tools/call slow', SpanKind.SERVER).map((s) => s.attributes['error.type']);
  assert.deepEqual(slowServer, ['cancelled', 'cancelled']);
});

test('the server continues a trace context sent in _meta; a malformed or oversized one is ignored, never an error', async () => {
  const server = instrumentServer(backend(), providers);
  const [clientSide, serverSide] = createLinkedTransports();
  await server.connect(serverSide);
  // A plain client (not instrumented) sending what another SDK would.
  const client = new Client({ name: 'plain', version: '1' }, { era: 'stateful' });
  await client.connect(clientSide);
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const cases: [string, Record<string, unknown>][] = [
    ['good', { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: 'rojo=00f067aa0ba902b7' }],
    ['malformed', { traceparent: '00-xyz-00f067aa0ba902b7-01' }],
    ['zero', { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }],
    ['oversized', { traceparent: `00-${traceId}-00f067aa0ba902b7-01-${'x'.repeat(600)}` }],
    ['bad state', { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: 'a='.repeat(400) }],
    ['not a string', { traceparent: 42, tracestate: { a: 1 } }],
  ];
  const before = sdk.spans().length;
  for (const [label, meta] of cases) {
    const result = await client.request('tools/call', {
      name: 'echo',
      arguments: { text: label },
      _meta: meta,
    });
    assert.deepEqual(result.content, [{ type: 'text', text: label }], label);
  }
  await client.close();
  const spans = sdk
    .spans()
    .slice(before)
    .filter((s) => s.name === 'tools/call echo');
  assert.equal(spans.length, cases.length);
  const [good, malformed, zero, oversized, badState, notString] = spans;
  assert.equal(good?.spanContext().traceId, traceId);
  assert.equal(good?.parentSpanContext?.spanId, '00f067aa0ba902b7');
  assert.equal(good?.spanContext().traceState?.get('rojo'), '00f067aa0ba902b7');
  for (const span of [malformed, zero, oversized, notString]) {
    assert.equal(span?.parentSpanContext, undefined, 'a new trace');
    assert.notEqual(span?.spanContext().traceId, traceId);
  }
  // An oversized tracestate is dropped; the traceparent still holds.
  assert.equal(badState?.spanContext().traceId, traceId);
  assert.equal(badState?.spanContext().traceState, undefined);
});

test('tool arguments and results are recorded only when the app opts in', async () => {
  const client = await pair('stateful', true);
  const before = sdk.spans().length;
  await client.callTool('echo', { text: 'shown' });
  await client.close();
  const spans = sdk
    .spans()
    .slice(before)
    .filter((s) => s.name === 'tools/call echo');
  assert.equal(spans.length, 2);
  for (const span of spans) {
    assert.equal(span.attributes['gen_ai.tool.call.arguments'], '{"text":"shown"}');
    assert.match(String(span.attributes['gen_ai.tool.call.result']), /shown/);
  }
});

test('without the SDK registered nothing is recorded and calls go on (the API is a no-op)', async () => {
  const server = instrumentServer(backend());
  const [clientSide, serverSide] = createLinkedTransports();
  await server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' }, { era: 'stateful' });
  await client.connect(instrumentTransport(clientSide));
  const before = sdk.spans().length;
  const result = await client.callTool('echo', { text: 'x' });
  assert.deepEqual(result.content, [{ type: 'text', text: 'x' }]);
  assert.equal(trace.getSpan(context.active()), undefined);
  assert.equal(sdk.spans().length, before);
  await client.close();
});

test("a handler's requests to its client: CLIENT spans under the server's, continued by the client", async () => {
  const server = instrumentServer(new McpServer({ name: 'asks', version: '1' }), providers);
  server.tool('interact', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Who?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    const roots = await ctx.listRoots();
    return { content: [{ type: 'text', text: `${answer.action} ${roots.length}` }] };
  });
  const [clientSide, serverSide] = createLinkedTransports();
  await server.connect(serverSide);
  const client = new Client(
    { name: 'c', version: '1' },
    {
      era: 'stateful',
      elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }),
      sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }),
      roots: [{ uri: 'file:///tmp', name: 'tmp' }],
    },
  );
  await client.connect(instrumentTransport(clientSide, providers));
  const before = sdk.spans().length;
  const result = await client.callTool('interact');
  assert.deepEqual(result.content, [{ type: 'text', text: 'accept 1' }]);
  await client.close();
  const spans = sdk.spans().slice(before);
  const handler = spans.find((s) => s.name === 'tools/call interact' && s.kind === SpanKind.SERVER);
  assert.ok(handler);
  for (const method of ['elicitation/create', 'sampling/createMessage', 'roots/list']) {
    const asked = spans.find((s) => s.name === method && s.kind === SpanKind.CLIENT);
    assert.ok(asked, `${method}: ${spans.map((s) => `${s.name}/${s.kind}`).join(', ')}`);
    assert.equal(asked.parentSpanContext?.spanId, handler.spanContext().spanId, method);
    assert.equal(asked.attributes['mcp.method.name'], method);
    const answered = spans.find((s) => s.name === method && s.kind === SpanKind.SERVER);
    assert.ok(answered, `${method} answered by the client`);
    // Requests with params carry the context in `_meta`; roots/list has none to carry it.
    if (method !== 'roots/list')
      assert.equal(answered.parentSpanContext?.spanId, asked.spanContext().spanId, method);
  }
});

test('the wrapper can be reopened exactly when the transport it wraps can (the client probes for reopen)', () => {
  const [memory] = createLinkedTransports();
  assert.equal(instrumentTransport(memory).reopen, undefined);
  const stdio = new StdioClientTransport({ command: process.execPath, args: ['-e', ''] });
  const wrapped = instrumentTransport(stdio);
  assert.equal(typeof wrapped.reopen, 'function');
  const again = wrapped.reopen?.();
  assert.equal(typeof again?.reopen, 'function', 'the reopened transport is wrapped too');
});
