import { ErrorCode, toError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import { isModernRevision } from '../../../spec/modern.js';
import { DEFAULT_HTTP_REVISION } from '../../../spec/versions.js';
import type { ClusterOptions } from '../../../store/cluster.js';
import { type EventStore, MemoryEventStore } from '../../../store/event-store.js';
import type { McpServer } from '../../server.js';
import { AuthGate, type ResourceAuthOptions } from '../core/auth-gate.js';
import { BodyReader, DEFAULT_BODY_TIMEOUT_MS } from '../core/body-deadline.js';
import { addressReader, type ClientAddressOptions } from '../core/client-address.js';
import { httpError, isRateLimited, unavailable } from '../core/errors.js';
import type { HttpReply, HttpRequestLike } from '../core/http.js';
import { LoadShedder, type OverloadOptions } from '../core/overload.js';
import { type PostBody, refusePostHeaders } from '../core/post-body.js';
import { checkRequestOrigin, type SecurityOptions } from '../core/security.js';
import { ClusteredSessions } from './clustered-sessions.js';
import { contextOf } from './connect.js';
import { refuseUnknownVersion } from './era-routing.js';
import { getSessionStream, isRefusal, namedSession, postToSession, refusalOf, routePost } from './prelude.js';
import { statusOfError } from './request-headers.js';
import { serverSessions } from './session-post.js';
import { SessionTable } from './session-table.js';
import type { HttpSessionTransport } from './session-transport.js';
import { postModern, postStateless, type SessionlessSettings } from './sessionless-post.js';
import type { ResponseMode, StreamSettings } from './stream-settings.js';

/** Options of a Streamable HTTP endpoint. */
export interface StreamableHttpOptions extends SecurityOptions {
  /**
   * Protect the endpoint as an OAuth 2.1 resource server: Protected Resource Metadata at the well-known URIs, a
   * verified bearer token on every request (its principal is `ctx.authInfo`), 401/403 challenges, sessions bound to
   * the principal that opened them. Verifiers: `mcpkit/auth`. Costs nothing when absent.
   */
  auth?: ResourceAuthOptions;
  /** Stateful sessions with `Mcp-Session-Id` (default), or stateless: every POST stands alone. */
  sessions?: boolean;
  /** JSON, SSE, or JSON unless the handler streams something first ('auto', the default). */
  responseMode?: ResponseMode;
  /** Largest accepted POST body in bytes; larger gets 413. Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * Longest time (ms) a POST body may take to arrive once its reading began; later gets 408 Request Timeout (and,
   * on node:http, its connection closed). A POST counts against `overload.maxInFlight` only once its body has
   * arrived, so clients trickling bodies hold their own connections, not the server's capacity. Default 30 000; 0
   * for no limit.
   */
  bodyTimeoutMs?: number;
  /** Most sessions at once. Default 10 000. */
  maxSessions?: number;
  /** Idle time (ms) after which a session expires and its id gets 404. Default 30 minutes. */
  sessionIdleTimeoutMs?: number;
  /** Where SSE events are kept for resumption; `false` disables resumption. Default: bounded in memory. */
  eventStore?: EventStore | false;
  /** The `retry` interval (ms) sent to clients for reconnecting. Default 1000. */
  retryMs?: number;
  /** Interval (ms) of keep-alive comments on idle SSE streams; 0 disables. Default 15 000. */
  keepAliveMs?: number;
  /** Whether GET opens a standalone SSE stream (else 405). Default true. */
  getStream?: boolean;
  /** Whether a client may end its session with DELETE (else 405). Default true. */
  allowDelete?: boolean;
  /**
   * Load shedding: POSTs (their bodies read) beyond `maxInFlight` at once, or arriving while the event loop is more than
   * `maxEventLoopDelayMs` behind, get 503 with `Retry-After` instead of queueing without bound. `false` turns it off.
   * Default: 1024 in flight, 1000 ms of loop delay.
   */
  overload?: OverloadOptions | false;
  /**
   * Makes this endpoint one instance of a cluster sharing sessions, resumable streams, server requests and change
   * notifications through these stores (`mcpkit/redis`: `redisCluster(url)`), so any instance answers any request of
   * any session behind a load balancer without affinity. Replaces `eventStore`. Default: none (one process).
   */
  cluster?: ClusterOptions;
  /**
   * Where the client's address (`ctx.remoteAddress`, the rate limiter's key for a request without a session or
   * token) is read behind reverse proxies. Default: the connection's peer address; a forwarded header is never
   * trusted unless named here.
   */
  clientAddress?: ClientAddressOptions;
}

/** A Streamable HTTP endpoint serving one server definition to many sessions. */
export interface StreamableHttpHandler {
  /** Answers one HTTP exchange (the adapters call this). */
  handle(req: HttpRequestLike): Promise<HttpReply>;
  /** Number of live sessions. */
  readonly sessionCount: number;
  /** Ends every session, and every stateless request whose handler is still at work (503, its signal aborted). */
  close(): Promise<void>;
  /** The paths of the Protected Resource Metadata when `auth` is set (route them to this handler too). */
  readonly extraPaths: readonly string[];
}

/** Creates the Streamable HTTP core for `server`: POST, GET and DELETE on one endpoint. */
export function createStreamableHttpHandler(
  server: McpServer,
  options: StreamableHttpOptions = {},
): StreamableHttpHandler {
  server.checkOptions();
  const stateful = options.sessions !== false;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const idleTimeoutMs = options.sessionIdleTimeoutMs ?? 30 * 60_000;
  const table = new SessionTable({ maxSessions: options.maxSessions ?? 10_000, idleTimeoutMs });
  const cluster =
    options.cluster !== undefined && stateful
      ? new ClusteredSessions(server, table, options.cluster, idleTimeoutMs)
      : undefined;
  const store =
    cluster !== undefined
      ? cluster.node.events
      : options.eventStore === false
        ? undefined
        : (options.eventStore ?? new MemoryEventStore());
  const settings: StreamSettings = {
    responseMode: options.responseMode ?? 'auto',
    retryMs: options.retryMs ?? 1000,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    eventStore: stateful ? store : undefined,
    // Ids and priming promise a resumption that only a store can give (`eventStore: false` disables it).
    resumable: stateful && store !== undefined,
  };
  if (cluster !== undefined) {
    settings.cluster = cluster.node;
    cluster.settings = settings;
    // Joined at once; a store that cannot be reached now is tried again by the first request that needs it.
    cluster.node.start().catch((e: unknown) => server.error(toError(e), undefined));
  }
  const request: StreamSettings = {
    ...settings,
    eventStore: undefined,
    resumable: false,
    statusOf: (m) => ('error' in m ? statusOfError(m.error.code) : 200),
  };
  const sessionless: SessionlessSettings = {
    request,
    // A listen stream is nothing but notifications: it is SSE whatever the server's response mode.
    listen: { ...request, responseMode: 'sse' },
    stateful: { ...request, statusOf: (m) => (isRateLimited(m) ? 429 : 200) },
    inFlight: new Set(),
  };
  const allow = [
    'POST',
    stateful && options.getStream !== false ? 'GET' : '',
    stateful && options.allowDelete !== false ? 'DELETE' : '',
  ]
    .filter(Boolean)
    .join(', ');
  const notAllowed = (what: string) =>
    httpError(405, `Method Not Allowed: ${what}`, ErrorCode.InvalidRequest, null, { allow });
  const gate =
    options.auth === undefined ? undefined : new AuthGate(options.auth, (e) => server.error(e, undefined));
  const scopesNeeded = (message: JsonRpcMessage) => server.scopesNeeded(message);
  const shedder = options.overload === false ? undefined : new LoadShedder(options.overload);
  const addressOf = addressReader(options.clientAddress);
  const bodies = new BodyReader(maxBody, options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);

  const refuseScopes =
    gate === undefined
      ? undefined
      : (req: HttpRequestLike, body: PostBody) => gate.refuseScopes(req, body.messages, scopesNeeded);
  const sessions = serverSessions(server, settings, table, cluster);
  /** A refusal before any message reached the server, told to its `refused` hook (tracing). */
  const refusing = (req: HttpRequestLike, reply: HttpReply): HttpReply => {
    server.refusedHttp(() => refusalOf(req, reply, addressOf(req)));
    return reply;
  };

  /**
   * A POST: content negotiation, its body read within the size and time limits, then (admitted by the load shedder
   * only now: a body still arriving costs the server nothing but its connection) the rest.
   */
  function post(req: HttpRequestLike): Promise<HttpReply> {
    const refused = refusePostHeaders(req, maxBody);
    if (refused) return Promise.resolve(refusing(req, refused));
    // One promise for the whole POST, settled by the rest once the body is in (none per step).
    return bodies.readThen(req, arrived, req);
  }

  /** A POST's body has arrived (or was refused: too large, too late). */
  function arrived(req: HttpRequestLike, text: string | HttpReply): HttpReply | Promise<HttpReply> {
    if (typeof text !== 'string') return refusing(req, text);
    return shedder ? shedder.admit(dispatch, req, text) : dispatch(req, text);
  }

  /**
   * A POST's body, step by step: parsing, scopes, era routing, version checks, sessions. A request answered
   * synchronously is returned as its reply, with no promise made for it (`post` is the one promise of the request).
   */
  function dispatch(req: HttpRequestLike, text: string): HttpReply | Promise<HttpReply> {
    const routed = routePost(req, text, refuseScopes);
    if (isRefusal(routed)) return refusing(req, routed);
    const address = addressOf(req);
    if (routed.modern) return postModern(server, sessionless, req, routed.modern, address);
    const version = routed.version ?? DEFAULT_HTTP_REVISION;
    if (!stateful) return postStateless(server, sessionless, routed.body, version, req, address);
    return postToSession(sessions, req, routed.body, contextOf(req, address));
  }

  /** The session a GET or DELETE names: from the table, or (cluster) read from the store once. */
  function lookup(
    sessionId: string,
  ): HttpSessionTransport | undefined | Promise<HttpSessionTransport | undefined> {
    const local = table.get(sessionId);
    if (local || cluster === undefined) return local;
    return cluster.load(sessionId);
  }

  async function get(req: HttpRequestLike): Promise<HttpReply> {
    // Stateless-revision clients have no GET stream; neither does a server without sessions.
    if (!stateful || options.getStream === false || isModernRevision(req.header('mcp-protocol-version'))) {
      return notAllowed('this endpoint has no GET stream');
    }
    return getSessionStream(req, lookup);
  }

  async function del(req: HttpRequestLike): Promise<HttpReply> {
    if (!stateful || options.allowDelete === false || isModernRevision(req.header('mcp-protocol-version'))) {
      return notAllowed('sessions cannot be ended by the client');
    }
    const bad = refuseUnknownVersion(req);
    if (bad) return bad;
    const transport = await namedSession(req, lookup);
    if (isRefusal(transport)) return transport;
    const sessionId = transport.sessionId as string;
    if (cluster !== undefined) {
      try {
        await cluster.delete(sessionId);
      } catch (e) {
        return unavailable(e);
      }
    }
    table.delete(sessionId);
    await transport.close();
    return { status: 200, headers: {} };
  }

  /** The request once its Origin and Host (and, with `auth`, its token) have passed: by method. */
  function route(req: HttpRequestLike): Promise<HttpReply> {
    switch (req.method) {
      case 'POST':
        return post(req);
      case 'GET':
        return get(req);
      case 'DELETE':
        return del(req);
      default:
        return Promise.resolve(notAllowed(req.method));
    }
  }

  /** With `auth`: the metadata paths, then the bearer token verified before the request is routed. */
  async function authenticated(req: HttpRequestLike, auth: AuthGate): Promise<HttpReply> {
    if (auth.isMetadataPath(req.path)) return auth.metadata(req);
    const refused = checkRequestOrigin(req, options);
    if (refused) return refusing(req, httpError(refused.status, refused.message));
    const checked = auth.authenticate(req);
    if (checked !== undefined) {
      const unauthorized = 'then' in checked ? await checked : checked;
      if (unauthorized) return refusing(req, unauthorized);
    }
    return route(req);
  }

  return {
    // Not an async function: the promise of the route is the request's own, not wrapped in another one.
    handle(req) {
      if (gate) return authenticated(req, gate);
      try {
        const refused = checkRequestOrigin(req, options);
        if (refused) return Promise.resolve(refusing(req, httpError(refused.status, refused.message)));
        return route(req);
      } catch (e) {
        return Promise.reject(e);
      }
    },
    get sessionCount() {
      return table.size;
    },
    extraPaths: gate?.metadataPaths ?? [],
    close: () => {
      for (const exchange of sessionless.inFlight) exchange.shutdown();
      sessionless.inFlight.clear();
      cluster?.close();
      return table.closeAll();
    },
  };
}
