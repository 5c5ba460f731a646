import { randomBase64url } from '../../../framing/base64url.js';
import type { MessageContext } from '../../../protocol/transport.js';
import { principalOf } from '../../handler/auth.js';
import type { McpServer } from '../../server.js';
import { httpError, unavailable } from '../core/errors.js';
import type { HttpReply } from '../core/http.js';
import type { PostBody } from '../core/post-body.js';
import type { ClusteredSessions } from './clustered-sessions.js';
import { connectTransport } from './connect.js';
import type { SessionSide } from './prelude.js';
import type { SessionTable } from './session-table.js';
import type { HttpSessionTransport } from './session-transport.js';
import type { StreamSettings } from './stream-settings.js';

/**
 * The sessions of a Streamable HTTP endpoint of `server`, for `postToSession` (prelude.ts): `initialize` opens one in
 * `table`; with a `cluster`, a session first seen here is read from its store once, later requests find it in the
 * table, and a POST that changes what is stored of it (log level, subscriptions) stores it again before the reply.
 */
export function serverSessions(
  server: McpServer,
  settings: StreamSettings,
  table: SessionTable,
  cluster: ClusteredSessions | undefined,
): SessionSide {
  const open = (body: PostBody, context: MessageContext) =>
    openSession(server, settings, table, body, context, cluster);
  if (cluster === undefined) return { table, open };
  return {
    table,
    open,
    load: (sessionId) => cluster.load(sessionId),
    used: (sessionId) => cluster.used(sessionId),
    post: (sessionId, transport, body, context) =>
      cluster.changes(body.messages)
        ? postRecorded(cluster, sessionId, transport, body, context)
        : transport.post(body.messages, body.batch, context),
  };
}

/** A POST that changes what is stored of the session: the record is stored again before the reply goes out. */
async function postRecorded(
  cluster: ClusteredSessions,
  sessionId: string,
  transport: HttpSessionTransport,
  body: PostBody,
  context: MessageContext,
): Promise<HttpReply> {
  const reply = await transport.post(body.messages, body.batch, context);
  try {
    await cluster.save(sessionId, transport);
  } catch (e) {
    return unavailable(e);
  }
  return reply;
}

/** Answers `initialize` in a new session; when the handshake fails the session is closed and no id handed out. */
async function openSession(
  server: McpServer,
  settings: StreamSettings,
  table: SessionTable,
  body: PostBody,
  context: MessageContext,
  cluster: ClusteredSessions | undefined,
): Promise<HttpReply> {
  const id = newSessionId();
  const { transport, session } = await connectTransport(server, id, settings);
  if (!table.add(id, transport)) {
    await transport.close();
    return httpError(503, 'Service Unavailable: too many active sessions');
  }
  transport.onclosed = () => table.delete(id);
  transport.owner = principalOf(context.authInfo);
  context.sessionId = id;
  const reply = await transport.post(body.messages, false, context);
  if (!session.initialized) {
    // The handshake failed: no session was created, so no id is handed out.
    await transport.close();
    const { 'mcp-session-id': _dropped, ...headers } = reply.headers;
    return { ...reply, headers };
  }
  if (cluster !== undefined) {
    try {
      await cluster.created(id, transport, session);
    } catch (e) {
      // A session the other instances cannot find would fail on the next request: none is handed out.
      await transport.close();
      return unavailable(e);
    }
  }
  return reply;
}

/** A cryptographically random session id of visible ASCII (base64url, 128 bits). */
export function newSessionId(): string {
  return randomBase64url(16);
}
