import type { Transport } from '../../../protocol/transport.js';
import { MemoryEventStore } from '../../../store/event-store.js';
import { BodyReader, DEFAULT_BODY_TIMEOUT_MS } from '../core/body-deadline.js';
import { deferredRoutes } from '../core/deferred.js';
import type { StreamableHttpHandler, StreamableHttpRelayOptions } from './endpoint-options.js';
import type { RelayParts } from './relay-routes.js';
import { SessionTable } from './session-table.js';

export type { StreamableHttpRelayOptions } from './endpoint-options.js';

/**
 * A Streamable HTTP endpoint in front of another MCP server reached through a transport: a stdio server process, a
 * remote URL, a channel of a shared one. Each session (`initialize`) opens its own upstream with `open()` and every
 * message moves both ways unchanged: requests, notifications, server requests (sampling, elicitation, roots),
 * progress, cancellation, logs. Stateless-revision requests (a protocol version in `_meta`) go to the upstream of
 * `openStateless`; an upstream that does not speak that revision answers them with an error and the client falls
 * back to `initialize`, so both eras are served as far as the upstream serves them. When a session ends its
 * upstream is closed; when the upstream ends, so does the session (the client's next request gets 404).
 *
 * @example
 * const relay = createStreamableHttpRelay(() => new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * const listener = createNodeListener({ '/mcp': relay });
 */
export function createStreamableHttpRelay(
  open: () => Transport,
  options: StreamableHttpRelayOptions = {},
): StreamableHttpHandler {
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const onerror = options.onerror ?? (() => undefined);
  const table = new SessionTable({
    maxSessions: options.maxSessions ?? 10_000,
    idleTimeoutMs: options.sessionIdleTimeoutMs ?? 30 * 60_000,
  });
  const parts: RelayParts = {
    table,
    bodies: new BodyReader(maxBody, options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS),
    maxBody,
    store: options.eventStore === false ? undefined : (options.eventStore ?? new MemoryEventStore()),
    onerror,
  };
  // The request path is imported now, in the background (core/deferred.ts).
  const { handle, close } = deferredRoutes(
    () => import('./relay-routes.js').then((m) => m.relayRoutes(open, options, parts)),
    onerror,
  );
  return {
    handle,
    get sessionCount() {
      return table.size;
    },
    extraPaths: [],
    close,
  };
}
