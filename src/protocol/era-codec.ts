import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';

/**
 * What differs between protocol eras, in one place: handlers never branch on the revision.
 * The stateful codec covers 2024-11-05 … 2025-11-25; the 2026-07-28 codec joins it later.
 */
export interface EraCodec {
  /** The era's name, for diagnostics. */
  readonly era: 'stateful' | 'stateless';
  /** The error for a resource URI that does not exist. */
  resourceNotFound(uri: string): JsonRpcError;
}

/** The codec of the stateful revisions: resource-not-found is -32002 with the URI in `data`. */
export const statefulCodec: EraCodec = {
  era: 'stateful',
  resourceNotFound: (uri) =>
    new JsonRpcError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri }),
};

/** The codec of the stateless revision (2026-07-28): resource-not-found is -32602 with the URI in `data`. */
export const statelessCodec: EraCodec = {
  era: 'stateless',
  resourceNotFound: (uri) => new JsonRpcError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri }),
};
