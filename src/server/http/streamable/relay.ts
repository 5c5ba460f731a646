import { ErrorCode } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import type { MessageContext, Transport } from '../../../protocol/transport.js';
import { isModernRevision } from '../../../spec/modern.js';
import { MemoryEventStore } from '../../../store/event-store.js';
import { type SharedTransport, shareTransport } from '../../../transport/share.js';
import { principalOf } from '../../handler/auth.js';
import type { RefusalHook } from '../../handler/middleware.js';
import { BodyReader, DEFAULT_BODY_TIMEOUT_MS } from '../core/body-deadline.js';
import { httpError } from '../core/errors.js';
import type { HttpReply, HttpRequestLike } from '../core/http.js';
import { checkRequestOrigin } from '../core/security.js';
import { contextOf } from './connect.js';
import { refuseUnknownVersion } from './era-routing.js';
import type { StreamableHttpHandler, StreamableHttpOptions } from './handler.js';
import {
  getSessionStream,
  isRefusal,
  namedSession,
  postToSession,
  readPost,
  refusalOf,
  routePost,
  type SessionSide,
} from './prelude.js';
import { RelayLink } from './relay-link.js';
import { statusOfError } from './request-headers.js';
import { newSessionId } from './session-post.js';
import { SessionTable } from './session-table.js';
import { HttpSessionTransport } from './session-transport.js';
import type { StreamSettings } from './stream-settings.js';

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
  /**
   * Sees each HTTP request the relay refuses before any of its messages goes upstream (an Origin or Host not allowed,
   * a wrong `Content-Type` or `Accept`, a body too large, too slow or not JSON-RPC), as a server's `refused` hook
   * does (`McpServer.observe`); `refusalSpans()` of `mcpkit/otel` traces them. Costs nothing when absent.
   */
  refused?: RefusalHook;
}

/**
 * A Streamable HTTP endpoint in front of another MCP server reached through a transport: a stdio server process, a
 * remote URL, a channel of a shared one. Each session (`initialize`) opens its own upstream with `open()` and every
 * message moves both ways unchanged: requests, notifications, server requests (sampling, elicitation, roots),
 * progress, cancellation, logs. Stateless-revision requests (a protocol version in `_meta`) go to the upstream of
 * `openStateless`; an upstream that does not speak that revision answers them with an error and the client falls
 * back to `initialize`, so both eras are served as far as the upstream serves them. When a session ends its
 * upstream is closed; when the upstream ends, so does the session (the client's next request gets 404).
 *
 * @example
 * const relay = createStreamableHttpRelay(() => new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * const listener = createNodeListener({ '/mcp': relay });
 */
