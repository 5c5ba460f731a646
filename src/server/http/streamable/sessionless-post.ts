import { JsonRpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../../jsonrpc/types.js';
import type { McpServer } from '../../server.js';
import { httpError } from '../core/errors.js';
import type { HttpReply, HttpRequestLike } from '../core/http.js';
import { connectTransport, contextOf } from './connect.js';
import { ModernExchange } from './exchange.js';
import { checkModernHeaders, paramHeaders } from './request-headers.js';
import type { StreamSettings } from './stream-settings.js';

/** Stream settings of stateless-revision requests: ordinary ones, and `subscriptions/listen` streams. */
export interface ModernSettings {
  readonly request: StreamSettings;
  readonly listen: StreamSettings;
  /** Requests whose handlers are still at work: ended by the endpoint's `close()`. */
  readonly inFlight: Set<ModernExchange>;
}

/**
 * A stateless-revision (2026-07-28) POST: headers checked against the body, answered on its own,
 * cancelled by a disconnect. A request is dispatched directly (`ModernExchange`); a notification and a
 * `subscriptions/listen` stream (which lives on after its request) go through a transport of their own.
 */
export async function postModern(
  server: McpServer,
  settings: ModernSettings,
  req: HttpRequestLike,
  message: JsonRpcRequest | JsonRpcNotification,
  address: string | undefined,
): Promise<HttpReply> {
  if ('id' in message && message.method !== 'subscriptions/listen') {
    const refused = refuseHeaders(server, req, message);
    if (refused) return refused;
    return new ModernExchange(message, req.authInfo, address, settings.request).run(
      server,
      req,
      settings.inFlight,
    );
  }
  const context = contextOf(req, address);
  const { transport } = await connectTransport(
    server,
    undefined,
    message.method === 'subscriptions/listen' ? settings.listen : settings.request,
  );
  transport.onidle = () => void transport.close();
  if (!('id' in message)) {
    const reply = await transport.post([message], false, context);
    await transport.close();
    return reply;
  }
  const refused = refuseHeaders(server, req, message);
  if (refused) {
    await transport.close();
    return refused;
  }
  const reply = await transport.post([message], false, context, req);
  // A JSON reply has usually closed its transport already (it went idle with its answer).
  if (!('sse' in reply) && !transport.closed) await transport.close();
  return reply;
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
