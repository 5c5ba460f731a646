// The server the soak runs measure, in its own process: echo, a memory probe (two full GCs, then the heap and the
// RSS), and a broadcast that makes every session's GET stream carry a notification. Prints its URL on stdout.
//   node --expose-gc dist/test/soak/server.js [--stateless] [--no-overload] [--max-in-flight N] [--max-delay-ms N]
import { createHash } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { McpServer } from '../../src/index.js';
import { serve } from '../../src/node.js';

const { values } = parseArgs({
  options: {
    stateless: { type: 'boolean' },
    'no-overload': { type: 'boolean' },
    'max-in-flight': { type: 'string' },
    'max-delay-ms': { type: 'string' },
  },
});
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const server = new McpServer(
  { name: 'soak', version: '1' },
  { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } } },
);
server.resourceTemplate('test://big/{name}', { name: 'big' }, () => 'big');
server.tool(
  'echo',
  { description: 'Echoes.', inputSchema: z.object({ text: z.string() }) },
  ({ text }) => text,
);
server.tool(
  'echo_async',
  {
    description: 'Echoes on the next turn of the event loop (a handler that awaits something).',
    inputSchema: z.object({ text: z.string() }),
  },
  async ({ text }) => {
    await new Promise((resolve) => setImmediate(resolve));
    return text;
  },
);
/** 64 KiB hashed per unit of work: a fixed amount of CPU (about 0.15 ms here), slower when the core is shared. */
const BLOCK = Buffer.alloc(64 * 1024, 7);
server.tool(
  'work',
  {
    description:
      'Hashes 64 KiB `units` times (CPU work of a fixed size), then answers on the next turn of the loop.',
    inputSchema: z.object({ units: z.number().int().min(0).max(1000) }),
  },
  async ({ units }) => {
    let digest = '';
    for (let i = 0; i < units; i++) digest = createHash('sha256').update(BLOCK).digest('hex');
    await new Promise((resolve) => setImmediate(resolve));
    return digest.slice(0, 8);
  },
);
server.tool('memory', { description: 'Heap and RSS after two full collections.' }, () => {
  gc();
  gc();
  const { heapUsed, heapTotal, rss } = process.memoryUsage();
  return {
    content: [{ type: 'text', text: JSON.stringify({ heapUsed, heapTotal, rss }) }],
    structuredContent: { heapUsed, heapTotal, rss },
  };
});
// The loop's delay and the CPU used since the last `stats` call: how the server fared under a flood, and how much
// of a core it had (on a machine shared with other work, less than all of it).
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
let since = { at: performance.now(), cpu: process.cpuUsage() };
server.tool('stats', { description: 'Event-loop delay and CPU since the last call.' }, () => {
  const cpu = process.cpuUsage(since.cpu);
  const stats = {
    loopP50Ms: loop.percentile(50) / 1e6,
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: performance.now() - since.at,
  };
  loop.reset();
  since = { at: performance.now(), cpu: process.cpuUsage() };
  return { content: [{ type: 'text', text: JSON.stringify(stats) }], structuredContent: stats };
});
/** A 16 KiB URI: each update sent to a subscriber costs that much of its stream. */
const BIG = `test://big/${'x'.repeat(16 * 1024)}`;
server.tool(
  'broadcast',
  {
    description: 'Sends `times` resources/updated of 16 KiB each to every session subscribed to test://big/.',
    inputSchema: z.object({ times: z.number().int().min(1).max(10_000) }),
  },
  async ({ times }) => {
    for (let i = 0; i < times; i++) {
      server.notifyResourceUpdated(`${BIG}${i}`);
      if (i % 16 === 15) await new Promise((resolve) => setImmediate(resolve));
    }
    return `${times} updates`;
  },
);

const running = await serve(server, {
  port: 0,
  sessions: values.stateless !== true,
  maxSessions: 200_000,
  // The load generator is one address standing for thousands of clients: no bound per address.
  maxConnectionsPerAddress: 0,
  overload: values['no-overload']
    ? false
    : {
        ...(values['max-in-flight'] ? { maxInFlight: Number(values['max-in-flight']) } : {}),
        ...(values['max-delay-ms'] ? { maxEventLoopDelayMs: Number(values['max-delay-ms']) } : {}),
      },
});
// Every answer says when node handed its request to the listener (ms since the epoch, fractional): a load generator
// on the same machine splits an answer's latency into its time before the server saw it and after.
running.httpServer.prependListener('request', (_req, res) => {
  res.setHeader('x-soak-seen', (performance.timeOrigin + performance.now()).toFixed(3));
});
process.stdout.write(`${running.url}\n`);
const stop = () => void running.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
