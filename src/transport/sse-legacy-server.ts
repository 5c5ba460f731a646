import { formatSseEvent, SSE_KEEPALIVE } from '../framing/sse.js';
import { ErrorCode, McpkitError } from '../jsonrpc/errors.js';
import { encodeMessage, parseMessage } from '../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { MessageContext, Transport, TransportReceiver } from '../protocol/transport.js';
import { principalOf } from '../server/auth.js';
import type { McpServer } from '../server/server.js';
import { AuthGate, type ResourceAuthOptions } from './auth-gate.js';
import { httpError, SESSION_NOT_FOUND } from './streamable-http/errors.js';
import {
  type HttpReply,
  type HttpRequestLike,
  SSE_HEADERS,
  type SseSink,
} from './streamable-http/exchange.js';
import { checkRequestOrigin, type SecurityOptions } from './streamable-http/security.js';
import { newSessionId } from './streamable-http/stateful-post.js';

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
  /** Interval (ms) of keep-alive comments; 0 disables. Default 15 000. */
  keepAliveMs?: number;
}

/** The 2024-11-05 HTTP+SSE endpoint pair (GET stream + POST messages) for one server definition. */
export interface SseLegacyHandler {
  handle(req: HttpRequestLike): Promise<HttpReply>;
  readonly sessionCount: number;
  close(): Promise<void>;
  /** The paths of the Protected Resource Metadata when `auth` is set. */
  readonly extraPaths: readonly string[];
}

/** One legacy connection: every server message is an SSE `message` event on its one stream. */
class LegacySseTransport implements Transport {
  readonly sessionId: string;
  /** The principal that opened the stream; only it may post to the session. */
  owner: string | undefined;
  #receiver: TransportReceiver | undefined;
  #sink: SseSink | undefined;
  #backlog: string[] = [];
  #closed = false;
  onclosed: (() => void) | undefined;

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    this.#receiver = receiver;
  }

  attach(sink: SseSink, endpoint: string, keepAliveMs: number): void {
    sink.write(formatSseEvent({ event: 'endpoint', data: endpoint }));
    for (const text of this.#backlog) sink.write(text);
    this.#backlog = [];
    this.#sink = sink;
    const timer = keepAliveMs > 0 ? setInterval(() => sink.write(SSE_KEEPALIVE), keepAliveMs) : undefined;
    (timer as { unref?: () => void } | undefined)?.unref?.();
    sink.onclose = () => {
      if (timer !== undefined) clearInterval(timer);
      void this.close();
    };
  }

  deliver(message: JsonRpcMessage, context: MessageContext): void {
    this.#receiver?.onmessage(message, context);
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#closed) throw new McpkitError('CONNECTION_CLOSED', 'The SSE connection is closed');
    const text = formatSseEvent({ event: 'message', data: encodeMessage(message) });
    if (!this.#sink) this.#backlog.push(text);
    else if (!this.#sink.write(text)) await this.close();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sink && !this.#sink.closed) this.#sink.close();
    this.onclosed?.();
    this.#receiver?.onclose();
  }
}

/** Creates the legacy HTTP+SSE endpoints: GET opens a session stream, POST `messagesPath?sessionId=` feeds it. */
export function createSseLegacyHandler(server: McpServer, options: SseLegacyOptions = {}): SseLegacyHandler {
  server.checkOptions();
  const messagesPath = options.messagesPath ?? '/messages';
  const maxSessions = options.maxSessions ?? 1000;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const sessions = new Map<string, LegacySseTransport>();

  const gate = options.auth === undefined ? undefined : new AuthGate(options.auth);

  async function open(req: HttpRequestLike): Promise<HttpReply> {
    if (sessions.size >= maxSessions) return httpError(503, 'Service Unavailable: too many SSE connections');
    const id = newSessionId();
    const transport = new LegacySseTransport(id);
    transport.owner = principalOf(req.authInfo);
    transport.onclosed = () => sessions.delete(id);
    sessions.set(id, transport);
    await server.connect(transport);
    return {
      status: 200,
      headers: { ...SSE_HEADERS },
      sse: (sink) =>
        transport.attach(
          sink,
          `${messagesPath}?sessionId=${encodeURIComponent(id)}`,
          options.keepAliveMs ?? 15_000,
        ),
    };
  }

  async function post(req: HttpRequestLike): Promise<HttpReply> {
    const id = req.query.get('sessionId');
    const transport = id === null ? undefined : sessions.get(id);
    // Another principal's session answers exactly like an unknown one.
    if (!transport || transport.owner !== principalOf(req.authInfo))
      return httpError(404, 'Session not found', SESSION_NOT_FOUND);
    const text = await req.text(maxBody);
    if (text === undefined) return httpError(413, `Payload Too Large: the body exceeds ${maxBody} bytes`);
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
    const context: MessageContext = { sessionId: transport.sessionId };
    if (req.authInfo !== undefined) context.authInfo = req.authInfo;
    transport.deliver(parsed.message, context);
    return { status: 202, headers: { 'content-type': 'text/plain' }, body: 'Accepted' };
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
    },
  };
}
