import { ErrorCode } from '../../../jsonrpc/errors.js';
import { parseMessage } from '../../../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import type { MessageContext } from '../../../protocol/transport.js';
import type { ClusterOptions } from '../../../store/cluster.js';
import { principalOf } from '../../handler/auth.js';
import type { McpServer } from '../../server.js';
import { AuthGate, type ResourceAuthOptions } from '../core/auth-gate.js';
import { BodyReader, DEFAULT_BODY_TIMEOUT_MS } from '../core/body-deadline.js';
import { httpError, SESSION_NOT_FOUND, unavailable } from '../core/errors.js';
import { type HttpReply, type HttpRequestLike, SSE_HEADERS } from '../core/http.js';
import { refuseNonJson } from '../core/post-body.js';
import { checkRequestOrigin, type SecurityOptions } from '../core/security.js';
import { newSessionId } from '../streamable/session-post.js';
import { ClusteredLegacySessions } from './cluster.js';
import { LegacySseTransport } from './transport.js';

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

const ACCEPTED: HttpReply = { status: 202, headers: { 'content-type': 'text/plain' }, body: 'Accepted' };
const notFound = () => httpError(404, 'Session not found', SESSION_NOT_FOUND);

/** Creates the legacy HTTP+SSE endpoints: GET opens a session stream, POST `messagesPath?sessionId=` feeds it. */
export function createSseLegacyHandler(server: McpServer, options: SseLegacyOptions = {}): SseLegacyHandler {
  server.checkOptions();
  const messagesPath = options.messagesPath ?? '/messages';
  const maxSessions = options.maxSessions ?? 1000;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const bodies = new BodyReader(maxBody, options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);
  const sessions = new Map<string, LegacySseTransport>();
  const cluster =
    options.cluster === undefined
      ? undefined
      : new ClusteredLegacySessions(server, options.cluster, sessions);
  // Which instance answered (as the Streamable HTTP endpoint says it): for operators and tests of a cluster.
  const instanceHeader: Record<string, string> =
    cluster === undefined ? {} : { 'mcpkit-instance': cluster.node.instance };
  const accepted: HttpReply =
    cluster === undefined ? ACCEPTED : { ...ACCEPTED, headers: { ...ACCEPTED.headers, ...instanceHeader } };

  const gate =
    options.auth === undefined ? undefined : new AuthGate(options.auth, (e) => server.error(e, undefined));

  async function open(req: HttpRequestLike): Promise<HttpReply> {
    if (sessions.size >= maxSessions) return httpError(503, 'Service Unavailable: too many SSE connections');
    const id = newSessionId();
    const transport = new LegacySseTransport(id);
    transport.owner = principalOf(req.authInfo);
    transport.onclosed = () => {
      sessions.delete(id);
      cluster?.closed(id);
    };
    sessions.set(id, transport);
    const session = await server.connect(transport);
    if (cluster !== undefined) {
      // Stored before the client learns where to POST: its first message may reach any instance.
      try {
        await cluster.opened(transport, session);
      } catch (e) {
        await transport.close();
        return unavailable(e);
      }
    }
    return {
      status: 200,
      headers: { ...SSE_HEADERS, ...instanceHeader },
      sse: (sink) =>
        transport.attach(
          sink,
          `${messagesPath}?sessionId=${encodeURIComponent(id)}`,
          options.keepAliveMs ?? 15_000,
        ),
    };
  }

  /** The one message of a POST body, or the reply refusing it. */
  async function readMessage(req: HttpRequestLike): Promise<JsonRpcMessage | HttpReply> {
    const text = await bodies.read(req);
    if (typeof text !== 'string') return text;
    const parsed = parseMessage(text);
    if (parsed.kind !== 'message') {
      const error =
        parsed.kind === 'invalid'
          ? parsed.error.error
          : { code: ErrorCode.InvalidRequest, message: 'Invalid Request: batches are not supported' };
      return httpError(400, error.message, error.code);
    }
    if (gate) {
      const forbidden = gate.refuseScopes(req, [parsed.message], (m) => server.scopesNeeded(m));
      if (forbidden) return forbidden;
    }
    return parsed.message;
  }

  async function post(req: HttpRequestLike): Promise<HttpReply> {
    const notJson = refuseNonJson(req);
    if (notJson) return notJson;
    const id = req.query.get('sessionId');
    if (id === null) return notFound();
    const transport = sessions.get(id);
    if (transport === undefined && cluster !== undefined) return postElsewhere(req, cluster, id);
    // Another principal's session answers exactly like an unknown one.
    if (!transport || transport.owner !== principalOf(req.authInfo)) return notFound();
    const message = await readMessage(req);
    if (!('jsonrpc' in message)) return message;
    const context: MessageContext = { sessionId: transport.sessionId };
    if (req.authInfo !== undefined) context.authInfo = req.authInfo;
    transport.deliver(message, context);
    return accepted;
  }

  /** Cluster: a POST for a session whose stream another instance holds is handed there, and answered once taken. */
  async function postElsewhere(
    req: HttpRequestLike,
    cluster: ClusteredLegacySessions,
    id: string,
  ): Promise<HttpReply> {
    let route: Awaited<ReturnType<ClusteredLegacySessions['route']>>;
    try {
      route = await cluster.route(id);
    } catch (e) {
      return unavailable(e);
    }
    if (route === undefined || route.owner !== principalOf(req.authInfo)) return notFound();
    const message = await readMessage(req);
    if (!('jsonrpc' in message)) return message;
    let outcome: Awaited<ReturnType<ClusteredLegacySessions['handOff']>>;
    try {
      outcome = await cluster.handOff(id, route, message, req.authInfo);
    } catch (e) {
      return unavailable(e);
    }
    switch (outcome) {
      case 'accepted':
        return accepted;
      case 'refused':
      case 'gone':
        // The stream is gone with its instance, or closed: the client opens a new session.
        return notFound();
      case 'unanswered':
        return httpError(
          503,
          'Service Unavailable: the instance holding this session did not take the message in time',
          ErrorCode.InternalError,
        );
    }
  }

  return {
    async handle(req) {
      if (gate?.isMetadataPath(req.path)) return gate.metadata(req);
      const refused = checkRequestOrigin(req, options);
      if (refused) return httpError(refused.status, refused.message);
      if (gate) {
        const checked = gate.authenticate(req);
        if (checked !== undefined) {
          const unauthorized = 'then' in checked ? await checked : checked;
          if (unauthorized) return unauthorized;
        }
      }
      if (req.method === 'GET' && req.path !== messagesPath) return open(req);
      if (req.method === 'POST' && req.path === messagesPath) return post(req);
      return httpError(405, `Method Not Allowed: ${req.method}`);
    },
    get sessionCount() {
      return sessions.size;
    },
    extraPaths: gate?.metadataPaths ?? [],
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      await cluster?.close();
    },
  };
}
