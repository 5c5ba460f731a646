import type { McpServer } from '../../server.js';
import { checkInstanceId } from '../cluster/link.js';
import { AuthGate } from '../core/auth-gate.js';
import { BodyReader, DEFAULT_BODY_TIMEOUT_MS } from '../core/body-deadline.js';
import { addressReader } from '../core/client-address.js';
import { deferredRoutes } from '../core/deferred.js';
import { LoadShedder } from '../core/overload.js';
import type { EndpointParts } from './endpoint.js';
import type { StreamableHttpHandler, StreamableHttpOptions } from './endpoint-options.js';
import { SessionTable } from './session-table.js';

export type { StreamableHttpHandler, StreamableHttpOptions } from './endpoint-options.js';

/**
 * Creates the Streamable HTTP core for `server`: POST, GET and DELETE on one endpoint.
 *
 * The options are checked here, as the endpoint is made; its request path (endpoint.ts) is imported now, in the
 * background (`deferredRoutes`): requests arriving before it is loaded wait for it, in order.
 */
export function createStreamableHttpHandler(
  server: McpServer,
  options: StreamableHttpOptions = {},
): StreamableHttpHandler {
  server.checkOptions();
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const idleTimeoutMs = options.sessionIdleTimeoutMs ?? 30 * 60_000;
  const table = new SessionTable({ maxSessions: options.maxSessions ?? 10_000, idleTimeoutMs });
  if (options.cluster !== undefined && options.sessions !== false)
    checkInstanceId(options.cluster.instanceId);
  const gate =
    options.auth === undefined ? undefined : new AuthGate(options.auth, (e) => server.error(e, undefined));
  const parts: EndpointParts = {
    table,
    gate,
    shedder: options.overload === false ? undefined : new LoadShedder(options.overload),
    addressOf: addressReader(options.clientAddress),
    bodies: new BodyReader(maxBody, options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS),
    maxBody,
    idleTimeoutMs,
  };
  const { handle, close } = deferredRoutes(
    () => import('./endpoint.js').then((m) => m.openEndpoint(server, options, parts)),
    (e) => server.error(e, undefined),
  );
  return {
    handle,
    get sessionCount() {
      return table.size;
    },
    extraPaths: gate?.metadataPaths ?? [],
    close,
  };
}
