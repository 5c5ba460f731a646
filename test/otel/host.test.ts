// The host's spans with the real OpenTelemetry JS SDK (in-memory exporters): each server connection's client traced
// (its requests carry the trace context into the server's `_meta`), a span around each routed call and each approval
// wait, and the model loop's GenAI spans, `chat {model}` and `execute_tool {name}`, in one trace from the model's
// request to the server that ran the tool. Also the proxy: it continues the trace across its hop.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { createEverythingServer } from '../../examples/everything/everything.js';
import { AnthropicModel, Host, type ServerConfig } from '../../src/host.js';
import { Client, createLinkedTransports, createProxy } from '../../src/index.js';
import { hostInstrumentation, instrumentServer, instrumentTransport } from '../../src/otel.js';
import { memorySdk, only } from '../fixtures/otel-sdk.js';
import { startModelServer } from '../host/fixtures/model-server.js';

const sdk = memorySdk();
after(() => sdk.shutdown());
const providers = { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };

const inproc: ServerConfig = {
  name: 'inproc',
  transport: { type: 'stdio', command: 'never-spawned', args: [], env: {}, namedEnv: [] },
  disabled: false,
  trusted: false,
  approval: { default: 'ask', tools: { echo: 'allow' } },
  source: { file: 'test', format: 'mcpkit' },
};

/** A host whose one server runs in this process, instrumented on both sides. */
function tracedHost(extra: ConstructorParameters<typeof Host>[1] = {}): Host {
  return new Host([inproc], {
    instrument: hostInstrumentation(providers),
    transportFor: () => {
      const server = instrumentServer(createEverythingServer(), providers);
      const [clientSide, serverSide] = createLinkedTransports();
      void server.connect(serverSide);
      return clientSide;
    },
    ...extra,
  });
}

function childOf(spans: readonly ReadableSpan[], parent: ReadableSpan, name: string, kind?: SpanKind) {
  const found = spans.find(
    (s) =>
      s.name === name &&
      (kind === undefined || s.kind === kind) &&
      s.parentSpanContext?.spanId === parent.spanContext().spanId,
  );
  assert.ok(
    found,
    `no ${name} under ${parent.name}: ${spans.map((s) => `${s.name}/${s.kind}<${s.parentSpanContext?.spanId}`).join(', ')}`,
  );
  assert.equal(found.spanContext().traceId, parent.spanContext().traceId);
  return found;
}

test('a routed call and its approval wait are spans, the server connection carries the trace onward', async () => {
  const host = tracedHost({ approve: () => 'allow-once' });
  try {
    await host.start();
    const before = sdk.spans().length;
    await host.callTool('inproc__echo', { text: 'a' });
    const asked = host.tools().find((t) => t.name === 'inproc__get-sum' || t.name === 'inproc__add');
    assert.ok(
      asked,
      host
        .tools()
        .map((t) => t.name)
        .join(' '),
    );
    await host.callTool(asked.name, { a: 1, b: 2 });
    const spans = sdk.spans().slice(before);
    const route = only(spans, 'route inproc__echo');
    assert.equal(route.kind, SpanKind.INTERNAL);
    assert.equal(route.attributes['gen_ai.tool.name'], 'echo');
    assert.equal(route.attributes['mcpkit.server.name'], 'inproc');
    const client = childOf(spans, route, 'tools/call echo', SpanKind.CLIENT);
    childOf(spans, client, 'tools/call echo', SpanKind.SERVER);
    // An `ask` tool: its approval wait is a span under the routed call, before the call itself.
    const askedRoute = only(spans, `route ${asked.name}`);
    const approval = childOf(spans, askedRoute, `approval ${asked.name}`);
    assert.equal(approval.attributes['mcpkit.approval.mode'], 'ask');
    assert.equal(approval.attributes['mcpkit.approval.outcome'], 'allowed');
  } finally {
    await host.close();
  }
});

