// A raw JSON-RPC client of one revision on a server, for the per-revision fitting tests. Not a test file itself.
import type { McpServer } from '../../src/index.js';
import type { JsonObject, JsonRpcResponse } from '../../src/jsonrpc/types.js';
import { createLinkedTransports } from '../../src/transport/memory.js';
import { RawPeer } from '../protocol/helpers.js';

/**
 * Connects a raw client to `server` over a memory pair serialized like a wire (so pre-encoded cached pages are what
 * it reads), answers the server's requests with `answer`, and initializes at `revision` with `capabilities`.
 */
export async function rawSession(
  server: McpServer,
  revision: string,
  capabilities: JsonObject,
  answer: RawPeer['answer'],
): Promise<{ raw: RawPeer; init: JsonRpcResponse }> {
  const [clientSide, serverSide] = createLinkedTransports({ serialize: true });
  await server.connect(serverSide);
  const raw = new RawPeer(clientSide);
  raw.answer = answer;
  await raw.start();
  const init = await raw.request('initialize', {
    protocolVersion: revision,
    capabilities,
    clientInfo: { name: 'raw', version: '0' },
  });
  await raw.notify('notifications/initialized');
  return { raw, init };
}
