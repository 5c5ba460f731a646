import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/types.js';
import type { SharedEventStore } from '../../../store/shared-event-store.js';

/** Length of an instance id: stream ids embed it at a fixed place, after the session's tag. */
export const INSTANCE_ID_LENGTH = 8;

/** What a session's transport needs from its cluster (the endpoint's `ClusterNode` implements it). */
export interface ClusterLink {
  /** This instance's id (`INSTANCE_ID_LENGTH`, 8, base64url characters). */
  readonly instance: string;
  readonly events: SharedEventStore;
  /** How often a follower checks that the instance writing its stream is alive, in ms. */
  readonly heartbeatMs: number;
  /** Hands a client's answer to a server request to the instance that sent the request. */
  forwardAnswer(instance: string, sessionId: string, message: JsonRpcMessage): void;
  /** Hands `notifications/cancelled` of a request this instance is not running to the one that is. */
  forwardCancel(sessionId: string, message: JsonRpcMessage): void;
  /** Whether an instance is alive. */
  isAlive(instance: string): Promise<boolean>;
}

/** The id a server request of this instance carries on the wire: `<instance>:<peer id>`, routable by any instance. */
export function wireRequestId(instance: string, id: RequestId): RequestId {
  return typeof id === 'number' ? `${instance}:${id}` : id;
}

/** The instance and peer id of a wire request id made by {@link wireRequestId}, or undefined for any other id. */
export function parseWireRequestId(id: unknown): { instance: string; id: number } | undefined {
  if (typeof id !== 'string' || id.length < INSTANCE_ID_LENGTH + 2 || id[INSTANCE_ID_LENGTH] !== ':')
    return undefined;
  const n = Number(id.slice(INSTANCE_ID_LENGTH + 1));
  return Number.isSafeInteger(n) ? { instance: id.slice(0, INSTANCE_ID_LENGTH), id: n } : undefined;
}
