import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import type { EventStore } from '../../../store/event-store.js';
import type { ClusterLink } from '../cluster/link.js';

/** How a POST carrying requests is answered: JSON, SSE, or JSON unless something must stream first. */
export type ResponseMode = 'json' | 'sse' | 'auto';

/** Stream settings shared by all sessions of a handler. */
export interface StreamSettings {
  responseMode: ResponseMode;
  retryMs: number;
  keepAliveMs: number;
  eventStore: EventStore | undefined;
  /**
   * Whether streams carry event ids and a priming event: only where an event store can replay them (sessions with a
   * store); a stream without one, or of the stateless revision, cannot be resumed.
   */
  resumable: boolean;
  /** The HTTP status of a JSON reply carrying one message (stateless-revision errors map to 4xx). */
  statusOf?: (message: JsonRpcMessage) => number;
  /** Set when the endpoint is one instance of a cluster (its `eventStore` is then the link's shared store). */
  cluster?: ClusterLink;
}
