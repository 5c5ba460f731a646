// Issue 24: where a zod stdio server's start goes, phase by phase, in one process: loading mcpkit (and its stdio
// entry), loading zod, building the server with the `echo` tool (the zod schema turned into JSON Schema), and
// connecting and answering `initialize` on in-memory streams. Prints the milliseconds of each phase; run it a few
// times and take the minimum (the machine is shared):
//
//   node dist/bench/cold-start-breakdown.js [--zod-first]
import { PassThrough } from 'node:stream';

const t0 = performance.now();
const marks: [string, number][] = [];
const mark = (name: string) => marks.push([name, performance.now()]);

const zodFirst = process.argv.includes('--zod-first');
let zod: typeof import('zod');
if (zodFirst) {
  zod = await import('zod');
  mark('import zod');
}
const mcpkit = await import('mcpkit');
const stdio = await import('mcpkit/stdio');
mark('import mcpkit + mcpkit/stdio');
if (!zodFirst) {
  zod = await import('zod');
  mark('import zod');
}
const { z } = zod!;

const server = new mcpkit.McpServer({ name: 'bench-mcpkit', version: '1.0.0' });
server.tool(
  'echo',
  { description: 'Echoes its text argument.', inputSchema: z.object({ text: z.string() }) },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);
mark('new McpServer + tool (zod to JSON Schema)');

const stdin = new PassThrough();
const stdout = new PassThrough();
const answered = new Promise<void>((resolve) => stdout.once('data', () => resolve()));
await server.connect(new stdio.StdioServerTransport({ stdin, stdout }));
stdin.write(
  `${JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'b', version: '1' } },
  })}\n`,
);
await answered;
mark('connect + first initialize answered');

let last = t0;
for (const [name, at] of marks) {
  console.log(`${(at - last).toFixed(1).padStart(7)} ms  ${name}`);
  last = at;
}
console.log(`${(last - t0).toFixed(1).padStart(7)} ms  total after the entry module started`);
await server.close();
