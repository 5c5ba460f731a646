// mcpkit/otel on the HTTP requests refused before any message reaches a server, with the real OpenTelemetry JS SDK
// (in-memory exporters): a Streamable HTTP endpoint's (a body that is not JSON, the auth gate's 401, an Origin or Host
// not allowed: the DNS-rebinding checks) and a relay's (`serveRelay`, its `refused` option given `refusalSpans()`),
// each a SERVER span `_OTHER` with `error.type`.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { memorySdk } from '../../test/fixtures/otel-sdk.js';
import { type RunningServer, serve, serveRelay } from '../server/http/adapters/node-serve.js';
import { McpServer } from '../server/server.js';
import { createLinkedTransports } from '../transport/memory.js';
import { refusalSpans } from './refusals.js';
import { instrumentServer } from './server.js';

const sdk = memorySdk();
after(() => sdk.shutdown());
const providers = { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };

const INITIALIZE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}';

function backend(): McpServer {
  return new McpServer({ name: 'traced', version: '1.0.0' });
}

/**
 * POSTs `body` to `url` with node:http (which, unlike fetch, sends any `Host` it is given) as JSON-RPC over
 * Streamable HTTP, `headers` replacing the defaults; the status.
 */
function post(url: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The SERVER spans `of` finished since `before`. */
function serverSpans(before: number, of = sdk): ReadableSpan[] {
  return of
    .spans()
    .slice(before)
    .filter((s) => s.kind === SpanKind.SERVER);
}

/** Checks what every refusal's span has: the name `_OTHER`, the transport, the peer, the revision, an error. */
function assertRefusal(span: ReadableSpan | undefined, errorType: string): void {
  assert.ok(span);
  assert.equal(span.name, '_OTHER');
  assert.equal(span.attributes['mcp.method.name'], '_OTHER');
  assert.equal(span.attributes['network.transport'], 'tcp');
  assert.equal(span.attributes['client.address'], '127.0.0.1');
  assert.equal(span.attributes['mcp.protocol.version'], '2025-11-25');
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  assert.equal(span.attributes['error.type'], errorType);
}

/** Two instrumented stateless endpoints: one open, one behind an auth gate that takes no token. */
async function endpoints(): Promise<{ open: RunningServer; gated: RunningServer }> {
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
  return { open, gated };
}

test('HTTP requests refused before any message reaches the server: a body that is not JSON, a missing token', async () => {
  const { open, gated } = await endpoints();
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
    const spans = serverSpans(before);
    assert.equal(spans.length, 3, spans.map((s) => s.name).join(' '));
    const [notJson, noToken, badToken] = spans;
    assertRefusal(notJson, '-32700');
    assertRefusal(noToken, '401');
    assertRefusal(badToken, '401');
    assert.equal(notJson?.attributes['rpc.response.status_code'], '-32700');
    assert.match(String(notJson?.status.message), /Parse error/);
    const metrics = await sdk.metrics();
    const points = metrics.find((m) => m.name === 'mcp.server.operation.duration')?.points ?? [];
    assert.ok(points.some((p) => p.attributes['error.type'] === '-32700'));
    assert.ok(points.some((p) => p.attributes['error.type'] === '401'));
  } finally {
    await open.close();
    await gated.close();
  }
});

test('an Origin or Host the Streamable HTTP endpoint does not allow gets a span, with the auth gate on or off', async () => {
  const { open, gated } = await endpoints();
  try {
    const before = sdk.spans().length;
    // A page of another site (cross-origin), and a name rebound to 127.0.0.1 (DNS rebinding).
    assert.equal(await post(open.url, INITIALIZE, { origin: 'http://evil.example' }), 403);
    assert.equal(await post(open.url, INITIALIZE, { host: 'evil.example' }), 403);
    assert.equal(await post(gated.url, INITIALIZE, { origin: 'http://evil.example' }), 403);
    const spans = serverSpans(before);
    assert.equal(spans.length, 3, spans.map((s) => s.name).join(' '));
    for (const span of spans) assertRefusal(span, '403');
    assert.match(String(spans[0]?.status.message), /Origin "http:\/\/evil\.example" is not allowed/);
    assert.match(String(spans[1]?.status.message), /Host "evil\.example" is not allowed/);
  } finally {
    await open.close();
    await gated.close();
  }
});

test("a relay's refusals get spans through its refused option: Origin, Host, Accept, Content-Type, size, not JSON", async () => {
  // An SDK of its own: the metric points are this test's alone.
  const own = memorySdk();
  const relay = await serveRelay(
    () => {
      const [clientSide, serverSide] = createLinkedTransports();
      void backend().connect(serverSide);
      return clientSide;
    },
    {
      maxBodyBytes: 1024,
      refused: refusalSpans({ tracerProvider: own.tracerProvider, meterProvider: own.meterProvider }),
    },
  );
  try {
    assert.equal(await post(relay.url, INITIALIZE, { origin: 'http://evil.example' }), 403);
    assert.equal(await post(relay.url, INITIALIZE, { host: 'evil.example' }), 403);
    assert.equal(await post(relay.url, INITIALIZE, { accept: 'text/html' }), 406);
    assert.equal(await post(relay.url, INITIALIZE, { 'content-type': 'text/plain' }), 415);
    assert.equal(await post(relay.url, `{"pad":"${'x'.repeat(2048)}"}`), 413);
    assert.equal(await post(relay.url, '{"jsonrpc":"2.0","id":1,'), 400);
    // Not a refusal: the relay has nothing of the message to trace (its server is another's).
    assert.equal(await post(relay.url, INITIALIZE), 200);
    const spans = serverSpans(0, own);
    assert.equal(spans.length, 6, spans.map((s) => s.name).join(' '));
    ['403', '403', '406', '415', '413', '-32700'].forEach((type, i) => {
      assertRefusal(spans[i], type);
    });
    assert.equal(spans[5]?.attributes['rpc.response.status_code'], '-32700');
    const metrics = await own.metrics();
    const points = metrics.find((m) => m.name === 'mcp.server.operation.duration')?.points ?? [];
    for (const type of ['403', '406', '415', '413', '-32700'])
      assert.ok(
        points.some(
          (p) => p.attributes['error.type'] === type && p.attributes['mcp.method.name'] === '_OTHER',
        ),
        type,
      );
  } finally {
    await relay.close();
    await own.shutdown();
  }
});
