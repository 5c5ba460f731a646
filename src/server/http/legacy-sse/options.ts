import type { ClusterOptions } from '../../../store/cluster.js';
import type { ResourceAuthOptions } from '../core/auth-gate.js';
import type { HttpReply, HttpRequestLike } from '../core/http.js';
import type { SecurityOptions } from '../core/security.js';

/** Options of the legacy HTTP+SSE endpoint. */
export interface SseLegacyOptions extends SecurityOptions {
  /** Protect the endpoints as an OAuth 2.1 resource server (as the Streamable HTTP endpoint's `auth`). */
  auth?: ResourceAuthOptions;
  /** Path clients POST messages to (announced in the `endpoint` event). Default '/messages'. */
  messagesPath?: string;
  /** Most concurrent SSE connections. Default 1000. */
  maxSessions?: number;
  /** Largest accepted POST body in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Longest time (ms) a POST body may take to arrive; later gets 408. Default 30 000; 0 for no limit. */
  bodyTimeoutMs?: number;
  /** Interval (ms) of keep-alive comments; 0 disables. Default 15 000. */
  keepAliveMs?: number;
  /**
   * Makes this endpoint one instance of a cluster (the Streamable HTTP endpoint's `cluster`; give both endpoints of a
   * server the same object and they share one instance id): a session lives on the instance holding its GET stream,
   * its record in the shared session store, and a message POSTed to any instance is handed to that one through the
   * bus, so clients need no affinity. Default: none (one process).
   */
  cluster?: ClusterOptions;
}

/** The 2024-11-05 HTTP+SSE endpoint pair (GET stream + POST messages) for one server definition. */
export interface SseLegacyHandler {
  handle(req: HttpRequestLike): Promise<HttpReply>;
  readonly sessionCount: number;
  close(): Promise<void>;
  /** The paths of the Protected Resource Metadata when `auth` is set. */
  readonly extraPaths: readonly string[];
}
