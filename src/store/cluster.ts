import type { MessageBus } from './bus.js';
import type { SessionStore } from './session-store.js';
import type { SharedEventStore } from './shared-event-store.js';

/**
 * The stores that make a Streamable HTTP endpoint one instance of a cluster: any instance then answers any request
 * of any session, behind a load balancer without affinity. In memory for endpoints of one process; `mcpkit/redis`
 * gives the distributed ones (`redisCluster(url)`).
 */
export interface ClusterOptions {
  sessions: SessionStore;
  events: SharedEventStore;
  bus: MessageBus;
  /** This instance's id (8 base64url characters). Default: random. */
  instanceId?: string;
  /** Heartbeat interval in ms (an instance silent for three is taken for dead). Default 1000. */
  heartbeatMs?: number;
}
