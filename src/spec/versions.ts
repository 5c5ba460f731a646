/** The stateful protocol revisions mcpkit speaks, oldest first. */
export const STATEFUL_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

/** A stateful protocol revision. */
export type StatefulRevision = (typeof STATEFUL_REVISIONS)[number];

/** The newest stateful revision: offered when the client asks for one we do not speak. */
export const LATEST_STATEFUL_REVISION: StatefulRevision = '2025-11-25';

/** The revision a Streamable HTTP server assumes when the version header is missing. */
export const DEFAULT_HTTP_REVISION: StatefulRevision = '2025-03-26';

const known: ReadonlySet<string> = new Set(STATEFUL_REVISIONS);

/** True when `version` is a stateful revision mcpkit speaks. */
export function isStatefulRevision(version: unknown): version is StatefulRevision {
  return typeof version === 'string' && known.has(version);
}
