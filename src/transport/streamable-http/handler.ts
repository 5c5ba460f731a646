import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import { classify } from '../../jsonrpc/parse.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../../jsonrpc/types.js';
import type { McpServer } from '../../server/server.js';
import type { ServerSession } from '../../server/session.js';
import { claimsModern, isModernRevision } from '../../spec/modern.js';
import { DEFAULT_HTTP_REVISION, isStatefulRevision } from '../../spec/versions.js';
import type { MessageContext } from '../transport.js';
import { httpError, SESSION_NOT_FOUND } from './errors.js';
import { type EventStore, MemoryEventStore } from './event-store.js';
import type { HttpReply, HttpRequestLike } from './exchange.js';
import { checkModernHeaders, paramHeaders, statusOfError } from './modern-headers.js';
import { checkRequestOrigin, type SecurityOptions } from './security.js';
import { SessionTable } from './session-table.js';
import { HttpSessionTransport, type ResponseMode, type StreamSettings } from './session-transport.js';

/** Options of a Streamable HTTP endpoint. */
export interface StreamableHttpOptions extends SecurityOptions {
  /** Stateful sessions with `Mcp-Session-Id` (default), or stateless: every POST stands alone. */
  sessions?: boolean;
  /** JSON, SSE, or JSON unless the handler streams something first ('auto', the default). */
  responseMode?: ResponseMode;
  /** Largest accepted POST body in bytes; larger gets 413. Default 4 MiB. */
  maxBodyBytes?: number;
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
}

