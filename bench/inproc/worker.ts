// One in-process micro-benchmark of one implementation, in a process of its own (so implementations never share a
// JIT or a heap). Usage: node dist/bench/inproc/worker.js <server-list|client-list|construct> <impl> <blocks> <budgetMs>
// Prints one JSON line: { "metrics": { name: value, ... } }.
import { median } from '../lib/stats.js';
import { cannedResponder, makeTools } from './fixtures.js';
import {
  INITIALIZE_LINE,
  INITIALIZED_LINE,
  type InprocAdapter,
  LoopbackStdio,
  requestLine,
  timeInterleaved,
} from './harness.js';

const [bench, impl, blocksArg, budgetArg] = process.argv.slice(2);
const blocks = Number(blocksArg ?? 10);
const budgetMs = Number(budgetArg ?? 2000);

async function load(name: string | undefined): Promise<InprocAdapter> {
  switch (name) {
    case 'mcpkit':
      return (await import('./mcpkit.js')).adapter;
    case 'official-v1':
      return (await import('./official-v1.js')).adapter;
    case 'official-v2':
      return (await import('./official-v2.js')).adapter;
    default:
      throw new Error(`no in-process adapter for ${name}`);
  }
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`check failed: ${what}`);
}

/** ping, tools/list (100 tools) and tools/call echo through the server's own stdio transport, in memory. */
async function serverList(adapter: InprocAdapter): Promise<Record<string, number>> {
  const server = adapter.build(makeTools(100, true));
  const io = new LoopbackStdio();
  const close = await adapter.serve(server, io.stdin, io.stdout);
  check((await io.request(INITIALIZE_LINE, true)).includes('"protocolVersion"'), 'initialize reply');
  io.notify(INITIALIZED_LINE);
  // Requests run one at a time, so each may reuse its id.
  const ping = Buffer.from(requestLine(1, 'ping'));
  const list = Buffer.from(requestLine(2, 'tools/list'));
  const call = Buffer.from(
    requestLine(3, 'tools/call', { name: 'echo', arguments: { text: 'hello world' } }),
  );
  const listed = JSON.parse(await io.request(list, true)) as { result?: { tools?: unknown[] } };
  check(listed.result?.tools?.length === 100, 'tools/list lists 100 tools');
  const called = JSON.parse(await io.request(call, true)) as { result?: { content?: { text?: string }[] } };
  check(called.result?.content?.[0]?.text === 'hello world', 'tools/call echoes');
  check((await io.request(ping, true)).includes('"result":{}'), 'ping reply');
  const t = await timeInterleaved(
    { ping: () => io.request(ping), list: () => io.request(list), call: () => io.request(call) },
    blocks,
    budgetMs,
  );
  await close();
  const ping_us = median(t.ping!);
  const list_us = median(t.list!);
  return { ping_us, list_us, list_over_ping: list_us / ping_us, call_us: median(t.call!) };
}

/** The client's listTools() against a scripted server listing 100 tools with output schemas. */
async function clientList(adapter: InprocAdapter): Promise<Record<string, number>> {
  const client = await adapter.client(cannedResponder(100));
  const t0 = performance.now();
  check((await client.listTools()) === 100, 'listTools() returns 100 tools');
  const first_ms = performance.now() - t0;
  const t = await timeInterleaved({ list: () => client.listTools() }, blocks, budgetMs);
  await client.close();
  return { list_ms: median(t.list!) / 1e3, first_ms };
}

/** Building a server with 20 tools; and building it, serving it, initializing and listing its tools. */
async function construct(adapter: InprocAdapter): Promise<Record<string, number>> {
  let keep: unknown;
  const list = Buffer.from(requestLine(1, 'tools/list'));
  const ready = async () => {
    const server = adapter.build(makeTools(20, true));
    const io = new LoopbackStdio();
    const close = await adapter.serve(server, io.stdin, io.stdout);
    await io.request(INITIALIZE_LINE);
    io.notify(INITIALIZED_LINE);
    const text = await io.request(list, true);
    await close();
    return text;
  };
  const first = JSON.parse(await ready()) as { result?: { tools?: unknown[] } };
  check(first.result?.tools?.length === 20, 'tools/list lists 20 tools');
  const t = await timeInterleaved(
    {
      construct: () => {
        keep = adapter.build(makeTools(20, true));
      },
      ready,
    },
    blocks,
    budgetMs,
  );
  check(keep !== undefined, 'built');
  return { construct_ms: median(t.construct!) / 1e3, ready_ms: median(t.ready!) / 1e3 };
}

const adapter = await load(impl);
const run = bench === 'server-list' ? serverList : bench === 'client-list' ? clientList : construct;
if (!['server-list', 'client-list', 'construct'].includes(bench ?? ''))
  throw new Error(`unknown bench ${bench}`);
const metrics = await run(adapter);
process.stdout.write(`${JSON.stringify({ metrics })}\n`);
// Some servers keep handles open after close(); the result is out, so end here.
process.exit(0);
