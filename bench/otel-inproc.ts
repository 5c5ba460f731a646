// Issue 29 in one process, without sockets: the stateless Streamable HTTP core (`createStreamableHttpHandler`, the
// core `serve()` puts behind node:http) answering `tools/call echo`, with mcpkit/otel never imported (`off`) or the
// server instrumented by `instrumentServer` under the bench's SDK setup (`on`, servers/otel-sdk.ts: every span
// sampled, batched to an exporter that drops it), or (`context`) under the same SDK with each request only run in a
// context of its own (what the async-hooks context manager costs by itself). `api`, `spans` and `batched` are `on` with
// parts of the SDK left out, to split its cost: `api` the context manager and the API's no-op tracer and meter (what
// mcpkit's own code costs, over `context`), `spans` the SDK's tracer with no span processor and no meter, `batched`
// with the batch processor, no meter (`on` adds the histograms). Load-insensitive when counted in instructions:
//
//   node dist/bench/otel-inproc.js <off|context|api|spans|batched|on> <calls> [inFlight] [traced]  # ns per call
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node dist/bench/otel-inproc.js on 20000
//
// Instructions per call: run it under callgrind with two call counts and divide the difference of the totals by
// the difference of the counts (start-up, warm-up and compilation cancel out). `traced` puts a `traceparent` in
// every request's `_meta` (a caller that traces), so the extraction path is counted too.
import { createStreamableHttpHandler } from 'mcpkit';
import { FAKE_HOST, FakeRequest } from './lib/fake-request.js';
import { echoServer } from './servers/echo-server.js';
import type { BenchSdkParts } from './servers/otel-sdk.js';

const TEXT = 'hello world'; // 11 B, as the HTTP workloads
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const [mode = 'on', callsArg = '20000', inFlightArg = '8', traced] = process.argv.slice(2);
const calls = Number(callsArg);
const inFlight = Number(inFlightArg);
const PARTS: Readonly<Record<string, BenchSdkParts>> = {
  api: { tracer: false, metrics: false },
  spans: { processor: false, metrics: false },
  batched: { metrics: false },
  on: {},
};
if (
  !['off', 'context', ...Object.keys(PARTS)].includes(mode) ||
  !Number.isInteger(calls) ||
  calls < 1 ||
  !Number.isInteger(inFlight)
)
  throw new Error('usage: otel-inproc.js <off|context|api|spans|batched|on> <calls> [inFlight] [traced]');
const params: Record<string, unknown> = { name: 'echo', arguments: { text: TEXT } };
if (traced === 'traced') params._meta = { traceparent: TRACEPARENT };
const REST = `,"method":"tools/call","params":${JSON.stringify(params)}}`;

const server = echoServer(false);
const parts = PARTS[mode];
if (parts !== undefined) {
  const { registerBenchSdk } = await import('./servers/otel-sdk.js');
  // OTEL_INPROC_READER_MS: the metric reader's period. Under callgrind a run takes minutes, so the reader's collections
  // (once a second) add instructions per call that a real run does not have; a long period leaves them out.
  const readerMs = Number(process.env.OTEL_INPROC_READER_MS ?? 1000);
  await registerBenchSdk({ ...parts, readerMs });
  const { instrumentServer } = await import('mcpkit/otel');
  instrumentServer(server);
} else if (mode === 'context') {
  // What the SDK's context manager costs alone: each request run in a context of its own, no span, no metric.
  const { registerBenchSdk } = await import('./servers/otel-sdk.js');
  await registerBenchSdk();
  const { context, createContextKey } = await import('@opentelemetry/api');
  const key = createContextKey('bench');
  server.observe({
    requests: (_incoming, _session, _version, run) => context.with(context.active().setValue(key, 1), run),
  });
}
server.checkOptions();
const handler = createStreamableHttpHandler(server, {
  sessions: false,
  responseMode: 'json',
  allowedHosts: [FAKE_HOST],
  // Off, so that a run slowed down by valgrind is not refused.
  overload: false,
});

let nextId = 1;
const one = async (): Promise<void> => {
  const id = nextId++;
  const reply = await handler.handle(new FakeRequest(`{"jsonrpc":"2.0","id":${id}${REST}`));
  if (reply.status !== 200 || !('body' in reply) || reply.body === undefined || !reply.body.includes(TEXT))
    throw new Error(`bad reply: ${JSON.stringify(reply)}`);
};
const t0 = process.hrtime.bigint();
for (let done = 0; done < calls; done += inFlight) {
  const batch: Promise<void>[] = [];
  for (let i = 0; i < inFlight && done + i < calls; i++) batch.push(one());
  await Promise.all(batch);
  // A turn of the event loop per batch, as between reads of sockets (the batch processor's timer fires).
  await new Promise((resolve) => setImmediate(resolve));
}
const ns = Number(process.hrtime.bigint() - t0);
process.stdout.write(`${mode} ${calls} calls ${(ns / calls).toFixed(0)} ns/call\n`);
// The SDK's periodic reader and batch timer would keep the process alive.
process.exit(0);
