import { ErrorCode, JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import type { Peer } from '../protocol/peer.js';
import { checkResult, initializeResult } from '../spec/checks.js';
import { isModernRevision, LATEST_MODERN_REVISION, META, MODERN_ERROR_CODES } from '../spec/modern.js';
import { POLICIES, type RevisionPolicy, statefulPolicy } from '../spec/revision.js';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '../spec/types.js';
import { LATEST_STATEFUL_REVISION, STATEFUL_REVISIONS } from '../spec/versions.js';

/** Which protocol era a client uses: chosen by probing ('auto'), or pinned. */
export type EraChoice = 'auto' | 'stateful' | 'stateless';

/** What the handshake settled. */
export type Negotiated =
  | {
      era: 'stateful';
      protocolVersion: string;
      /** The settled revision's policy. */
      policy: RevisionPolicy;
      capabilities: ServerCapabilities;
      serverInfo: Implementation;
      instructions?: string;
    }
  | {
      era: 'stateless';
      protocolVersion: string;
      policy: RevisionPolicy;
      capabilities: ServerCapabilities;
      serverInfo: Implementation | undefined;
      instructions?: string;
    };

/** Inputs of the negotiation. */
export interface NegotiationSetup {
  peer: Peer;
  era: EraChoice;
  /** The stateful revision to ask for in `initialize`. */
  statefulVersion: string;
  capabilities: ClientCapabilities;
  info: Implementation;
  /** How long a `server/discover` probe may take before the server is taken for a stateful one. */
  probeTimeoutMs: number;
  /** The era remembered for this server from an earlier connection, if any (a hint, checked again). */
  prior?: 'stateful' | 'stateless' | undefined;
  options: RequestOptions | undefined;
  /** A fresh connection to the same server, for one that closed the connection on the probe (stdio). */
  reopen?: () => Promise<Peer>;
}

/**
 * Picks the era by the rules between revisions: probe with `server/discover` (stateless); a discover
 * result or a recognised modern error means a modern server, anything else (or no answer in time)
 * means `initialize`. A pinned era skips the probe or the fallback.
 */
export async function negotiate(s: NegotiationSetup): Promise<Negotiated> {
  if (s.era === 'auto' && s.prior === 'stateful') return initializeFirst(s);
  if (s.era !== 'stateful') {
    let modern: Negotiated | undefined;
    try {
      modern = await probe(s);
    } catch (e) {
      // Some stateful servers exit on any request before `initialize` (rmcp does): start a fresh one and initialize it.
      if (!(e instanceof McpkitError && e.code === 'CONNECTION_CLOSED')) throw e;
      if (s.era === 'auto' && s.reopen)
        return initialize({ ...s, peer: await s.reopen() }, s.statefulVersion);
      throw new McpkitError(
        'CONNECTION_CLOSED',
        `The server closed the connection on the server/discover probe (some stateful servers exit on any request before initialize): connect with era 'stateful', or over a transport that can reopen (stdio can). ${e.message}`,
        { cause: e },
      );
    }
    if (modern) return modern;
    if (s.era === 'stateless') {
      throw new McpkitError(
        'UNSUPPORTED_PROTOCOL_VERSION',
        'The server does not speak the stateless revision 2026-07-28',
      );
    }
  }
  return initialize(s, s.statefulVersion);
}

/** A server remembered as stateful: `initialize` straight away, re-probing only if a modern server answers. */
async function initializeFirst(s: NegotiationSetup): Promise<Negotiated> {
  try {
    return await initialize(s, s.statefulVersion);
  } catch (e) {
    if (!(e instanceof JsonRpcError)) throw e;
    const supported = (e.data as { supported?: unknown } | undefined)?.supported;
    const modern =
      MODERN_ERROR_CODES.has(e.code) || (Array.isArray(supported) && supported.some(isModernRevision));
    if (!modern) throw e;
    // The remembered verdict is stale: this server speaks the stateless revision now.
    const found = await probe(s);
    if (found) return found;
    throw e;
  }
}

async function probe(s: NegotiationSetup): Promise<Negotiated | undefined> {
  const meta: JsonObject = {
    [META.protocolVersion]: LATEST_MODERN_REVISION,
    [META.clientCapabilities]: s.capabilities,
    [META.clientInfo]: s.info,
  };
  const options: RequestOptions = { ...s.options };
  if (s.era === 'auto') options.timeout = Math.min(s.options?.timeout ?? s.probeTimeoutMs, s.probeTimeoutMs);
  let result: JsonObject;
  try {
    result = await s.peer.request('server/discover', { _meta: meta }, options);
  } catch (e) {
    if (e instanceof JsonRpcError && MODERN_ERROR_CODES.has(e.code)) return modernRefusal(s, e);
    // Over HTTP, an authentication failure or a server error says nothing about the era: report it as it is.
    const status =
      e instanceof JsonRpcError ? (e.data as { status?: unknown } | undefined)?.status : undefined;
    if (typeof status === 'number' && (status === 401 || status === 403 || status >= 500)) throw e;
    // No answer in time, or any other error: a stateful server (unless the connection itself died).
    if (e instanceof McpkitError && e.code !== 'REQUEST_TIMEOUT') throw e;
    return undefined;
  }
  const versions = Array.isArray(result.supportedVersions) ? (result.supportedVersions as unknown[]) : [];
  if (versions.includes(LATEST_MODERN_REVISION)) {
    const meta = result._meta as JsonObject | undefined;
    const out: Negotiated = {
      era: 'stateless',
      protocolVersion: LATEST_MODERN_REVISION,
      policy: POLICIES[LATEST_MODERN_REVISION],
      capabilities: (result.capabilities ?? {}) as ServerCapabilities,
      serverInfo: meta?.[META.serverInfo] as Implementation | undefined,
    };
    if (typeof result.instructions === 'string') out.instructions = result.instructions;
    return out;
  }
  // A discover result without our modern revision: fall back to a stateful one it lists, if any.
  return undefined;
}

/** A modern server refused the probe: follow its `supported` list, never a blind fallback. */
async function modernRefusal(s: NegotiationSetup, e: JsonRpcError): Promise<Negotiated> {
  if (e.code !== ErrorCode.UnsupportedProtocolVersion) throw e;
  const supported = ((e.data as { supported?: unknown } | undefined)?.supported ?? []) as unknown[];
  if (supported.some(isModernRevision)) throw e;
  const stateful = STATEFUL_REVISIONS.filter((v) => supported.includes(v));
  const pick = stateful[stateful.length - 1];
  if (pick === undefined || s.era === 'stateless') {
    throw new McpkitError(
      'UNSUPPORTED_PROTOCOL_VERSION',
      `The server supports ${supported.map(String).join(', ') || 'no listed revision'}, none of which this client speaks`,
      { cause: e },
    );
  }
  return initialize(s, pick);
}

async function initialize(s: NegotiationSetup, version: string): Promise<Negotiated> {
  const answer = await s.peer.request(
    'initialize',
    { protocolVersion: version, capabilities: s.capabilities, clientInfo: s.info },
    s.options,
  );
  const result = checkResult(initializeResult, answer, 'initialize', 'server');
  const policy = statefulPolicy(result.protocolVersion);
  if (!policy) {
    throw new McpkitError(
      'UNSUPPORTED_PROTOCOL_VERSION',
      `The server chose protocol revision ${JSON.stringify(result.protocolVersion)}, which this client does not speak (it speaks ${STATEFUL_REVISIONS.join(', ')})`,
    );
  }
  await s.peer.notify('notifications/initialized');
  const out: Negotiated = {
    era: 'stateful',
    protocolVersion: policy.version,
    policy,
    capabilities: result.capabilities,
    serverInfo: result.serverInfo,
  };
  if (result.instructions !== undefined) out.instructions = result.instructions;
  return out;
}

/** The default stateful revision asked for. */
export const DEFAULT_STATEFUL_VERSION = LATEST_STATEFUL_REVISION;
