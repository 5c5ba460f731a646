import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject, JsonRpcNotification, RequestId } from '../../jsonrpc/types.js';
import type { RequestOptions } from '../../protocol/outgoing.js';
import { type IncomingRequest, Peer, type PeerHandlers, type PeerOptions } from '../../protocol/peer.js';
import { SENT, type Transport } from '../../protocol/transport.js';
import { LOG_LEVELS } from '../../spec/log-levels.js';
import type { RevisionPolicy } from '../../spec/revision.js';
import type {
  ClientCapabilities,
  Implementation,
  LoggingLevel,
  ServerCapabilities,
} from '../../spec/types.js';
import type { SessionInfo } from '../handler/context.js';
import type { SentNotificationHook } from '../handler/middleware.js';
import type { ContextSetup, DispatchSession } from './setup.js';

/** Most resource subscriptions one session may hold. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 10_000;

/** What a session needs from the server definition it serves. */
export interface SessionHost {
  dispatch(session: ServerSession, incoming: IncomingRequest): Promise<JsonObject> | JsonObject;
  notification(session: ServerSession, notification: JsonRpcNotification): void;
  /** The app's hook around the notifications sent to clients, when one is set. */
  readonly sentHook: SentNotificationHook | undefined;
  error(error: Error, session: ServerSession): void;
  closed(session: ServerSession): void;
}

/** Servers answer malformed payloads with a JSON-RPC error. */
const SERVER_PEER: PeerOptions = { answerInvalid: true };

/**
 * A session's side of its Peer: methods on a prototype over two references, rather than six closures per session.
 */
class SessionHandlers implements PeerHandlers {
  readonly #session: ServerSession;
  readonly #host: SessionHost;

  constructor(session: ServerSession, host: SessionHost) {
    this.#session = session;
    this.#host = host;
  }

  request(incoming: IncomingRequest): Promise<JsonObject> | JsonObject {
    return this.#host.dispatch(this.#session, incoming);
  }

  notification(notification: JsonRpcNotification): void {
    this.#host.notification(this.#session, notification);
  }

  batchAllowed(): boolean {
    return this.#session.policy?.batching === true;
  }

  batchRefusal(): string {
    const session = this.#session;
    return session.initialized
      ? `Invalid Request: JSON-RPC batches are not supported by protocol revision ${session.protocolVersion}`
      : 'Invalid Request: initialize must not be sent in a batch';
  }

  error(error: Error): void {
    this.#host.error(error, this.#session);
  }

  closed(): void {
    this.#host.closed(this.#session);
  }
}

/**
 * The small per-connection state of a server: negotiated revision, client capabilities, log level and
 * subscriptions, plus the Peer that carries its messages. The definition itself is shared.
 */
export class ServerSession implements SessionInfo {
  readonly peer: Peer;
  /** The negotiated revision's policy: set at initialize (or per request on a server without sessions). */
  policy: RevisionPolicy | undefined;
  clientCapabilities: ClientCapabilities = {};
  clientInfo: Implementation | undefined;
  /** The capabilities the server declared to this session at initialize. */
  serverCapabilities: ServerCapabilities = {};
  /** True once `initialize` has been answered. */
  initialized = false;
  /** True once `notifications/initialized` has arrived. */
  ready = false;
  /** True for a session made for one request (Streamable HTTP without sessions): it has no identity of its own. */
  transient = false;
  logLevel: number;
  /** Subscribed resource URIs; made on the first subscription (most sessions never subscribe). */
  subscriptions: Set<string> | undefined;
  /** @internal What every request's context shares on this session (made by `statefulSetup`, per revision). */
  contextSetup: ContextSetup | undefined;

  readonly #host: SessionHost;

  constructor(transport: Transport, host: SessionHost, defaultLogLevel: LoggingLevel) {
    this.logLevel = LOG_LEVELS.indexOf(defaultLogLevel);
    this.#host = host;
    this.peer = new Peer(transport, new SessionHandlers(this, host), SERVER_PEER);
  }

  /** The negotiated protocol revision ('' before initialize). */
  get protocolVersion(): string {
    return this.policy?.version ?? '';
  }

  /** The transport session id, if the transport has one. */
  get id(): string | undefined {
    return this.peer.transport.sessionId;
  }

  /**
   * Sends a request to the client, fitted to the session's revision. Refused (a rejected McpkitError, nothing sent)
   * when the client has not declared the capability it needs, or the revision cannot express it.
   */
  request(
    method: string,
    params: JsonObject | undefined,
    options?: RequestOptions,
    related?: RequestId,
  ): Promise<JsonObject> {
    const missing = this.#missingCapability(method, params);
    if (missing) return Promise.reject(missing);
    const fitting = this.policy?.fitting;
    let fitted = params;
    if (fitting && params) {
      try {
        fitted = fitting.params(method, params);
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.peer.request(
      method,
      fitted,
      options,
      related === undefined ? undefined : { relatedRequestId: related },
    );
  }

  /**
   * Sends a notification to the client, fitted to `policy`: the revision of the request it belongs to (a stateless
   * request on a connection that also holds a stateful session), by default the session's.
   */
  notify(
    method: string,
    params?: JsonObject,
    related?: RequestId,
    policy: RevisionPolicy | undefined = this.policy,
  ): Promise<void> {
    const hook = this.#host.sentHook;
    if (hook === undefined) return this.#notify(method, params, related, policy);
    return hook(method, params, this.id, policy?.version, (sent) =>
      this.#notify(method, sent, related, policy),
    );
  }

  #notify(
    method: string,
    params: JsonObject | undefined,
    related: RequestId | undefined,
    policy: RevisionPolicy | undefined,
  ): Promise<void> {
    const fitting = policy?.fitting;
    return this.peer.notify(
      method,
      fitting && params ? fitting.params(method, params) : params,
      related === undefined ? undefined : { relatedRequestId: related },
    );
  }

  /** Subscribes to updates of a resource URI. */
  subscribe(uri: string): void {
    this.subscriptions ??= new Set();
    const subscriptions = this.subscriptions;
    if (!subscriptions.has(uri) && subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SESSION) {
      throw new JsonRpcError(
        ErrorCode.InvalidRequest,
        `Too many subscriptions (limit ${MAX_SUBSCRIPTIONS_PER_SESSION})`,
      );
    }
    subscriptions.add(uri);
  }

  /** Closes the connection. */
  close(): Promise<void> {
    return this.peer.close();
  }

  #missingCapability(method: string, params: JsonObject | undefined): McpkitError | undefined {
    return refusal(this.policy, this.clientCapabilities, method, params);
  }
}

