// The server the soak runs measure, in its own process: echo, a memory probe (two full GCs, then the heap and the
// RSS), and a broadcast that makes every session's GET stream carry a notification. Prints its URL on stdout.
//   node --expose-gc dist/test/soak/server.js [--stateless] [--no-overload] [--max-in-flight N] [--max-delay-ms N]
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
server.tool('memory', { description: 'Heap and RSS after two full collections.' }, () => {
  gc();
  gc();
  const { heapUsed, heapTotal, rss } = process.memoryUsage();
  return {
    content: [{ type: 'text', text: JSON.stringify({ heapUsed, heapTotal, rss }) }],
    structuredContent: { heapUsed, heapTotal, rss },
  };
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
  overload: values['no-overload']
    ? false
    : {
        ...(values['max-in-flight'] ? { maxInFlight: Number(values['max-in-flight']) } : {}),
        ...(values['max-delay-ms'] ? { maxEventLoopDelayMs: Number(values['max-delay-ms']) } : {}),
      },
});
process.stdout.write(`${running.url}\n`);
const stop = () => void running.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
