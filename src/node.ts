// `mcpkit/node`: serving MCP over HTTP from node:http (Streamable HTTP, with the legacy HTTP+SSE
// transport beside it), the adapter that mounts the endpoints in Express/Connect-style apps, and the Node-only
// helpers of the OAuth client (a token file, the loopback redirect receiver).

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from './server/server.js';
import { isLoopbackHost } from './transport/loopback.js';
import { createNodeListener, type NodeListener, type NodeRoutes } from './transport/node-http.js';
import { createSseLegacyHandler, type SseLegacyHandler } from './transport/sse-legacy-server.js';
import {
  createStreamableHttpHandler,
  type StreamableHttpHandler,
  type StreamableHttpOptions,
} from './transport/streamable-http/handler.js';
import { loopbackHosts } from './transport/streamable-http/security.js';

// The Node-only parts of the OAuth client (mcpkit/auth): a token file and the loopback redirect receiver.
export { FileTokenStore } from './auth/client/file-store.js';
export { LoopbackReceiver, type LoopbackReceiverOptions } from './auth/client/loopback.js';
export {
  type JsonlAuditOptions,
  type JsonlAuditSink,
  jsonlAuditSink,
} from './server/guard/audit-file.js';
export {
  createNodeListener,
  type NodeListener,
  type NodeListenerOptions,
  type NodeRoutes,
} from './transport/node-http.js';

/** Options of {@link serve}. */
export interface ServeOptions extends StreamableHttpOptions {
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
  /** Address to bind. Default 127.0.0.1 (never all interfaces unless asked). */
  host?: string;
  /** Path of the Streamable HTTP endpoint. Default '/mcp'. */
  path?: string;
  /** Also serve the 2024-11-05 HTTP+SSE transport (GET `ssePath`, POST `messagesPath`). Default true. */
  legacySse?: boolean | { ssePath?: string; messagesPath?: string };
}

/** A running HTTP server. */
export interface RunningServer {
  /** The Streamable HTTP endpoint's URL. */
  readonly url: string;
  /** The legacy SSE endpoint's URL, when served. */
  readonly sseUrl: string | undefined;
  readonly httpServer: Server;
  readonly streamable: StreamableHttpHandler;
  readonly legacy: SseLegacyHandler | undefined;
  /** Ends every session and stops listening. */
  close(): Promise<void>;
}

/**
 * Serves `server` over Streamable HTTP (and the legacy HTTP+SSE transport) on 127.0.0.1.
 * On a loopback address the Host header is checked against DNS rebinding automatically.
 *
 * @example
 * const running = await serve(server, { port: 3000 });
 * console.error(`listening on ${running.url}`);
 */
export async function serve(server: McpServer, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  // Before listening: options that name what is not registered are refused with nothing left open.
  server.checkOptions();
  const httpServer = createServer();
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  const security = {
    ...options,
    allowedHosts: options.allowedHosts ?? (isLoopbackHost(host) ? loopbackHosts(port) : undefined),
  };
  const streamable = createStreamableHttpHandler(server, security);
  const routes: NodeRoutes = { [path]: streamable };
  let legacy: SseLegacyHandler | undefined;
  let ssePath: string | undefined;
  if (options.legacySse !== false) {
    const paths = typeof options.legacySse === 'object' ? options.legacySse : {};
    ssePath = paths.ssePath ?? '/sse';
    const messagesPath = paths.messagesPath ?? '/messages';
    legacy = createSseLegacyHandler(server, { ...security, messagesPath });
    routes[ssePath] = legacy;
    routes[messagesPath] = legacy;
  }
  const listener: NodeListener = createNodeListener(routes);
  httpServer.on('request', listener);
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: `${origin}${path}`,
    sseUrl: ssePath === undefined ? undefined : `${origin}${ssePath}`,
    httpServer,
    streamable,
    legacy,
    async close() {
      await Promise.all([streamable.close(), legacy?.close()]);
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