export function createStreamableHttpRelay(
  open: () => Transport,
  options: StreamableHttpRelayOptions = {},
): StreamableHttpHandler {
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const onerror = options.onerror ?? (() => undefined);
  const store = options.eventStore === false ? undefined : (options.eventStore ?? new MemoryEventStore());
  const settings: StreamSettings = {
    responseMode: 'auto',
    retryMs: options.retryMs ?? 1000,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    eventStore: store,
    resumable: store !== undefined,
  };
  const request: StreamSettings = {
    ...settings,
    eventStore: undefined,
    resumable: false,
    statusOf: (m) => ('error' in m ? statusOfError(m.error.code) : 200),
  };
  const table = new SessionTable({
    maxSessions: options.maxSessions ?? 10_000,
    idleTimeoutMs: options.sessionIdleTimeoutMs ?? 30 * 60_000,
  });
  const inFlight = new Set<HttpSessionTransport>();
  const find = (sessionId: string) => table.get(sessionId);
  const bodies = new BodyReader(maxBody, options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);
  let shared: SharedTransport | undefined;
  const openStateless =
    options.openStateless ??
    (() => {
      if (shared === undefined || shared.closed) shared = shareTransport(open(), { onerror });
      return shared.channel();
    });

  const hook = options.refused;
  /** A refusal before any message went upstream, told to the `refused` hook when there is one. */
  const refusing = (req: HttpRequestLike, reply: HttpReply): HttpReply => {
    if (hook !== undefined) hook(refusalOf(req, reply, req.remoteAddress));
    return reply;
  };

  async function post(req: HttpRequestLike): Promise<HttpReply> {
    const text = await readPost(req, maxBody, bodies);
    if (typeof text !== 'string') return refusing(req, text);
    const routed = routePost(req, text);
    if (isRefusal(routed)) return refusing(req, routed);
    if (routed.modern) return relayOnce(routed.body.messages, req, request, openStateless);
    return postToSession(sessions, req, routed.body, contextOf(req));
  }

  /** Starts `link`'s upstream; a failure is reported and answered 502 (the server behind could not be `what`). */
  async function start(link: RelayLink, what: 'started' | 'reached'): Promise<HttpReply | undefined> {
    try {
      await link.start();
      return undefined;
    } catch (e) {
      onerror(e instanceof Error ? e : new Error(String(e)));
      return httpError(
        502,
        `Bad Gateway: the server behind this endpoint could not be ${what}`,
        ErrorCode.InternalError,
      );
    }
  }

  /** `initialize`: a new session with its own upstream; no id is handed out when the upstream fails. */
  async function openSession(messages: JsonRpcMessage[], context: MessageContext): Promise<HttpReply> {
    const id = newSessionId();
    const transport = new HttpSessionTransport(id, id, settings);
    const link = new RelayLink(transport, open(), onerror);
    const failed = await start(link, 'started');
    if (failed !== undefined) return failed;
    if (!table.add(id, transport)) {
      await transport.close();
      return httpError(503, 'Service Unavailable: too many active sessions');
    }
    transport.onclosed = () => table.delete(id);
    transport.owner = principalOf(context.authInfo);
    context.sessionId = id;
    const reply = await transport.post(messages, false, context);
    if (!('sse' in reply) && !link.initialized) {
      // The upstream refused the handshake: no session was created, so no id is handed out.
      await transport.close();
      const { 'mcp-session-id': _dropped, ...headers } = reply.headers;
      return { ...reply, headers };
    }
    return reply;
  }
  const sessions: SessionSide = { table, open: (body, context) => openSession(body.messages, context) };

  /** A stateless-revision message: answered on its own, through a channel of its own. */
  async function relayOnce(
    messages: JsonRpcMessage[],
    req: HttpRequestLike,
    streams: StreamSettings,
    upstream: () => Transport,
  ): Promise<HttpReply> {
    const transport = new HttpSessionTransport('', undefined, streams);
    const link = new RelayLink(transport, upstream(), onerror);
    const failed = await start(link, 'reached');
    if (failed !== undefined) return failed;
    inFlight.add(transport);
    transport.onclosed = () => inFlight.delete(transport);
    transport.onidle = () => void transport.close();
    const reply = await transport.post(messages, false, contextOf(req), req);
    if (!('sse' in reply) && !transport.closed) await transport.close();
    return reply;
  }

  async function get(req: HttpRequestLike): Promise<HttpReply> {
    if (isModernRevision(req.header('mcp-protocol-version')))
      return httpError(
        405,
        'Method Not Allowed: this endpoint has no GET stream',
        ErrorCode.InvalidRequest,
        null,
        {
          allow: 'POST, GET, DELETE',
        },
      );
    return getSessionStream(req, find);
  }

  async function del(req: HttpRequestLike): Promise<HttpReply> {
    const bad = refuseUnknownVersion(req);
    if (bad) return bad;
    const transport = await namedSession(req, find);
    if (isRefusal(transport)) return transport;
    table.delete(transport.sessionId as string);
    await transport.close();
    return { status: 200, headers: {} };
  }

  return {
    async handle(req) {
      const refused = checkRequestOrigin(req, options);
      if (refused) return refusing(req, httpError(refused.status, refused.message));
      switch (req.method) {
        case 'POST':
          return post(req);
        case 'GET':
          return get(req);
        case 'DELETE':
          return del(req);
        default:
          return httpError(405, `Method Not Allowed: ${req.method}`, ErrorCode.InvalidRequest, null, {
            allow: 'POST, GET, DELETE',
          });
      }
    },
    get sessionCount() {
      return table.size;
    },
    extraPaths: [],
    async close() {
      await Promise.all([...inFlight].map((t) => t.close()));
      await table.closeAll();
      await shared?.close();
    },
  };
}