/** The transport of a detached session: never started, it delivers nothing. */
const DETACHED: Transport = {
  start: () => SENT,
  send: () =>
    Promise.reject(new McpkitError('NOT_CONNECTED', 'A stateless request has no connection to send on')),
  close: () => SENT,
};

/**
 * The one session of a server's 2026-07-28 requests that have no connection of their own (a POST without a session):
 * their handlers' `session` argument (the revision has no method that keeps state on it), never connected, transient.
 */
export function detachedSession(host: SessionHost, defaultLogLevel: LoggingLevel): ServerSession {
  const session = new ServerSession(DETACHED, host, defaultLogLevel);
  session.transient = true;
  return session;
}

/** What a request without a connection reaches the client through: nothing (its notifications go to a notifier). */
const NO_CONNECTION: { readonly closed: boolean } = Object.freeze({ closed: true });

/**
 * What a stateful-era request without a connection (a POST to a Streamable HTTP endpoint without sessions) carries in
 * place of a session: its revision (the request's header), as if initialized, the server's capabilities now, the
 * default log level, a client that declared nothing. No Peer, no transport, never among the server's sessions; what
 * its request changes of it (`logging/setLevel`, a subscription) ends with the request, and `initialize` is answered
 * on it without opening anything.
 */
export class TransientSession implements DispatchSession {
  readonly id = undefined;
  readonly transient = true;
  readonly peer = NO_CONNECTION;
  policy: RevisionPolicy | undefined;
  clientCapabilities: ClientCapabilities = {};
  clientInfo: Implementation | undefined = undefined;
  serverCapabilities: ServerCapabilities;
  initialized: boolean;
  ready: boolean;
  logLevel: number;
  subscriptions: Set<string> | undefined = undefined;
  contextSetup: ContextSetup | undefined = undefined;

  /** `initialize`: a request that initializes (the session then starts uninitialized, without a revision). */
  constructor(
    policy: RevisionPolicy,
    capabilities: ServerCapabilities,
    logLevel: number,
    initialize: boolean,
  ) {
    this.policy = initialize ? undefined : policy;
    this.serverCapabilities = initialize ? {} : capabilities;
    this.initialized = !initialize;
    this.ready = !initialize;
    this.logLevel = logLevel;
  }

  /** The request's protocol revision ('' for an `initialize` not yet answered). */
  get protocolVersion(): string {
    return this.policy?.version ?? '';
  }

  /** Refused: the client declared nothing, so nothing can be asked of it (as on a session of such a client). */
  request(method: string, params: JsonObject | undefined): Promise<JsonObject> {
    return Promise.reject(
      refusal(this.policy, this.clientCapabilities, method, params) ??
        new McpkitError(
          'NOT_CONNECTED',
          `A request without a session has no connection to send ${method} on`,
        ),
    );
  }

  /** Dropped: what the request sends goes to its notifier, and nothing else reaches its client. */
  notify(): Promise<void> {
    return SENT;
  }

  /** Kept for the request alone. */
  subscribe(uri: string): void {
    this.subscriptions ??= new Set();
    this.subscriptions.add(uri);
  }
}

/**
 * Why a request of `method` cannot go to a client that declared `caps` under `policy` (undefined: it can): the
 * capability it needs is missing, or the revision cannot express it.
 */
function refusal(
  policy: RevisionPolicy | undefined,
  caps: ClientCapabilities,
  method: string,
  params: JsonObject | undefined,
): McpkitError | undefined {
  let need: unknown = true;
  if (method === 'sampling/createMessage') need = caps.sampling;
  else if (method === 'roots/list') need = caps.roots;
  else if (method === 'elicitation/create') {
    need = caps.elicitation;
    if (need && policy) return elicitationRefusal(policy, caps, params?.mode === 'url');
  }
  if (need) return undefined;
  const capability = method.split('/')[0];
  return new McpkitError(
    'CAPABILITY_MISSING',
    `The client did not declare the "${capability}" capability, so ${method} cannot be sent`,
  );
}

/** Why an elicitation of this mode cannot go to a client that declared `elicitation` (undefined: it can). */
function elicitationRefusal(
  policy: RevisionPolicy,
  caps: ClientCapabilities,
  url: boolean,
): McpkitError | undefined {
  if (url && !policy.elicitationModeField) {
    return new McpkitError(
      'CAPABILITY_MISSING',
      `Protocol revision ${policy.version} has no URL-mode elicitation, so it cannot be sent`,
    );
  }
  const modes = policy.elicitationModes(caps);
  if (url ? modes.url : modes.form) return undefined;
  const mode = url ? 'url' : 'form';
  return new McpkitError(
    'CAPABILITY_MISSING',
    `The client did not declare the "elicitation.${mode}" capability, so ${mode}-mode elicitation cannot be sent`,
  );
}