/** A Streamable HTTP endpoint serving one server definition to many sessions. */
export interface StreamableHttpHandler {
  /** Answers one HTTP exchange (the adapters call this). */
  handle(req: HttpRequestLike): Promise<HttpReply>;
  /** Number of live sessions. */
  readonly sessionCount: number;
  /** Ends every session. */
  close(): Promise<void>;
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** Creates the Streamable HTTP core for `server`: POST, GET and DELETE on one endpoint. */
export function createStreamableHttpHandler(
  server: McpServer,
  options: StreamableHttpOptions = {},
): StreamableHttpHandler {
  const stateful = options.sessions !== false;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const store = options.eventStore === false ? undefined : (options.eventStore ?? new MemoryEventStore());
  const settings: StreamSettings = {
    responseMode: options.responseMode ?? 'auto',
    retryMs: options.retryMs ?? 1000,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    eventStore: stateful ? store : undefined,
    resumable: stateful,
  };
  const modernSettings: StreamSettings = {
    ...settings,
    eventStore: undefined,
    resumable: false,
    statusOf: (m) => ('error' in m ? statusOfError(m.error.code) : 200),
  };
  // A listen stream is nothing but notifications: it is SSE whatever the server's response mode.
  const listenSettings: StreamSettings = { ...modernSettings, responseMode: 'sse' };
  const sessions = new WeakMap<HttpSessionTransport, ServerSession>();
  const allow = [
    'POST',
    stateful && options.getStream !== false ? 'GET' : '',
    stateful && options.allowDelete !== false ? 'DELETE' : '',
  ]
    .filter(Boolean)
    .join(', ');
  const notAllowed = (what: string) =>
    httpError(405, `Method Not Allowed: ${what}`, ErrorCode.InvalidRequest, null, { allow });
  /** A present version header must name a revision this server speaks. */
  const badVersion = (req: HttpRequestLike): HttpReply | undefined => {
    const v = req.header('mcp-protocol-version');
    if (v === undefined || isStatefulRevision(v) || isModernRevision(v)) return undefined;
    return httpError(400, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(v)}`);
  };
  const table = new SessionTable({
    maxSessions: options.maxSessions ?? 10_000,
    idleTimeoutMs: options.sessionIdleTimeoutMs ?? 30 * 60_000,
  });

  async function open(
    sessionId: string | undefined,
    with_: StreamSettings = settings,
  ): Promise<{ transport: HttpSessionTransport; session: ServerSession }> {
    const transport = new HttpSessionTransport(sessionId ?? '', sessionId, with_);
    const session = await server.connect(transport);
    // Only stateful sessions are looked up again (batch checks); a per-request entry would only keep garbage alive.
    if (sessionId !== undefined) {
      sessions.set(transport, session);
      transport.negotiated = session;
    }
    return { transport, session };
  }

  async function post(req: HttpRequestLike): Promise<HttpReply> {
    const accept = req.header('accept') ?? '';
    if (
      !(accept.includes('application/json') || accept.includes('*/*')) ||
      !(accept.includes('text/event-stream') || accept.includes('*/*'))
    ) {
      return httpError(
        406,
        'Not Acceptable: the client must accept both application/json and text/event-stream',
      );
    }
    if (!JSON_TYPE.test(req.header('content-type') ?? '')) {
      return httpError(415, 'Unsupported Media Type: the body must be application/json');
    }
    const length = Number(req.header('content-length') ?? '0');
    if (length > maxBody) return httpError(413, `Payload Too Large: the body exceeds ${maxBody} bytes`);
    const text = await req.text(maxBody);
    if (text === undefined) return httpError(413, `Payload Too Large: the body exceeds ${maxBody} bytes`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return httpError(400, 'Parse error: the body is not valid JSON', ErrorCode.ParseError);
    }
    const batch = Array.isArray(value);
    const items: unknown[] = batch ? (value as unknown[]) : [value];
    if (items.length === 0) return httpError(400, 'Invalid Request: empty batch');
    const messages: JsonRpcMessage[] = [];
    for (const item of items) {
      const parsed = classify(item);
      if (parsed.kind === 'message') messages.push(parsed.message);
      else if (parsed.kind === 'invalid')
        return { ...httpError(400, parsed.error.error.message, parsed.error.error.code, parsed.error.id) };
      else return httpError(400, 'Invalid Request: nested batch');
    }
    const init = messages.find((m) => 'method' in m && m.method === 'initialize');
    if (init && messages.length > 1) return httpError(400, 'Invalid Request: initialize must be sent alone');
    const first = messages[0] as JsonRpcMessage;
    if (!init && 'method' in first && claimsModern(first.params)) {
      if (batch)
        return httpError(400, 'Invalid Request: protocol revision 2026-07-28 sends one message per POST');
      return postModern(req, first);
    }

    const version = req.header('mcp-protocol-version');
    if (!init && version !== undefined && isModernRevision(version) && !batch) {
      // The header claims the stateless revision, the body does not carry its `_meta` envelope: a malformed request.
      const id = 'id' in first && first.id !== undefined ? first.id : null;
      return httpError(
        400,
        `Invalid params: MCP-Protocol-Version ${version} needs the _meta protocol fields in the request`,
        ErrorCode.InvalidParams,
        id,
      );
    }
    if (!init && version !== undefined && !isStatefulRevision(version)) {
      return httpError(400, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)}`);
    }
    const context: MessageContext = {};
    if (req.authInfo !== undefined) context.authInfo = req.authInfo;

    if (!stateful)
      return postStateless(messages, batch, init !== undefined, version ?? DEFAULT_HTTP_REVISION, context);

