// `mcpkit/testing`: helpers for tests and embedding; runtime-neutral.

import { Client } from './client/client.js';
import type { ClientOptions } from './client/options.js';
import type { ServerSession } from './server/dispatch/session.js';
import type { McpServer } from './server/server.js';
import type { Implementation } from './spec/types.js';
import { createLinkedTransports } from './transport/memory.js';

export { createLinkedTransports } from './transport/memory.js';

/**
 * Connects a new client to `server` over an in-memory pair; returns both ends. The client uses the
 * stateful era (initialize, a session) unless `options.era` or `options.protocolVersion` says otherwise.
 */
export async function connectInMemory(
  server: McpServer,
  options: ClientOptions = {},
  info: Implementation = { name: 'mcpkit-test-client', version: '0.0.0' },
): Promise<{ client: Client; session: ServerSession }> {
  const [clientSide, serverSide] = createLinkedTransports();
  const session = await server.connect(serverSide);
  const pinned = options.era !== undefined || options.protocolVersion !== undefined;
  const client = new Client(info, pinned ? options : { ...options, era: 'stateful' });
  await client.connect(clientSide);
  return { client, session };
}
