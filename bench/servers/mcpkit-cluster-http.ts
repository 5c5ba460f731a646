// mcpkit over Streamable HTTP for the cluster bench: the `echo` tool of mcpkit-http.ts with sessions and JSON
// replies, its stores in memory (mode `memory`) or on Redis (mode `redis=<url>`: one instance of a cluster).
// Prints `listening <port>` like the other bench servers.
import { McpServer } from 'mcpkit';
import { serve } from 'mcpkit/node';
import { redisCluster } from 'mcpkit/redis';
import { z } from 'zod';
import { announce } from './http-common.js';

const port = Number(process.argv[2] ?? 0);
const mode = process.argv[3] ?? 'memory';
const cluster = mode.startsWith('redis=') ? await redisCluster(mode.slice('redis='.length)) : undefined;

const server = new McpServer({ name: 'bench-mcpkit-cluster', version: '1.0.0' });
server.tool(
  'echo',
  { description: 'Echoes its text argument.', inputSchema: z.object({ text: z.string() }) },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);
const running = await serve(server, {
  port,
  legacySse: false,
  responseMode: 'json',
  ...(cluster === undefined ? {} : { cluster }),
});
announce(running.httpServer);