    const sessionId = req.header('mcp-session-id');
    if (init) {
      if (sessionId !== undefined && table.get(sessionId)) {
        return httpError(400, 'Bad Request: this session is already initialized');
      }
      const id = newSessionId();
      const { transport, session } = await open(id);
      if (!table.add(id, transport)) {
        await transport.close();
        return httpError(503, 'Service Unavailable: too many active sessions');
      }
      transport.onclosed = () => table.delete(id);
      context.sessionId = id;
      const reply = await transport.post(messages, false, context);
      if (!session.initialized) {
        // The handshake failed: no session was created, so no id is handed out.
        await transport.close();
        const { 'mcp-session-id': _dropped, ...headers } = reply.headers;
        return { ...reply, headers };
      }
      return reply;
    }
    if (sessionId === undefined) return httpError(400, 'Bad Request: Mcp-Session-Id header is required');
    const transport = table.get(sessionId);
    if (!transport) return httpError(404, 'Session not found', SESSION_NOT_FOUND);
    if (batch && !(await batchAllowed(transport))) {
      return httpError(
        400,
        'Invalid Request: JSON-RPC batches are only accepted for protocol revision 2025-03-26',
      );
    }
    context.sessionId = sessionId;
    return transport.post(messages, batch, context);
  }

  /** A stateless-revision request: headers checked against the body, answered on its own, cancelled by a disconnect. */
  async function postModern(
    req: HttpRequestLike,
    message: JsonRpcRequest | JsonRpcNotification,
  ): Promise<HttpReply> {
    const context: MessageContext = {};
    if (req.authInfo !== undefined) context.authInfo = req.authInfo;
    const { transport } = await open(
      undefined,
      message.method === 'subscriptions/listen' ? listenSettings : modernSettings,
    );
    transport.onidle = () => void transport.close();
    if (!('id' in message)) {
      const reply = await transport.post([message], false, context);
      await transport.close();
      return reply;
    }
    try {
      const name = message.method === 'tools/call' ? message.params?.name : undefined;
      const schema = typeof name === 'string' ? server.tools.get(name)?.def.input?.jsonSchema : undefined;
      checkModernHeaders(req, message, paramHeaders(schema));
    } catch (e) {
      await transport.close();
      if (e instanceof JsonRpcError) return httpError(400, e.message, e.code, message.id);
      throw e;
    }
    const reply = await transport.post([message], false, context, req.signal);
    if (!('sse' in reply)) await transport.close();
    return reply;
  }

  async function batchAllowed(transport: HttpSessionTransport): Promise<boolean> {
    return sessions.get(transport)?.protocolVersion === '2025-03-26';
  }

  async function postStateless(
    messages: JsonRpcMessage[],
    batch: boolean,
    isInit: boolean,
    version: string,
    context: MessageContext,
  ): Promise<HttpReply> {
    if (batch && version !== '2025-03-26') {
      return httpError(
        400,
        'Invalid Request: JSON-RPC batches are only accepted for protocol revision 2025-03-26',
      );
    }
    const { transport, session } = await open(undefined);
    if (!isInit) {
      // Without sessions every request stands alone: treat it as coming from an initialized client.
      session.initialized = true;
      session.ready = true;
      session.protocolVersion = version;
    }
    // The transport ends itself once its only stream has its answer.
    transport.onidle = () => void transport.close();
    const reply = await transport.post(messages, batch, context);
    if (reply.status !== 200) await transport.close();
    return reply;
  }

  async function get(req: HttpRequestLike): Promise<HttpReply> {
    // Stateless-revision clients have no GET stream; neither does a server without sessions.
    if (!stateful || options.getStream === false || isModernRevision(req.header('mcp-protocol-version'))) {
      return notAllowed('this endpoint has no GET stream');
    }
    const bad = badVersion(req);
    if (bad) return bad;
    if (!(req.header('accept') ?? '').includes('text/event-stream')) {
      return httpError(406, 'Not Acceptable: GET requires Accept: text/event-stream');
    }
    const sessionId = req.header('mcp-session-id');
    if (sessionId === undefined) return httpError(400, 'Bad Request: Mcp-Session-Id header is required');
    const transport = table.get(sessionId);
    if (!transport) return httpError(404, 'Session not found', SESSION_NOT_FOUND);
    return transport.get(req.header('last-event-id'));
  }

  async function del(req: HttpRequestLike): Promise<HttpReply> {
    if (!stateful || options.allowDelete === false || isModernRevision(req.header('mcp-protocol-version'))) {
      return notAllowed('sessions cannot be ended by the client');
    }
    const bad = badVersion(req);
    if (bad) return bad;
    const sessionId = req.header('mcp-session-id');
    if (sessionId === undefined) return httpError(400, 'Bad Request: Mcp-Session-Id header is required');
    const transport = table.get(sessionId);
    if (!transport) return httpError(404, 'Session not found', SESSION_NOT_FOUND);
    table.delete(sessionId);
    await transport.close();
    return { status: 200, headers: {} };
  }

  return {
    async handle(req) {
      const refused = checkRequestOrigin(req, options);
      if (refused) return httpError(refused.status, refused.message);
      switch (req.method) {
        case 'POST':
          return post(req);
        case 'GET':
          return get(req);
        case 'DELETE':
          return del(req);
        default:
          return notAllowed(req.method);
      }
    },
    get sessionCount() {
      return table.size;
    },
    close: () => table.closeAll(),
  };
}

/** A cryptographically random session id of visible ASCII (base64url, 128 bits). */
export function newSessionId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '');
}
