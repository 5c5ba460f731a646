import type { JsonRpcNotification, JsonRpcRequest } from '../../../jsonrpc/types.js';
import type { MessageContext } from '../../../protocol/transport.js';
import { principalOf } from '../../handler/auth.js';
import type { HttpRefusal } from '../../handler/middleware.js';
import type { BodyReader } from '../core/body-deadline.js';
import { httpError, missingSessionId, sessionNotFound, unavailable } from '../core/errors.js';
import type { HttpReply, HttpRequestLike } from '../core/http.js';
import { isReply, type PostBody, parseBody, refusePostHeaders } from '../core/post-body.js';
import {
  modernRequest,
  refuseModernBatch,
  refuseStatefulVersion,
  refuseUnknownVersion,
} from './era-routing.js';
import type { SessionTable } from './session-table.js';
import type { HttpSessionTransport } from './session-transport.js';

/*
 * What every Streamable HTTP endpoint (`handler.ts`, the relay of `relay.ts`) does with a request before its own work,
 * written once: a POST read and routed by era, the session a POST, GET or DELETE names looked up.
 */

/** A POST's body: its headers checked (406, 415, 413), then read within the size and time limits (413, 408). */
export function readPost(
  req: HttpRequestLike,
  maxBody: number,
  bodies: BodyReader,
): Promise<string | HttpReply> {
  const refused = refusePostHeaders(req, maxBody);
  return refused ? Promise.resolve(refused) : bodies.read(req);
}

/**
 * A POST routed by era: the stateless revision's one message (`modern`), or the body of a stateful-era POST with its
 * header's version. A class, not a literal: it points to the request's messages (see `RequestSetup` in
 * server/dispatch/setup.ts on why).
 */
export class RoutedPost {
  constructor(
    readonly body: PostBody,
    readonly modern: JsonRpcRequest | JsonRpcNotification | undefined,
    readonly version: string | undefined,
  ) {}
}

/**
 * A POST's text parsed and routed by era: the stateless revision's one message (a batch of it is refused), or a
 * stateful-era body whose version header is one this server speaks. `refuse` (the OAuth gate's scopes) sees the parsed
 * body first; a refusal is the reply.
 */
export function routePost(
  req: HttpRequestLike,
  text: string,
  refuse?: (req: HttpRequestLike, body: PostBody) => HttpReply | undefined,
): RoutedPost | HttpReply {
  const body = parseBody(text);
  if (isReply(body)) return body;
  const refused = refuse?.(req, body);
  if (refused) return refused;
  const modern = modernRequest(body);
  if (modern) return body.batch ? refuseModernBatch() : new RoutedPost(body, modern, undefined);
  const version = req.header('mcp-protocol-version');
  return refuseStatefulVersion(version, body) ?? new RoutedPost(body, undefined, version);
}

/** True for a reply (a refusal), false for what the request was routed to. */
export function isRefusal(routed: object): routed is HttpReply {
  return 'status' in routed;
}

/** What a stateful-era POST with sessions on needs of its endpoint: the session table and how sessions begin. */
export interface SessionSide {
  readonly table: SessionTable;
  /** `initialize`: a new session answers it (its id goes out in the reply). */
  open(body: PostBody, context: MessageContext): Promise<HttpReply>;
  /** A session not in the table (a cluster reads it from its store once); none by default. */
  load?(sessionId: string): Promise<HttpSessionTransport | undefined>;
  /** The session of this POST was found in the table (a cluster pushes its expiry back everywhere). */
  used?(sessionId: string): void;
  /** Posts the messages to the session (a cluster stores a changed record before the reply); by default `post`. */
  post?(
    sessionId: string,
    transport: HttpSessionTransport,
    body: PostBody,
    context: MessageContext,
  ): HttpReply | Promise<HttpReply>;
}

/**
 * A stateful-era POST with sessions on: `initialize` opens a session; anything else goes to the session its
 * `Mcp-Session-Id` names, looked up once, held by the principal of the request (another principal's session answers
 * exactly like an unknown one: no session hijack with one's own token).
 */
export function postToSession(
  side: SessionSide,
  req: HttpRequestLike,
  body: PostBody,
  context: MessageContext,
): HttpReply | Promise<HttpReply> {
  const sessionId = req.header('mcp-session-id');
  // The request's one lookup (it marks the session used, or closes it when expired).
  const transport = sessionId === undefined ? undefined : side.table.get(sessionId);
  if (body.init) {
    if (transport) return httpError(400, 'Bad Request: this session is already initialized');
    return side.open(body, context);
  }
  if (sessionId === undefined) return missingSessionId();
  if (transport === undefined && side.load !== undefined)
    return postLoaded(side, side.load(sessionId), sessionId, body, context);
  side.used?.(sessionId);
  return postFound(side, sessionId, transport, body, context);
}

