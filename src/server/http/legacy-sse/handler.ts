import type { McpServer } from '../../server.js';
import { checkInstanceId } from '../cluster/link.js';
import { AuthGate } from '../core/auth-gate.js';
import { BodyReader, DEFAULT_BODY_TIMEOUT_MS } from '../core/body-deadline.js';
import { deferredRoutes } from '../core/deferred.js';
import type { SseLegacyHandler, SseLegacyOptions } from './options.js';
import type { LegacyParts } from './routes.js';

export type { SseLegacyHandler, SseLegacyOptions } from './options.js';

/**
 * Creates the legacy HTTP+SSE endpoints: GET opens a session stream, POST `messagesPath?sessionId=` feeds it. The
 * options are checked here; the request path (routes.ts) is imported now, in the background (core/deferred.ts).
 */
export function createSseLegacyHandler(server: McpServer, options: SseLegacyOptions = {}): SseLegacyHandler {
  server.checkOptions();
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const parts: LegacyParts = {
    bodies: new BodyReader(maxBody, options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS),
    sessions: new Map(),
    gate: undefined,
  };
  if (options.cluster !== undefined) checkInstanceId(options.cluster.instanceId);
  if (options.auth !== undefined) parts.gate = new AuthGate(options.auth, (e) => server.error(e, undefined));
  const { handle, close } = deferredRoutes(
    () => import('./routes.js').then((m) => m.legacyRoutes(server, options, parts)),
    (e) => server.error(e, undefined),
  );
  return {
    handle,
    get sessionCount() {
      return parts.sessions.size;
    },
    extraPaths: parts.gate?.metadataPaths ?? [],
    close,
  };
}
