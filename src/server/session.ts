import { ErrorCode, JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcNotification, RequestId } from '../jsonrpc/types.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import { type IncomingRequest, Peer, type PeerHandlers, type PeerOptions } from '../protocol/peer.js';
import type { Transport } from '../protocol/transport.js';
import type { RevisionPolicy } from '../spec/revision.js';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from '../spec/types.js';
import type { SessionInfo } from './context.js';

/** Severity order of logging levels. */
export const LOG_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** Most resource subscriptions one session may hold. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 10_000;

/** What a session needs from the server definition it serves. */
export interface SessionHost {
  dispatch(session: ServerSession, incoming: IncomingRequest): Promise<JsonObject> | JsonObject;
  notification(session: ServerSession, notification: JsonRpcNotification): void;
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
  logLevel: number;
  /** Subscribed resource URIs; made on the first subscription (most sessions never subscribe). */
  subscriptions: Set<string> | undefined;

  constructor(transport: Transport, host: SessionHost, defaultLogLevel: LoggingLevel) {
    this.logLevel = LOG_LEVELS.indexOf(defaultLogLevel);
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

  /** Sends a request to the client (fitted to the session's revision), refusing methods the client has not declared a capability for. */
  request(
    method: string,
    params: JsonObject | undefined,
    options?: RequestOptions,
    related?: RequestId,
  ): Promise<JsonObject> {
    const missing = this.#missingCapability(method);
    if (missing) return Promise.reject(missing);
    const fitting = this.policy?.fitting;
    return this.peer.request(
      method,
      fitting && params ? fitting.params(method, params) : params,
      options,
      related === undefined ? undefined : { relatedRequestId: related },
    );
  }

  /** Sends a notification to the client, fitted to the session's revision. */
  notify(method: string, params?: JsonObject, related?: RequestId): Promise<void> {
    const fitting = this.policy?.fitting;
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

  #missingCapability(method: string): McpkitError | undefined {
    const caps = this.clientCapabilities;
    const need =
      method === 'sampling/createMessage'
        ? caps.sampling
        : method === 'elicitation/create'
          ? caps.elicitation
          : method === 'roots/list'
            ? caps.roots
            : true;
    if (need) return undefined;
    const capability = method.split('/')[0];
    return new McpkitError(
      'CAPABILITY_MISSING',
      `The client did not declare the "${capability}" capability, so ${method} cannot be sent`,
    );
  }
}