/** A session not in the table (cluster): read from its store once (503 when it cannot be), then posted to. */
async function postLoaded(
  side: SessionSide,
  loading: Promise<HttpSessionTransport | undefined>,
  sessionId: string,
  body: PostBody,
  context: MessageContext,
): Promise<HttpReply> {
  let transport: HttpSessionTransport | undefined;
  try {
    transport = await loading;
  } catch (e) {
    return unavailable(e);
  }
  return postFound(side, sessionId, transport, body, context);
}

/** The POST goes to the session found, when the request's principal holds it (else 404, as an unknown one). */
function postFound(
  side: SessionSide,
  sessionId: string,
  transport: HttpSessionTransport | undefined,
  body: PostBody,
  context: MessageContext,
): HttpReply | Promise<HttpReply> {
  if (!transport || transport.owner !== principalOf(context.authInfo)) return sessionNotFound();
  const refused = refuseBatch(body, transport);
  if (refused) return refused;
  context.sessionId = sessionId;
  if (side.post) return side.post(sessionId, transport, body, context);
  return transport.post(body.messages, body.batch, context);
}

/** 400 for a batch on a session whose revision has none (only 2025-03-26 has batches). */
export function refuseBatch(
  body: PostBody,
  session: {
    readonly negotiated: { readonly policy: { readonly batching: boolean } | undefined } | undefined;
  },
): HttpReply | undefined {
  if (!body.batch || session.negotiated?.policy?.batching === true) return undefined;
  return httpError(
    400,
    'Invalid Request: JSON-RPC batches are only accepted for protocol revision 2025-03-26',
  );
}

/** How an endpoint finds the session an id names: its table, or (cluster) its store. */
export type FindSession = (
  sessionId: string,
) => HttpSessionTransport | undefined | Promise<HttpSessionTransport | undefined>;

/**
 * The session a GET or DELETE names: its `Mcp-Session-Id` present (400), the session found by `find` (the table, or a
 * cluster's store: 503 when it cannot be read) and held by the principal of the request (404 alike for an unknown
 * session and another principal's).
 */
export async function namedSession(
  req: HttpRequestLike,
  find: FindSession,
): Promise<HttpSessionTransport | HttpReply> {
  const sessionId = req.header('mcp-session-id');
  if (sessionId === undefined) return missingSessionId();
  let transport: HttpSessionTransport | undefined;
  try {
    transport = await find(sessionId);
  } catch (e) {
    return unavailable(e);
  }
  if (!transport || transport.owner !== principalOf(req.authInfo)) return sessionNotFound();
  return transport;
}

/**
 * A stateful-era GET: its checks ({@link refuseGet}), the session it names ({@link namedSession}), then that session's
 * standalone stream, or the resumption of a stream after its `Last-Event-ID`.
 */
export async function getSessionStream(req: HttpRequestLike, find: FindSession): Promise<HttpReply> {
  const refused = refuseGet(req);
  if (refused) return refused;
  const transport = await namedSession(req, find);
  if (isRefusal(transport)) return transport;
  return transport.get(req.header('last-event-id'));
}

/**
 * The checks of a GET before its session is looked up: a version header naming a revision this server does not speak
 * (400), an `Accept` without server-sent events (406).
 */
function refuseGet(req: HttpRequestLike): HttpReply | undefined {
  const bad = refuseUnknownVersion(req);
  if (bad) return bad;
  if ((req.header('accept') ?? '').includes('text/event-stream')) return undefined;
  return httpError(406, 'Not Acceptable: GET requires Accept: text/event-stream');
}

/** What the server's `refused` hook is told of a reply refusing `req` (its body a JSON-RPC error, as `httpError`'s). */
export function refusalOf(
  req: HttpRequestLike,
  reply: HttpReply,
  remoteAddress: string | undefined,
): HttpRefusal {
  let error: { code?: unknown; message?: unknown } | undefined;
  try {
    error = 'body' in reply && typeof reply.body === 'string' ? JSON.parse(reply.body).error : undefined;
  } catch {
    // Not a JSON-RPC body: the status alone tells.
  }
  return {
    status: reply.status,
    code: typeof error?.code === 'number' ? error.code : undefined,
    message: typeof error?.message === 'string' ? error.message : `HTTP ${reply.status}`,
    remoteAddress,
    protocolVersion: req.header('mcp-protocol-version'),
  };
}
