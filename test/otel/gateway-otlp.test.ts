// OpenTelemetry end to end over real processes and real OTLP/HTTP: a client (this process), `mcpkit gateway --otel`
// and the example server `--http PORT --otel` all export to a receiver in this test (http/json); one trace runs
// from the client's span through the gateway's to the server's, parent links across both hops, the conventions'
// names and attributes, the duration metrics there. The official SDK 1.x client's `traceparent` in `_meta` is
// continued by our server; http/protobuf is honoured; an exporter endpoint that is down, or that never answers,
// breaks no request.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { trace } from '@opentelemetry/api';
import { Client, HttpClientTransport } from '../../src/index.js';
import { instrumentTransport, type OtlpExport, startOtlpExport } from '../../src/otel.js';
import { EXAMPLE, freePort, fromStderr, MCPKIT, mcpkit, tempHome } from '../cli/helpers.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}
interface Export {
  service: string;
  path: string;
  contentType: string;
  body: Buffer;
}

/** The OTLP/HTTP receiver: every POST kept, answered 200 `{}`. */
const received: Export[] = [];
let receiver: Server;
let endpoint: string;
/** An endpoint that accepts connections and never answers. */
let silent: Server;
let silentEndpoint: string;
const children: ChildProcess[] = [];

function serviceOf(body: unknown): string {
  const resources =
    (body as { resourceSpans?: unknown[]; resourceMetrics?: unknown[] }).resourceSpans ??
    (body as { resourceMetrics?: unknown[] }).resourceMetrics ??
    [];
  const attrs =
    (resources[0] as { resource?: { attributes?: { key: string; value: OtlpValue }[] } })?.resource
      ?.attributes ?? [];
  return attrs.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

before(async () => {
  receiver = createServer(async (req, res) => {
    const body = await readBody(req);
    const contentType = req.headers['content-type'] ?? '';
    let service = '';
    if (contentType.includes('json')) service = serviceOf(JSON.parse(body.toString('utf8')));
    received.push({ service, path: req.url ?? '', contentType, body });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentEndpoint = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
});

after(async () => {
  for (const child of children) child.kill('SIGKILL');
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
  await new Promise((resolve) => receiver.close(resolve));
});

function otelEnv(service: string, protocol = 'http/json', at = endpoint): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...{ XDG_CONFIG_HOME: tempHome() },
    OTEL_EXPORTER_OTLP_ENDPOINT: at,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: service,
  };
}

/** Starts the example server over HTTP with `--otel`; resolves with it and its URL. */
async function exampleServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [EXAMPLE, '--http', '0', '--otel'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  });
  children.push(child);
  const url = await fromStderr(child, /Streamable HTTP at (\S+),/);
  return { child, url };
}

/** Stops a child with SIGTERM (it flushes its export) and waits for it to exit. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function spansOf(service: string): OtlpSpan[] {
  return received
    .filter((e) => e.service === service && e.path === '/v1/traces')
    .flatMap((e) => {
      const body = JSON.parse(e.body.toString('utf8')) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      return body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    });
}

function metricNames(service: string): string[] {
  return received
    .filter((e) => e.service === service && e.path === '/v1/metrics')
    .flatMap((e) => {
      const body = JSON.parse(e.body.toString('utf8')) as {
        resourceMetrics: { scopeMetrics: { metrics: { name: string; unit: string }[] }[] }[];
      };
      return body.resourceMetrics.flatMap((r) =>
        r.scopeMetrics.flatMap((s) => s.metrics.map((m) => `${m.name} ${m.unit}`)),
      );
    });
}

/** The span called `name` that `service` exported, asserted present (the names of its spans listed when not). */
function spanNamed(service: string, name: string): OtlpSpan {
  const span = spansOf(service).find((s) => s.name === name);
  assert.ok(
    span,
    `${service} spans: ${spansOf(service)
      .map((s) => s.name)
      .join(', ')}`,
  );
  return span;
}

function attr(span: OtlpSpan | undefined, key: string): string | undefined {
  const v = span?.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue === undefined ? undefined : String(v.intValue));
}

const SERVER = 2;
const CLIENT = 3;

