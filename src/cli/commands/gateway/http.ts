// The gateway's HTTP endpoint on node:http: Streamable HTTP at /mcp and the legacy HTTP+SSE transport at /sse and
// /messages, Host headers checked on a loopback address: `serve()` of `mcpkit/node` (its time limits and bounds
// included), reached through its own file (an entry point, which a folder may not import).

import { serve } from '../../../server/http/adapters/node-serve.js';
import type { McpServer } from '../../../server/server.js';

/** A listening endpoint. */
export interface Listening {
  url: string;
  sseUrl: string;
  close(): Promise<void>;
}

/** Serves `server` on `host:port` (0: any free port). */
export async function listen(server: McpServer, port: number, host: string): Promise<Listening> {
  const running = await serve(server, { port, host });
  return { url: running.url, sseUrl: running.sseUrl as string, close: () => running.close() };
}
