import { JsonRpcError } from '../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../jsonrpc/types.js';
import type { McpServer } from '../../server/server.js';
import { connectTransport, contextOf } from './connect.js';
import { httpError } from './errors.js';
import type { HttpReply, HttpRequestLike } from './exchange.js';
import { checkModernHeaders, paramHeaders } from './modern-headers.js';
import type { StreamSettings } from './session-transport.js';

/** Stream settings of stateless-revision requests: ordinary ones, and `subscriptions/listen` streams. */
export interface ModernSettings {
  readonly request: StreamSettings;
  readonly listen: StreamSettings;
}

/**
 * A stateless-revision (2026-07-28) POST: headers checked against the body, answered on its own,
 * cancelled by a disconnect.
 */
export async function postModern(
  server: McpServer,
  settings: ModernSettings,
  req: HttpRequestLike,
  message: JsonRpcRequest | JsonRpcNotification,
): Promise<HttpReply> {
  const context = contextOf(req);
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
  try {
    const name = message.method === 'tools/call' ? message.params?.name : undefined;
    const schema = typeof name === 'string' ? server.tools.get(name)?.def.input?.jsonSchema : undefined;
    checkModernHeaders(req, message, paramHeaders(schema));
  } catch (e) {
    await transport.close();
    if (e instanceof JsonRpcError) return httpError(400, e.message, e.code, message.id);
    throw e;
  }
  const reply = await transport.post([message], false, context, req);
  // A JSON reply has usually closed its transport already (it went idle with its answer).
  if (!('sse' in reply) && !transport.closed) await transport.close();
  return reply;
}
