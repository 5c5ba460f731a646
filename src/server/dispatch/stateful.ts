import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import { isJsonObject, type JsonObject } from '../../jsonrpc/types.js';
import type { IncomingRequest } from '../../protocol/peer.js';
import { claimsModern, INPUT_METHODS } from '../../spec/modern.js';
import { POLICIES, type RevisionPolicy, statefulPolicy } from '../../spec/revision.js';
import type { Implementation, InitializeResult } from '../../spec/types.js';
import { LATEST_STATEFUL_REVISION } from '../../spec/versions.js';
import { IncomingCall, intercept } from '../handler/middleware.js';
import { declares } from './capabilities.js';
import type { DispatchHost } from './host.js';
import { fulfilInputLocally } from './local-input.js';
import { createRequestContext } from './request-context.js';
import { type ServerSession, TransientSession } from './session.js';
import { type DispatchSession, type Notifier, statefulSetup } from './setup.js';
import { dispatchModern } from './stateless.js';
import { warmUpValidation } from './warm-up.js';

/** Answers one request of a session, in the era the request itself selects (a `_meta` envelope: 2026-07-28). */
export function dispatchRequest(
  host: DispatchHost,
  session: ServerSession,
  incoming: IncomingRequest,
): Promise<JsonObject> | JsonObject {
  const { method, params = {} } = incoming.request;
  if (claimsModern(params)) return dispatchModern(host, session, incoming);
  return dispatchStateful(host, session, incoming, method, params);
}

/**
 * Answers one request of a stateful session (2024-11-05 to 2025-11-25): `initialize` first, then the
 * methods whose capability the server declares, through the middleware chain. With `notifier`, the request has no
 * connection (`session` is its `TransientSession`): its notifications go there.
 */
export function dispatchStateful(
  host: DispatchHost,
  session: DispatchSession,
  incoming: IncomingRequest,
  method: string,
  params: JsonObject,
  notifier?: Notifier,
): Promise<JsonObject> | JsonObject {
  if (method === 'initialize') {
    const result = initialize(host, session, params);
    return session.policy?.fitting?.result(method, result) ?? result;
  }
  if (!session.initialized && method !== 'ping') {
    throw new JsonRpcError(
      ErrorCode.InvalidRequest,
      `Server not initialized: send initialize before ${method}`,
    );
  }
  const entry = host.method(method);
  // The capabilities the session was given at initialize, not what the server declares now.
  if (!entry || (entry.gate && !declares(session.serverCapabilities, entry.gate))) {
    throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
  const setup = statefulSetup(session, host.asks, notifier);
  const ctx = createRequestContext(incoming, setup);
  const run = INPUT_METHODS.has(method)
    ? () => fulfilInputLocally(entry.run, host, params, ctx, incoming, setup)
    : () => entry.run(host, params, ctx, session, setup.policy);
  // The context notices the end of the request through `incoming.finished`: no extra promise per call.
  const result = intercept(host.guards, host.middleware, new IncomingCall(method, params, ctx), run);
  // Fitted to the session's revision on the way out; the newest revision has no fitting and pays nothing.
  const fitting = setup.policy.fitting;
  if (fitting === undefined) return result;
  return result instanceof Promise
    ? result.then((r) => fitting.result(method, r))
    : fitting.result(method, result);
}

/**
 * Answers a stateful-era request that has no connection of its own (a POST to an endpoint without sessions) in
 * `policy`, its header's revision: on a `TransientSession` of its own, as if initialized, its notifications to
 * `notifier`; the host is told the session's end once the request is answered, as of a session that closed (what the
 * request held through mounted servers, a subscription, is released).
 */
export function dispatchTransient(
  host: DispatchHost,
  incoming: IncomingRequest,
  notifier: Notifier,
  policy: RevisionPolicy,
  logLevel: number,
): Promise<JsonObject> | JsonObject {
  const { method, params = {} } = incoming.request;
  const session = new TransientSession(policy, host.capabilities, logLevel, method === 'initialize');
  let out: Promise<JsonObject> | JsonObject;
  try {
    out = dispatchStateful(host, session, incoming, method, params, notifier);
  } catch (e) {
    host.sessionEnded(session);
    throw e;
  }
  if (!(out instanceof Promise)) {
    host.sessionEnded(session);
    return out;
  }
  return out.then(
    (result) => {
      host.sessionEnded(session);
      return result;
    },
    (e: unknown) => {
      host.sessionEnded(session);
      throw e;
    },
  );
}

/** Answers `initialize`: fixes the session's revision, the client's capabilities and the server's. */
function initialize(host: DispatchHost, session: DispatchSession, params: JsonObject): JsonObject {
  if (session.initialized)
    throw new JsonRpcError(ErrorCode.InvalidRequest, 'The session is already initialized');
  const requested = params.protocolVersion;
  if (typeof requested !== 'string') {
    throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: "protocolVersion" must be a string');
  }
  const policy = statefulPolicy(requested) ?? POLICIES[LATEST_STATEFUL_REVISION];
  const version = policy.version;
  const caps = params.capabilities;
  session.policy = policy;
  session.clientCapabilities = isJsonObject(caps) ? caps : {};
  session.clientInfo = params.clientInfo as Implementation | undefined;
  session.initialized = true;
  session.serverCapabilities = host.capabilities;
  warmUpValidation();
  const result: InitializeResult = {
    protocolVersion: version,
    // Only what the revision defines (user-declared `extensions`, say, are not offered to an older client).
    capabilities: policy.serverCapabilities(session.serverCapabilities),
    serverInfo: host.info,
  };
  if (host.instructions !== undefined) result.instructions = host.instructions;
  return result;
}
