// Issue 29: the least any instrumentation by the MCP conventions pays per request under the bench's SDK setup
// (servers/otel-sdk.ts), with mcpkit left out entirely: no server, no HTTP, only the SDK calls a request needs.
//
//   node dist/bench/otel-floor.js <none|span|request> [ops] [batch]   # ns per op, wall clock (a quiet machine)
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node dist/bench/otel-floor.js request 20000
//
// `span` starts and ends one SERVER span carrying the attributes mcpkit's span of `tools/call echo` carries; `request`
// adds what a request by the conventions also needs: the span made the active context while the handler runs
// (`context.with`) and one point of the `mcp.server.operation.duration` histogram with the metric's attributes;
// `none` is the loop alone. Ops run in batches (8, as the HTTP bench's clients) with a turn of the event loop
// between batches, so the batch processor's and the metric reader's timers fire as in a server. Set beside the
// server's CPU per call of `otel.js` (mode off), `request` says how close to 1.0× any instrumentation can come.
import { registerBenchSdk } from './servers/otel-sdk.js';

const [mode = 'request', opsArg = '200000', batchArg = '8'] = process.argv.slice(2);
const ops = Number(opsArg);
const batch = Number(batchArg);
if (
  !['none', 'span', 'request'].includes(mode) ||
  !Number.isInteger(ops) ||
  ops < 1 ||
  !Number.isInteger(batch)
)
  throw new Error('usage: otel-floor.js <none|span|request> [ops] [batch]');

await registerBenchSdk({ metrics: mode === 'request' });
const { context, metrics, SpanKind, trace } = await import('@opentelemetry/api');
const tracer = trace.getTracer('otel-floor');
const histogram = metrics
  .getMeter('otel-floor')
  .createHistogram('mcp.server.operation.duration', { unit: 's' });
const METRIC_ATTRIBUTES = {
  'mcp.method.name': 'tools/call',
  'gen_ai.tool.name': 'echo',
  'gen_ai.operation.name': 'execute_tool',
  'mcp.protocol.version': '2025-06-18',
  'network.transport': 'tcp',
};

let id = 0;
const handler = (): number => id++;
function one(): void {
  if (mode === 'none') {
    handler();
    return;
  }
  const span = tracer.startSpan(
    'tools/call echo',
    {
      kind: SpanKind.SERVER,
      attributes: {
        ...METRIC_ATTRIBUTES,
        'jsonrpc.request.id': id,
        'mcp.session.id': undefined,
        'client.address': '127.0.0.1',
      },
    },
    context.active(),
  );
  if (mode === 'span') handler();
  else {
    context.with(trace.setSpan(context.active(), span), handler);
    histogram.record(0.0001, METRIC_ATTRIBUTES);
  }
  span.end();
}

const run = async (count: number): Promise<void> => {
  for (let done = 0; done < count; done += batch) {
    for (let i = 0; i < batch; i++) one();
    await new Promise((resolve) => setImmediate(resolve));
  }
};
await run(Math.min(20_000, ops));
const t0 = process.hrtime.bigint();
await run(ops);
const ns = Number(process.hrtime.bigint() - t0);
process.stdout.write(`${mode} ${ops} ops ${(ns / ops).toFixed(0)} ns/op\n`);
// The SDK's periodic reader and batch timer would keep the process alive.
process.exit(0);
