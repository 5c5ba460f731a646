// End to end: raw 2026-07-28 requests through the HTTP client transports against mcpkit's own server
// (`serve()` on 127.0.0.1): discovery, lists, a tool call whose x-mcp-header argument is mirrored in an
// Mcp-Param-* header, a Base64 Mcp-Name, the modern errors as responses, cancellation by closing the
// stream, and a subscriptions/listen stream. Driven with a bare TransportReceiver, not through Client.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import type { JsonObject, JsonRpcRequest } from '../../src/jsonrpc/types.js';
import { type RunningServer, serve } from '../../src/node.js';
import type { Transport } from '../../src/protocol/transport.js';
import { McpServer } from '../../src/server/server.js';
import { META } from '../../src/spec/modern.js';
import { HttpClientTransport } from '../../src/transport/http-client/fallback.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import { eventually, Recorder, sleep } from './mock-server.js';

const ENVELOPE: JsonObject = {
  [META.protocolVersion]: '2026-07-28',
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: 'e2e', version: '1.0.0' },
};

function modern(id: number, method: string, params: JsonObject = {}, meta: JsonObject = {}): JsonRpcRequest {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...ENVELOPE, ...meta } } };
}

let server: McpServer;
let running: RunningServer;
let slowAborted = 0;

before(async () => {
  server = new McpServer({ name: 'modern-e2e', version: '1.0.0' });
  server.tool(
    'weather',
    {
      description: 'The weather in a region.',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, days: { type: 'integer' } },
        required: ['region'],
      },
    },
    (args) => `sunny in ${(args as { region: string }).region}`,
  );
  server.tool(
    'slow',
    { description: 'Reports progress, then waits to be cancelled.' },
    async (_args, ctx) => {
      await ctx.progress(1, 2, 'started');
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      slowAborted++;
      return 'cancelled';
    },
  );
  server.prompt('café', { description: 'A prompt with a non-ASCII name.' }, () => 'un café, s’il vous plaît');
  running = await serve(server);
});

after(async () => {
  await running.close();
});

for (const kind of ['HttpClientTransport', 'StreamableHttpClientTransport'] as const) {
  describe(`2026-07-28 through ${kind} against serve()`, { timeout: 20_000 }, () => {
    let transport: Transport;
    let rx: Recorder;
    let nextId = 100;
    const id = () => nextId++;

    before(async () => {
      transport =
        kind === 'HttpClientTransport'
          ? new HttpClientTransport(running.url)
          : new StreamableHttpClientTransport(running.url);
      rx = new Recorder();
      await transport.start(rx);
    });
    after(async () => {
      await transport.close();
      assert.deepEqual(rx.errors, []);
    });

    test('server/discover, tools/list, and a tool call with its Mcp-Param-* header', async () => {
      const discover = id();
      await transport.send(modern(discover, 'server/discover'));
      const found = (await rx.response(discover)).result;
      assert.ok(found.supportedVersions.includes('2026-07-28'), JSON.stringify(found));
      assert.ok(found.capabilities.tools);

      const list = id();
      await transport.send(modern(list, 'tools/list'));
      const tools = (await rx.response(list)).result.tools as { name: string; inputSchema: JsonObject }[];
      assert.deepEqual(tools.map((t) => t.name).sort(), ['slow', 'weather']);

      const call = id();
      await transport.send(
        modern(call, 'tools/call', { name: 'weather', arguments: { region: 'eu-west' } }),
        {
          headers: { 'Mcp-Param-Region': 'eu-west' },
        },
      );
      const result = (await rx.response(call)).result;
      assert.deepEqual(result.content, [{ type: 'text', text: 'sunny in eu-west' }]);
      assert.equal(transport.sessionId, undefined, 'no session');
      if (transport instanceof HttpClientTransport) assert.equal(transport.kind, 'streamable-http');
    });

    test('a raw non-ASCII Mcp-Param-* value is encoded by the transport and accepted', async () => {
      const call = id();
      await transport.send(modern(call, 'tools/call', { name: 'weather', arguments: { region: 'Zürich' } }), {
        headers: { 'Mcp-Param-Region': 'Zürich' },
      });
      const result = (await rx.response(call)).result;
      assert.deepEqual(result.content, [{ type: 'text', text: 'sunny in Zürich' }]);
    });

    test('a non-ASCII Mcp-Name is Base64-encoded and accepted', async () => {
      const get = id();
      await transport.send(modern(get, 'prompts/get', { name: 'café' }));
      const result = (await rx.response(get)).result;
      assert.equal(result.messages[0].content.text, 'un café, s’il vous plaît');
    });

    test('a missing or wrong Mcp-Param-* header: the -32020 error is the response', async () => {
      const missing = id();
      await transport.send(modern(missing, 'tools/call', { name: 'weather', arguments: { region: 'eu' } }));
      const reply = await rx.response(missing);
      assert.equal(reply.error.code, ErrorCode.HeaderMismatch);
      assert.match(reply.error.message, /Mcp-Param-Region is required/);

      const wrong = id();
      await transport.send(modern(wrong, 'tools/call', { name: 'weather', arguments: { region: 'eu' } }), {
        headers: { 'Mcp-Param-Region': 'us' },
      });
      assert.equal((await rx.response(wrong)).error.code, ErrorCode.HeaderMismatch);
    });

    test('unknown method (-32601) and unsupported version (-32022 with supported) arrive as responses', async () => {
      const unknown = id();
      await transport.send(modern(unknown, 'nope/nothing'));
      assert.equal((await rx.response(unknown)).error.code, ErrorCode.MethodNotFound);

      const future = id();
      await transport.send(modern(future, 'tools/list', {}, { [META.protocolVersion]: '2099-01-01' }));
      const reply = await rx.response(future);
      assert.equal(reply.error.code, ErrorCode.UnsupportedProtocolVersion);
      assert.ok(reply.error.data.supported.includes('2026-07-28'));
    });

    test('cancelling a streaming call closes its stream: the handler sees the abort, nothing is POSTed', async () => {
      const before = slowAborted;
      const call = id();
      await transport.send(
        modern(call, 'tools/call', { name: 'slow', arguments: {} }, { progressToken: 'p' }),
      );
      const progress = await rx.waitFor(
        (m) => m.method === 'notifications/progress' && m.params.progressToken === 'p',
      );
      assert.equal(progress.params.progress, 1);
      await transport.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: call },
      });
      await eventually(() => slowAborted === before + 1, 'the handler to be aborted');
      await sleep(50);
      assert.equal(rx.messages.filter((m) => m.id === call).length, 0);
    });

    test('subscriptions/listen: acknowledged, notified of a change, closed by cancelling', async () => {
      const listen = id();
      await transport.send(
        modern(listen, 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
      );
      const ack = await rx.waitFor(
        (m) =>
          m.method === 'notifications/subscriptions/acknowledged' &&
          m.params._meta[META.subscriptionId] === listen,
      );
      assert.equal(ack.params.notifications.toolsListChanged, true);
      assert.equal(server.subscriptions.size, 1);
      const extra = server.tool(`extra-${listen}`, {}, () => 'x');
      const changed = await rx.waitFor(
        (m) =>
          m.method === 'notifications/tools/list_changed' && m.params._meta[META.subscriptionId] === listen,
      );
      assert.ok(changed);
      extra.remove();
      await transport.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: listen },
      });
      await eventually(() => server.subscriptions.size === 0, 'the subscription to end on the server');
      assert.equal(rx.messages.filter((m) => m.id === listen).length, 0);
    });
  });
}
