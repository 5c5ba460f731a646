// Serving over HTTP from node:http: an McpServer (`serve`), or another server reached through a transport
// (`serveRelay`). Re-exported by `mcpkit/node`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Transport } from '../protocol/transport.js';
import type { McpServer } from '../server/server.js';
import { isLoopbackHost } from './loopback.js';
import { createNodeListener, type NodeListener, type NodeRoutes } from './node-http.js';
import { createSseLegacyHandler, type SseLegacyHandler } from './sse-legacy-server.js';
import {
  createStreamableHttpHandler,
  type StreamableHttpHandler,
  type StreamableHttpOptions,
} from './streamable-http/handler.js';
import { createStreamableHttpRelay, type StreamableHttpRelayOptions } from './streamable-http/relay.js';
import { loopbackHosts } from './streamable-http/security.js';

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
  /**
   * Most TCP connections open at once (node's `server.maxConnections`); one more is closed as soon as it is
   * accepted, so a flood of connections is refused at once instead of each one's requests waiting their turn behind
   * all the others. Counts idle keep-alive connections and open SSE streams too: raise it with `maxSessions`.
   * Default 16 384; 0 means no limit.
   */
  maxConnections?: number;
  /**
   * How long (ms) an idle keep-alive connection is kept open. Default 65 000: longer than the 60 s a proxy in front
   * keeps an idle upstream connection (nginx's `keepalive_timeout`, cloud load balancers), so the server never closes
   * a connection the proxy is about to reuse (a POST lost that way is a 502 from the proxy, or a failed request of a
   * client whose event loop ran late); clients are told it in the `Keep-Alive` header. 0 keeps idle connections open.
   */
  keepAliveTimeoutMs?: number;
}

/** The default of `ServeOptions.maxConnections`. */
const DEFAULT_MAX_CONNECTIONS = 16_384;
/** The default of `keepAliveTimeoutMs`: past the 60 s idle timeout of the proxies commonly in front. */
const DEFAULT_KEEP_ALIVE_MS = 65_000;

/** A node:http server keeping idle connections `keepAliveTimeoutMs`. */
function httpServerWith(keepAliveTimeoutMs: number | undefined): Server {
  const keepAlive = keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_MS;
  if (!Number.isFinite(keepAlive) || keepAlive < 0)
    throw new RangeError(`keepAliveTimeoutMs must be a number ≥ 0, got ${keepAlive}`);
  const httpServer = createServer();
  httpServer.keepAliveTimeout = keepAlive;
  return httpServer;
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
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!Number.isInteger(maxConnections) || maxConnections < 0)
    throw new RangeError(`maxConnections must be an integer ≥ 0, got ${maxConnections}`);
  const httpServer = httpServerWith(options.keepAliveTimeoutMs);
  if (maxConnections > 0) httpServer.maxConnections = maxConnections;
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

/** Options of {@link serveRelay}. */
export interface ServeRelayOptions extends StreamableHttpRelayOptions {
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
  /** Address to bind. Default 127.0.0.1. */
  host?: string;
  /** Path of the Streamable HTTP endpoint. Default '/mcp'. */
  path?: string;
  /**
   * How long (ms) an idle keep-alive connection is kept open. Default 65 000, as for `serve()`: longer than the 60 s a proxy in front
   * keeps an idle upstream connection (nginx's `keepalive_timeout`, cloud load balancers), so the server never closes
   * a connection the proxy is about to reuse (a POST lost that way is a 502 from the proxy, or a failed request of a
   * client whose event loop ran late); clients are told it in the `Keep-Alive` header. 0 keeps idle connections open.
   */
  keepAliveTimeoutMs?: number;
}

/** A running relay endpoint. */
export interface RunningRelay {
  /** The Streamable HTTP endpoint's URL. */
  readonly url: string;
  readonly httpServer: Server;
  readonly relay: StreamableHttpHandler;
  /** Ends every session (closing their upstreams) and stops listening. */
  close(): Promise<void>;
}

/**
 * Serves another MCP server, reached through the transports `open()` makes, over Streamable HTTP on 127.0.0.1
 * (see `createStreamableHttpRelay`): a stdio server made reachable over HTTP, one process per session.
 *
 * @example
 * const running = await serveRelay(() => new StdioClientTransport({ command: 'node', args: ['server.js'] }), { port: 3000 });
 */
export async function serveRelay(
  open: () => Transport,
  options: ServeRelayOptions = {},
): Promise<RunningRelay> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const httpServer = httpServerWith(options.keepAliveTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  const relay = createStreamableHttpRelay(open, {
    ...options,
    allowedHosts: options.allowedHosts ?? (isLoopbackHost(host) ? loopbackHosts(port) : undefined),
  });
  httpServer.on('request', createNodeListener({ [path]: relay }));
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    httpServer,
    relay,
    async close() {
      await relay.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
