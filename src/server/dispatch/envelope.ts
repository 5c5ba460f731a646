import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { LOG_LEVELS } from '../../spec/log-levels.js';
import { META, MODERN_REVISIONS } from '../../spec/modern.js';
import { policyFor, type RevisionPolicy } from '../../spec/revision.js';
import type { ClientCapabilities, Implementation } from '../../spec/types.js';
import { STATEFUL_REVISIONS } from '../../spec/versions.js';

/** The per-request envelope of a stateless (2026-07-28) request. */
export interface ModernEnvelope {
  protocolVersion: string;
  /** The policy of that revision (a shared constant). */
  policy: RevisionPolicy;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  /** Index in LOG_LEVELS, or undefined when the request asked for no log messages. */
  logLevel: number | undefined;
}

/** Every revision this server answers, modern first. */
export const SUPPORTED_VERSIONS: readonly string[] = [
  ...MODERN_REVISIONS,
  ...[...STATEFUL_REVISIONS].reverse(),
];

/** Reads and checks the `_meta` envelope; missing fields are -32602, an unknown version -32022. */
export function readEnvelope(params: JsonObject): ModernEnvelope {
  const meta = params._meta as JsonObject | undefined;
  if (typeof meta !== 'object' || meta === null)
    throw invalid('"_meta" with the protocol envelope is required');
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') throw invalid(`"_meta.${META.protocolVersion}" must be a string`);
  const policy = policyFor(version);
  if (policy?.era !== 'stateless') {
    throw new JsonRpcError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${version}`, {
      supported: SUPPORTED_VERSIONS,
      requested: version,
    });
  }
  const caps = meta[META.clientCapabilities];
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps)) {
    throw invalid(`"_meta.${META.clientCapabilities}" must be an object`);
  }
  const info = meta[META.clientInfo];
  const level = meta[META.logLevel];
  let logLevel: number | undefined;
  if (level !== undefined) {
    logLevel = LOG_LEVELS.indexOf(level as never);
    if (logLevel < 0) throw invalid(`"_meta.${META.logLevel}" must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return {
    protocolVersion: version,
    policy,
    clientCapabilities: caps as ClientCapabilities,
    clientInfo: typeof info === 'object' && info !== null ? (info as Implementation) : undefined,
    logLevel,
  };
}

function invalid(detail: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${detail}`);
}
