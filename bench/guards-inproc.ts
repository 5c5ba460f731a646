// Issue 13 in one process, without sockets: the stateless Streamable HTTP core (`createStreamableHttpHandler`, the
// core `serve()` puts behind node:http) answering `tools/call echo` with and without the guards of the
// `stateless-guards` bench server (a rate limit per client on tool calls never reached, two access rules, an audit
// record of every call to a callback into a ring). Load-insensitive when counted in instructions:
//
//   node dist/bench/guards-inproc.js <plain|guarded> <calls> [inFlight]       # prints ns per call (wall clock)
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node dist/bench/guards-inproc.js guarded 20000
//
// Instructions per call: run it under callgrind with two call counts and divide the difference of the totals by
// the difference of the counts (start-up, warm-up and compilation cancel out). `both` alternates the two servers in
// one process (wall clock only) and prints their ratio.
import { createStreamableHttpHandler } from 'mcpkit';
import { FAKE_HOST, FakeRequest } from './lib/fake-request.js';
import { auditedCount, echoServer } from './servers/echo-server.js';

const TEXT = 'hello world'; // 11 B, as the HTTP workloads
const REST = `,"method":"tools/call","params":${JSON.stringify({ name: 'echo', arguments: { text: TEXT } })}}`;

type Handler = ReturnType<typeof createStreamableHttpHandler>;

function handlerOf(guarded: boolean): Handler {
  const server = echoServer(guarded);
  server.checkOptions();
  return createStreamableHttpHandler(server, {
    sessions: false,
    responseMode: 'json',
    allowedHosts: [FAKE_HOST],
    // The load shedder is the same on both sides; off, so that a run slowed down by valgrind is not refused.
    overload: false,
  });
}

let nextId = 1;

/** `calls` calls, `inFlight` at a time; every reply checked. */
async function drive(handler: Handler, calls: number, inFlight: number): Promise<void> {
  const one = async (): Promise<void> => {
    const id = nextId++;
    const reply = await handler.handle(new FakeRequest(`{"jsonrpc":"2.0","id":${id}${REST}`));
    if (reply.status !== 200 || !('body' in reply) || reply.body === undefined || !reply.body.includes(TEXT))
      throw new Error(`bad reply: ${JSON.stringify(reply)}`);
  };
  for (let done = 0; done < calls; done += inFlight) {
    const batch: Promise<void>[] = [];
    for (let i = 0; i < inFlight && done + i < calls; i++) batch.push(one());
    await Promise.all(batch);
    // A turn of the event loop per batch, as between reads of sockets (the load shedder's probe timer fires).
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const [mode = 'both', callsArg = '20000', inFlightArg = '8'] = process.argv.slice(2);
const calls = Number(callsArg);
const inFlight = Number(inFlightArg);
if (!Number.isInteger(calls) || calls < 1 || !Number.isInteger(inFlight) || inFlight < 1)
  throw new Error('usage: guards-inproc.js <plain|guarded|both> <calls> [inFlight]');

if (mode === 'plain' || mode === 'guarded') {
  const handler = handlerOf(mode === 'guarded');
  const t0 = process.hrtime.bigint();
  await drive(handler, calls, inFlight);
  const ns = Number(process.hrtime.bigint() - t0);
  process.stdout.write(
    `${mode} ${calls} calls ${(ns / calls).toFixed(0)} ns/call audited ${auditedCount()}\n`,
  );
} else if (mode === 'both') {
  const plain = handlerOf(false);
  const guarded = handlerOf(true);
  const totals = { plain: 0, guarded: 0 };
  await drive(plain, 20_000, inFlight);
  await drive(guarded, 20_000, inFlight);
  for (let round = 0; round < 10; round++) {
    for (const [key, handler] of [
      ['plain', plain],
      ['guarded', guarded],
    ] as const) {
      const t0 = process.hrtime.bigint();
      await drive(handler, calls, inFlight);
      totals[key] += Number(process.hrtime.bigint() - t0);
    }
  }
  const per = (ns: number) => ns / (calls * 10);
  process.stdout.write(
    `plain ${per(totals.plain).toFixed(0)} ns/call, guarded ${per(totals.guarded).toFixed(0)} ns/call, ratio ${(totals.plain / totals.guarded).toFixed(3)}\n`,
  );
} else throw new Error(`unknown mode ${mode}`);
