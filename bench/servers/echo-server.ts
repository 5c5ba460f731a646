// The mcpkit server the HTTP benches measure: the `echo` tool, and, for issue 13, the guards of the
// `stateless-guards` mode (a rate limit per client on tool calls that the load never reaches, two access rules, an
// audit record of every call to a callback into a ring). Shared by `mcpkit-http.ts` (over sockets) and
// `bench/guards-inproc.ts` (the core in one process), so both measure the same server.
import { type AuditRecord, McpServer } from 'mcpkit';
import { z } from 'zod';

/** The audit callback's ring of the last 1,024 records (what a logger's in-memory buffer would hold). */
const ring: AuditRecord[] = new Array(1024);
let audited = 0;

/** Audit records the guarded servers of this process have made. */
export function auditedCount(): number {
  return audited;
}

/** The bench's echo server, with the issue-13 guards when `guarded`. */
export function echoServer(guarded: boolean): McpServer {
  const server = new McpServer(
    { name: 'bench-mcpkit', version: '1.0.0' },
    guarded
      ? {
          rateLimit: { methods: { 'tools/call': { limit: '1000000/s', key: 'client' } } },
          access: {
            rules: [
              { effect: 'deny', tools: ['admin_*'], when: (auth) => !auth?.scopes.includes('admin') },
              { effect: 'allow', tools: ['echo'] },
            ],
          },
          audit: {
            sink: (record) => {
              ring[audited++ & 1023] = record;
            },
          },
        }
      : {},
  );
  server.tool(
    'echo',
    { description: 'Echoes its text argument.', inputSchema: z.object({ text: z.string() }) },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}
