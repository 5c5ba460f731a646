import type { MessageContext } from '../../../protocol/transport.js';
import type { ServerSession } from '../../dispatch/session.js';
import type { McpServer } from '../../server.js';
import type { HttpRequestLike } from '../core/http.js';
import { HttpSessionTransport } from './session-transport.js';
import type { StreamSettings } from './stream-settings.js';

/**
 * Connects a new HTTP transport to `server`: a stateful session when `sessionId` is given (its transport
 * then knows the session, for the revision's batch and priming rules), else a `subscriptions/listen` stream, which
 * lives on after its request (every other request without a session is an `Exchange`, with no transport).
 */
export async function connectTransport(
  server: McpServer,
  sessionId: string | undefined,
  settings: StreamSettings,
): Promise<Connected> {
  const transport = new HttpSessionTransport(sessionId ?? '', sessionId, settings);
  const session = await server.connect(transport);
  if (sessionId !== undefined) transport.negotiated = session;
  return new Connected(transport, session);
}

/**
 * A transport and the session on it. A class, not an object literal: it points to the request's whole graph, and
 * V8 may pretenure a literal's allocation site (see `RequestSetup` in server/dispatch/setup.ts).
 */
export class Connected {
  constructor(
    readonly transport: HttpSessionTransport,
    readonly session: ServerSession,
  ) {}
}

/**
 * The message context of a request: its transport-level authentication, if any, and the client's address
 * (`address`: as the endpoint reads it; default the connection's peer).
 */
export function contextOf(req: HttpRequestLike, address = req.remoteAddress): MessageContext {
  const context: MessageContext = {};
  if (req.authInfo !== undefined) context.authInfo = req.authInfo;
  if (address !== undefined) context.remoteAddress = address;
  return context;
}
