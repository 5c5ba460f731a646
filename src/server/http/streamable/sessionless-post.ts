import { JsonRpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../../../jsonrpc/types.js';
import { POLICIES, statefulPolicy } from '../../../spec/revision.js';
import { DEFAULT_HTTP_REVISION } from '../../../spec/versions.js';
import type { McpServer } from '../../server.js';
import { httpError } from '../core/errors.js';
import type { HttpReply, HttpRequestLike } from '../core/http.js';
import type { PostBody } from '../core/post-body.js';
import { BatchExchange } from './batch-exchange.js';
import { connectTransport, contextOf } from './connect.js';
import { deliverAlone, Exchange, type ExchangeReply } from './exchange.js';
import { refuseBatch } from './prelude.js';
import { checkModernHeaders, paramHeaders } from './request-headers.js';
import type { StreamSettings } from './stream-settings.js';

/** How POSTs without a session are answered, and those still at work. */
export interface SessionlessSettings {
  /** Stateless-revision requests: JSON-RPC errors map to HTTP statuses (`statusOfError`). */
  readonly request: StreamSettings;
  /** `subscriptions/listen` streams: SSE, whatever the response mode. */
  readonly listen: StreamSettings;
  /** Stateful-era requests on an endpoint without sessions: 200 with the error, but 429 for a rate limit. */
  readonly stateful: StreamSettings;
  /** Requests whose handlers are still at work: ended by the endpoint's `close()`. */
  readonly inFlight: Set<ExchangeReply & { shutdown(): void }>;
}

/**
 * A stateless-revision (2026-07-28) POST: headers checked against the body, answered on its own, cancelled by a
 * disconnect. A request is dispatched directly (`Exchange`), a notification delivered at once; only a
 * `subscriptions/listen` stream, which lives on after its request, goes through a transport of its own.
 */
export function postModern(
  server: McpServer,
  settings: SessionlessSettings,
  req: HttpRequestLike,
  message: JsonRpcRequest | JsonRpcNotification,
  address: string | undefined,
): HttpReply | Promise<HttpReply> {
  if (!('id' in message)) return postNotifications(server, [message]);
  const refused = refuseHeaders(server, req, message);
  if (refused) return refused;
  if (message.method !== 'subscriptions/listen') {
    return new Exchange(message, req.authInfo, address, settings.request).run(server, req, settings.inFlight);
  }
  return listen(server, settings, req, message, address);
}

/** A `subscriptions/listen` request: its stream lives on after the request, on a transport of its own. */
async function listen(
  server: McpServer,
  settings: SessionlessSettings,
  req: HttpRequestLike,
  message: JsonRpcRequest,
  address: string | undefined,
): Promise<HttpReply> {
  const { transport } = await connectTransport(server, undefined, settings.listen);
  transport.onidle = () => void transport.close();
  const reply = await transport.post([message], false, contextOf(req, address), req);
  // A JSON reply has usually closed its transport already (it went idle with its answer).
  if (!('sse' in reply) && !transport.closed) await transport.close();
  return reply;
}

/**
 * A stateful-era POST to an endpoint without sessions, answered the way a stateless-revision request is, with no
 * session, Peer or transport made for it: a request (`Exchange`) or a 2025-03-26 batch (`BatchExchange`) dispatched
 * directly in the revision its header names (`version`, else the HTTP default), as from an initialized client; its
 * notifications on its response. Notifications and responses alone are delivered at once (202).
 */
export function postStateless(
  server: McpServer,
  settings: SessionlessSettings,
  body: PostBody,
  version: string,
  req: HttpRequestLike,
  address: string | undefined,
): HttpReply | Promise<HttpReply> {
  // The version was checked by the era routing; an unknown one cannot reach here.
  const policy = statefulPolicy(version) ?? POLICIES[DEFAULT_HTTP_REVISION];
  const refused = refuseBatch(body, { negotiated: { policy } });
  if (refused) return refused;
  const request = firstRequest(body.messages);
  if (request === undefined) return postNotifications(server, body.messages);
  if (body.batch) {
    const batch = new BatchExchange(req.authInfo, address, settings.stateful, policy);
    return batch.run(server, body.messages, settings.inFlight);
  }
  const exchange = new Exchange(request, req.authInfo, address, settings.stateful, policy);
  return exchange.run(server, req, settings.inFlight);
}

/** The first request among `messages` (not a notification or a response), if any. */
function firstRequest(messages: readonly JsonRpcMessage[]): JsonRpcRequest | undefined {
  for (const m of messages) if ('method' in m && 'id' in m) return m;
  return undefined;
}

/** A POST of notifications (or responses) only, without a session: each reaches the server at once; 202. */
function postNotifications(server: McpServer, messages: readonly JsonRpcMessage[]): HttpReply {
  for (const message of messages) deliverAlone(server, message);
  return { status: 202, headers: {} };
}

/** 400 when the request's Mcp-* headers disagree with its body. */
function refuseHeaders(
  server: McpServer,
  req: HttpRequestLike,
  message: JsonRpcRequest,
): HttpReply | undefined {
  try {
    const name = message.method === 'tools/call' ? message.params?.name : undefined;
    const schema = typeof name === 'string' ? server.tools.get(name)?.def.input?.jsonSchema : undefined;
    checkModernHeaders(req, message, paramHeaders(schema));
    return undefined;
  } catch (e) {
    if (e instanceof JsonRpcError) return httpError(400, e.message, e.code, message.id);
    throw e;
  }
}