test('one trace from a client through mcpkit gateway to the server, every part exporting over OTLP/HTTP', async () => {
  const server = await exampleServer(otelEnv('e2e-server'));
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-otel-'));
  const config = join(dir, 'mcpkit.json');
  writeFileSync(
    config,
    JSON.stringify({ servers: { example: { url: server.url, approval: { default: 'allow' } } } }),
  );
  const gateway = spawn(process.execPath, [MCPKIT, 'gateway', '--config', config, '--http', '0', '--otel'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: otelEnv('e2e-gateway'),
  });
  children.push(gateway);
  const gatewayUrl = await fromStderr(gateway, /Gateway: (\S+) /);
  // This process is the client, exporting too.
  const exported: OtlpExport = await startOtlpExport({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'e2e-client',
    },
  });
  const client = new Client({ name: 'e2e', version: '1' }, { era: 'stateful' });
  await client.connect(instrumentTransport(new HttpClientTransport(new URL(gatewayUrl))));
  let traceId = '';
  await trace.getTracer('e2e').startActiveSpan('e2e request', async (root) => {
    traceId = root.spanContext().traceId;
    const result = await client.callTool('example__echo', { text: 'hello' });
    assert.match(JSON.stringify(result.content), /hello/);
    root.end();
  });
  await client.close();
  await exported.shutdown();
  await stop(gateway);
  await stop(server.child);

  const clientSpans = spansOf('e2e-client');
  const gatewaySpans = spansOf('e2e-gateway');
  const serverSpans = spansOf('e2e-server');
  const first = clientSpans.find((s) => s.name === 'tools/call example__echo' && s.kind === CLIENT);
  assert.ok(first, `client spans: ${clientSpans.map((s) => s.name).join(', ')}`);
  assert.equal(first.traceId, traceId);
  // Hop 1: the gateway's SERVER span is the child of the client's span.
  const atGateway = gatewaySpans.find((s) => s.name === 'tools/call example__echo' && s.kind === SERVER);
  assert.ok(atGateway, `gateway spans: ${gatewaySpans.map((s) => `${s.name}/${s.kind}`).join(', ')}`);
  assert.equal(atGateway.traceId, traceId);
  assert.equal(atGateway.parentSpanId, first.spanId);
  // Inside the gateway: the routed call, then its own client's span to the server.
  const route = gatewaySpans.find((s) => s.name === 'route example__echo');
  assert.equal(route?.parentSpanId, atGateway.spanId);
  const onward = gatewaySpans.find((s) => s.name === 'tools/call echo' && s.kind === CLIENT);
  assert.ok(onward && route);
  assert.equal(onward.traceId, traceId);
  assert.equal(onward.parentSpanId, route.spanId);
  // Hop 2: the server's SERVER span is the child of the gateway's client span.
  const atServer = serverSpans.find((s) => s.name === 'tools/call echo' && s.kind === SERVER);
  assert.ok(atServer, `server spans: ${serverSpans.map((s) => `${s.name}/${s.kind}`).join(', ')}`);
  assert.equal(atServer.traceId, traceId);
  assert.equal(atServer.parentSpanId, onward.spanId);
  for (const span of [first, atGateway, onward, atServer]) {
    assert.equal(attr(span, 'mcp.method.name'), 'tools/call');
    assert.equal(attr(span, 'gen_ai.operation.name'), 'execute_tool');
    assert.ok(attr(span, 'gen_ai.tool.name'));
    assert.ok(attr(span, 'jsonrpc.request.id'));
    assert.match(attr(span, 'mcp.protocol.version') ?? '', /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(attr(span, 'network.transport'), 'tcp');
    assert.equal(attr(span, 'error.type'), undefined);
  }
  // The client holds a session with the gateway (stateful); the gateway's host speaks the stateless revision onward.
  assert.ok(attr(atGateway, 'mcp.session.id'), 'the gateway span names the session');
  // The duration metrics, in seconds, from each part.
  assert.ok(metricNames('e2e-client').includes('mcp.client.operation.duration s'));
  assert.ok(metricNames('e2e-client').includes('mcp.client.session.duration s'));
  assert.ok(metricNames('e2e-gateway').includes('mcp.server.operation.duration s'));
  assert.ok(metricNames('e2e-gateway').includes('mcp.client.operation.duration s'));
  assert.ok(metricNames('e2e-server').includes('mcp.server.operation.duration s'));
});

