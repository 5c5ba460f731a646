// Serving over HTTP from node:http: an McpServer (`serve`), or another server reached through a transport
// (`serveRelay`). Re-exported by `mcpkit/node`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Transport } from '../../../protocol/transport.js';
import { isLoopbackHost } from '../../../transport/loopback.js';
import type { ServerCardOptions } from '../../card.js';
import type { McpServer } from '../../server.js';
import { DEFAULT_BODY_TIMEOUT_MS, timeLimit } from '../core/body-deadline.js';
import { loopbackHosts } from '../core/security.js';
import { createSseLegacyHandler, type SseLegacyHandler } from '../legacy-sse/handler.js';
import {
  createStreamableHttpHandler,
  type StreamableHttpHandler,
  type StreamableHttpOptions,
} from '../streamable/handler.js';
import { createStreamableHttpRelay, type StreamableHttpRelayOptions } from '../streamable/relay.js';
import { DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, limitConnectionsPerAddress } from './node-connections.js';
import { createNodeListener, type NodeListener, type NodeRoutes } from './node-http.js';
import { cardAuth, createCardHandler } from './server-card.js';

/** Options of {@link serve}. */
export interface ServeOptions extends StreamableHttpOptions {
  /**
   * The server card (experimental extension, SEP-2127) at `<path>/server-card` and the AI Catalog at
   * `/.well-known/ai-catalog.json`, generated from the server's definition; `false` serves neither. Default on.
   */
  card?: ServerCardOptions | false;
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
   * Most TCP connections open at once from one client address (an IPv6 address by its /64 network); one more is
   * answered 429 Too Many Requests as soon as it is accepted and closed, so one client cannot hold all of
   * `maxConnections` (idle, trickling bodies or streaming). Counts SSE streams too. Default 256, or no limit when
   * `clientAddress` is set: the connections then come from the proxies in front, whatever client they carry. 0
   * means no limit.
   */
  maxConnectionsPerAddress?: number;
  /**
   * How long (ms) an idle keep-alive connection is kept open. Default 65 000: longer than the 60 s a proxy in front
   * keeps an idle upstream connection (nginx's `keepalive_timeout`, cloud load balancers), so the server never closes
   * a connection the proxy is about to reuse (a POST lost that way is a 502 from the proxy, or a failed request of a
   * client whose event loop ran late); clients are told it in the `Keep-Alive` header. 0 keeps idle connections open.
   */
  keepAliveTimeoutMs?: number;
  /**
   * How long (ms) a request's headers may take to arrive (node's `headersTimeout`); later, node answers 408 and closes
   * the connection. Node's `requestTimeout`, for the whole request, is set past this and `bodyTimeoutMs` (the
   * endpoint answers a late body 408 itself): a backstop, off when `bodyTimeoutMs` is 0. Default 10 000; 0 for no
   * limit.
   */
  headersTimeoutMs?: number;
}

/** The default of `ServeOptions.maxConnections`. */
const DEFAULT_MAX_CONNECTIONS = 16_384;
/** The default of `keepAliveTimeoutMs`: past the 60 s idle timeout of the proxies commonly in front. */
const DEFAULT_KEEP_ALIVE_MS = 65_000;
/** The default of `headersTimeoutMs`: a request's head is one packet or a few. */
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** How often node checks its connections against those time limits (its own default, 30 s, would let them run long). */
const CHECK_INTERVAL_MS = 1000;

/** The settings of the node:http server both `serve()` and `serveRelay()` make. */
interface NodeServerSettings {
  keepAliveTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  maxConnectionsPerAddress?: number;
}

/**
 * A node:http server keeping idle connections `keepAliveTimeoutMs`, with time limits on each request's head and
 * whole (`headersTimeoutMs`, `bodyTimeoutMs`) and the bound of connections per address; the function tells whether
 * that bound refused a socket.
 */
function httpServerWith(
  settings: NodeServerSettings,
  perAddressDefault: number,
): { httpServer: Server; refused: (socket: Socket) => boolean } {
  const keepAlive = timeLimit(settings.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_MS, 'keepAliveTimeoutMs');
  const headers = timeLimit(settings.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, 'headersTimeoutMs');
  const body = timeLimit(settings.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS, 'bodyTimeoutMs');
  const perAddress = settings.maxConnectionsPerAddress ?? perAddressDefault;
  if (!Number.isInteger(perAddress) || perAddress < 0)
    throw new RangeError(`maxConnectionsPerAddress must be an integer ≥ 0, got ${perAddress}`);
  const httpServer = createServer({
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
    headersTimeout: headers,
    // Past the endpoint's own 408 for a late body, which it answers with a JSON-RPC error; 0 (none) with no body limit.
    requestTimeout: body === 0 ? 0 : headers + body + CHECK_INTERVAL_MS * 5,
    keepAliveTimeout: keepAlive,
  });
  const refused =
    perAddress > 0 ? limitConnectionsPerAddress(httpServer, perAddress) : (_socket: Socket) => false;
  return { httpServer, refused };
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
  const { httpServer, refused } = httpServerWith(
    options,
    options.clientAddress === undefined ? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS : 0,
  );
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
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (options.card !== false) {
    const cards = createCardHandler(
      server,
      {
        path,
        url: options.auth?.resource ?? `${origin}${path}`,
        sseUrl: ssePath && `${origin}${ssePath}`,
        ...cardAuth(options.auth),
        ...(isLoopbackHost(host) ? { local: security } : {}),
      },
      options.card,
    );
    for (const p of cards.paths) routes[p] ??= cards;
  }
  const listener: NodeListener = createNodeListener(routes);
  httpServer.on('request', servedUnlessRefused(listener, refused));
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
  /** How long (ms) a request's headers may take to arrive, as for `serve()`. Default 10 000; 0 for no limit. */
  headersTimeoutMs?: number;
  /** Most connections open at once from one client address, as for `serve()`. Default 256; 0 means no limit. */
  maxConnectionsPerAddress?: number;
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
  const { httpServer, refused } = httpServerWith(options, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  const relay = createStreamableHttpRelay(open, {
    ...options,
    allowedHosts: options.allowedHosts ?? (isLoopbackHost(host) ? loopbackHosts(port) : undefined),
  });
  httpServer.on('request', servedUnlessRefused(createNodeListener({ [path]: relay }), refused));
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

/** `listener`, except for the requests of a connection the bound per address refused (it is closing). */
function servedUnlessRefused(
  listener: NodeListener,
  refused: (socket: Socket) => boolean,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (refused(req.socket)) res.destroy();
    else listener(req, res);
  };
}
