// The gateway's HTTP endpoint on node:http: Streamable HTTP at /mcp and the legacy HTTP+SSE transport at /sse and
// /messages, Host headers checked on a loopback address. (The same parts `serve()` of `mcpkit/node` puts together;
// an entry point, which a folder may not import.)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '../server/server.js';
import { isLoopbackHost } from '../transport/loopback.js';
import { createNodeListener } from '../transport/node-http.js';
import { createSseLegacyHandler } from '../transport/sse-legacy-server.js';
import { createStreamableHttpHandler } from '../transport/streamable-http/handler.js';
import { loopbackHosts } from '../transport/streamable-http/security.js';

/** A listening endpoint. */
export interface Listening {
  url: string;
  sseUrl: string;
  close(): Promise<void>;
}

/** Serves `server` on `host:port` (0: any free port). */
export async function listen(server: McpServer, port: number, host: string): Promise<Listening> {
  const http = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  const security = isLoopbackHost(host) ? { allowedHosts: loopbackHosts(bound) } : {};
  const streamable = createStreamableHttpHandler(server, security);
  const legacy = createSseLegacyHandler(server, { ...security, messagesPath: '/messages' });
  http.on('request', createNodeListener({ '/mcp': streamable, '/sse': legacy, '/messages': legacy }));
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  return {
    url: `${origin}/mcp`,
    sseUrl: `${origin}/sse`,
    async close() {
      await Promise.all([streamable.close(), legacy.close()]);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