test("the official SDK 1.x client's traceparent in _meta is continued by our server", async () => {
  const server = await exampleServer(otelEnv('sdk-server'));
  const client = new SdkClient({ name: 'official', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  await client.callTool({
    name: 'echo',
    arguments: { text: 'traced' },
    _meta: { traceparent: `00-${traceId}-1122334455667788-01`, tracestate: 'vendor=1' },
  });
  await client.close();
  await stop(server.child);
  const span = spansOf('sdk-server').find((s) => s.name === 'tools/call echo');
  assert.ok(span, 'the server exported its span');
  assert.equal(span.traceId, traceId);
  assert.equal(span.parentSpanId, '1122334455667788');
  assert.equal(span.kind, SERVER);
});

test('OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf exports protobuf', async () => {
  const server = await exampleServer(otelEnv('proto-server', 'http/protobuf'));
  const client = new Client({ name: 'p', version: '1' }, { era: 'stateful' });
  await client.connect(new HttpClientTransport(new URL(server.url)));
  await client.callTool('echo', { text: 'x' });
  await client.close();
  const before = received.length;
  await stop(server.child);
  const proto = received.slice(before).filter((e) => e.contentType === 'application/x-protobuf');
  assert.ok(
    proto.some((e) => e.path === '/v1/traces' && e.body.length > 0),
    'spans as protobuf',
  );
  assert.ok(
    proto.some((e) => e.path === '/v1/metrics' && e.body.length > 0),
    'metrics as protobuf',
  );
  // The service name travels in the protobuf bytes too.
  assert.ok(proto.some((e) => e.body.includes('proto-server')));
});

test('an exporter endpoint that is down, or never answers, breaks no request', async () => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  for (const at of [closed, silentEndpoint]) {
    const server = await exampleServer({
      ...otelEnv('down', 'http/json', at),
      OTEL_METRIC_EXPORT_INTERVAL: '200',
    });
    const client = new Client({ name: 'd', version: '1' }, { era: 'stateful' });
    await client.connect(new HttpClientTransport(new URL(server.url)));
    for (let i = 0; i < 20; i++) {
      const result = await client.callTool('echo', { text: `n${i}` });
      assert.match(JSON.stringify(result.content), new RegExp(`n${i}`));
    }
    await client.close();
    await stop(server.child);
    assert.equal(server.child.exitCode, 0, `the server ended cleanly with the endpoint ${at}`);
  }
});

test("mcpkit call --otel: the command's client exports its spans (stdio: network.transport pipe)", async () => {
  const run = await mcpkit(['call', 'echo', 'text=hi', '--otel', '--', process.execPath, EXAMPLE], {
    env: otelEnv('cli-call'),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /otel: exporting spans and metrics to http:\/\/127\.0\.0\.1:\d+ \(http\/json\)/);
  const span = spanNamed('cli-call', 'tools/call echo');
  assert.equal(span.kind, CLIENT);
  assert.equal(attr(span, 'network.transport'), 'pipe');
  assert.ok(metricNames('cli-call').includes('mcp.client.operation.duration s'));
});

test('mcpkit call without --otel exports nothing', async () => {
  const before = received.length;
  const run = await mcpkit(['call', 'echo', 'text=hi', '--', process.execPath, EXAMPLE], {
    env: otelEnv('cli-plain'),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(received.length, before);
  assert.doesNotMatch(run.stderr, /otel:/);
});

test("mcpkit serve --otel: the module's server traced over stdio (network.transport pipe), exported before it exits", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-otel-serve-'));
  const module = join(dir, 'server.mjs');
  const pkg = pathToFileURL(join(dirname(MCPKIT), 'index.js')).href;
  writeFileSync(
    module,
    `import { McpServer } from '${pkg}';
export const server = new McpServer({ name: 'served', version: '1.0.0' });
server.tool('hello', {}, () => ({ content: [{ type: 'text', text: 'hi' }] }));
`,
  );
  // The stdio client passes an allow-listed environment only: the OTEL_* variables go to the server by -e.
  const run = await mcpkit(
    [
      'call',
      'hello',
      '-e',
      `OTEL_EXPORTER_OTLP_ENDPOINT=${endpoint}`,
      '-e',
      'OTEL_EXPORTER_OTLP_PROTOCOL=http/json',
      '-e',
      'OTEL_SERVICE_NAME=cli-serve',
      '--',
      process.execPath,
      MCPKIT,
      'serve',
      module,
      '--otel',
    ],
    { env: otelEnv('cli-call-of-serve') },
  );
  assert.equal(run.code, 0, run.stderr);
  const span = spanNamed('cli-serve', 'tools/call hello');
  assert.equal(span.kind, SERVER);
  assert.equal(attr(span, 'network.transport'), 'pipe');
});