test('the model loop: chat {model} and execute_tool {name} spans, one trace down to the server', async () => {
  const standIn = await startModelServer({ apiKey: 'sk-test' });
  const host = tracedHost({
    model: new AnthropicModel({ model: 'claude-x', baseUrl: standIn.url, apiKey: 'sk-test' }),
  });
  try {
    await host.start();
    const before = sdk.spans().length;
    const app = sdk.tracerProvider.getTracer('app');
    await app.startActiveSpan('turn', async (turn) => {
      const chat = host.chat();
      const result = await chat.send('call inproc__echo {"text":"from the model"}');
      assert.match(result.text, /from the model/);
      turn.end();
    });
    const spans = sdk.spans().slice(before);
    const turn = only(spans, 'turn');
    const chats = spans.filter((s) => s.name === 'chat claude-x');
    assert.equal(chats.length, 2, 'a model request, the tool call, a model request');
    for (const chat of chats) {
      assert.equal(chat.kind, SpanKind.CLIENT);
      assert.equal(chat.parentSpanContext?.spanId, turn.spanContext().spanId);
      assert.equal(chat.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(chat.attributes['gen_ai.request.model'], 'claude-x');
      assert.equal(chat.attributes['gen_ai.provider.name'], 'anthropic');
      assert.equal(typeof chat.attributes['gen_ai.usage.input_tokens'], 'number');
    }
    assert.deepEqual(chats[0]?.attributes['gen_ai.response.finish_reasons'], ['toolUse']);
    const tool = childOf(spans, turn, 'execute_tool inproc__echo', SpanKind.INTERNAL);
    assert.equal(tool.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(tool.attributes['gen_ai.tool.name'], 'inproc__echo');
    assert.ok(tool.attributes['gen_ai.tool.call.id']);
    const route = childOf(spans, tool, 'route inproc__echo');
    const client = childOf(spans, route, 'tools/call echo', SpanKind.CLIENT);
    const server = childOf(spans, client, 'tools/call echo', SpanKind.SERVER);
    assert.equal(server.status.code, SpanStatusCode.UNSET);
  } finally {
    await host.close();
    await standIn.close();
  }
});

test('a denied call: the approval span says so, the routed call is an error the model reads', async () => {
  const host = tracedHost({ approve: () => 'deny' });
  try {
    await host.start();
    const asked = host.tools().find((t) => t.name !== 'inproc__echo');
    assert.ok(asked);
    const before = sdk.spans().length;
    const result = await host.callTool(asked.name, {});
    assert.equal(result.isError, true);
    const spans = sdk.spans().slice(before);
    assert.equal(only(spans, `approval ${asked.name}`).attributes['mcpkit.approval.outcome'], 'denied');
    const route = only(spans, `route ${asked.name}`);
    assert.equal(route.attributes['error.type'], 'tool_error');
    assert.equal(route.status.code, SpanStatusCode.ERROR);
    assert.equal(
      spans.filter((s) => s.name.startsWith('tools/call')).length,
      0,
      'nothing reached the server',
    );
  } finally {
    await host.close();
  }
});

test('the proxy continues the trace across its hop', async () => {
  const backend = instrumentServer(createEverythingServer(), providers);
  const [upClient, upServer] = createLinkedTransports();
  await backend.connect(upServer);
  const proxy = instrumentServer(await createProxy(instrumentTransport(upClient, providers)), providers);
  const [clientSide, proxySide] = createLinkedTransports();
  await proxy.connect(proxySide);
  const client = new Client({ name: 'c', version: '1' }, { era: 'stateful' });
  await client.connect(instrumentTransport(clientSide, providers));
  const before = sdk.spans().length;
  await client.callTool('echo', { text: 'through' });
  await client.close();
  await proxy.close();
  const spans = sdk
    .spans()
    .slice(before)
    .filter((s) => s.name === 'tools/call echo');
  const outer = spans.find((s) => s.kind === SpanKind.CLIENT && s.parentSpanContext === undefined);
  assert.ok(outer, spans.map((s) => `${s.kind}<${s.parentSpanContext?.spanId}`).join(' '));
  const atProxy = childOf(spans, outer, 'tools/call echo', SpanKind.SERVER);
  const onward = childOf(spans, atProxy, 'tools/call echo', SpanKind.CLIENT);
  childOf(spans, onward, 'tools/call echo', SpanKind.SERVER);
});
