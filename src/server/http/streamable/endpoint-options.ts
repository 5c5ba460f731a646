import type { Transport } from '../../../protocol/transport.js';
import type { ClusterOptions } from '../../../store/cluster.js';
import type { EventStore } from '../../../store/event-store.js';
import type { ResourceAuthOptions } from '../core/auth-gate.js';
import type { ClientAddressOptions } from '../core/client-address.js';
import type { HttpReply, HttpRequestLike } from '../core/http.js';
import type { OverloadOptions } from '../core/overload.js';
import type { SecurityOptions } from '../core/security.js';
import type { ResponseMode } from './stream-settings.js';

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

/** Options of {@link createStreamableHttpRelay}: the endpoint's limits and checks, and where problems go. */
export interface StreamableHttpRelayOptions
  extends Pick<
    StreamableHttpOptions,
    | 'allowedOrigins'
    | 'allowedHosts'
    | 'maxBodyBytes'
    | 'bodyTimeoutMs'
    | 'maxSessions'
    | 'sessionIdleTimeoutMs'
    | 'eventStore'
    | 'retryMs'
    | 'keepAliveMs'
  > {
  /**
   * The upstream of stateless-revision (2026-07-28) requests, a new channel per request. Default: channels of one
   * upstream opened on the first such request ({@link shareTransport}), opened again once it closes.
   */
  openStateless?: () => Transport;
  /** Problems that end no session: an upstream that sends garbage, a message no stream could carry. */
  onerror?: (error: Error) => void;
}
