import type { JsonObject, RequestId } from '../../jsonrpc/types.js';
import type { RequestOptions } from '../../protocol/outgoing.js';
import type { MrtrState } from '../../spec/input-required.js';
import { POLICIES, type RevisionPolicy } from '../../spec/revision.js';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '../../spec/types.js';
import { LATEST_STATEFUL_REVISION } from '../../spec/versions.js';
import type { SessionInfo } from '../handler/context.js';
import type { AskHook, SentNotificationHook } from '../handler/middleware.js';
import type { InputCollector } from './input-collector.js';

/**
 * The session a request runs on, as dispatch and the handler's context use it: a connection's `ServerSession`
 * (session.ts), or what a request without a connection carries in its place (`TransientSession`).
 */
export interface DispatchSession extends SessionInfo {
  /** The revision's policy: fixed at initialize, or the request's own without a session. */
  policy: RevisionPolicy | undefined;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  /** The capabilities the server declared to it at initialize. */
  serverCapabilities: ServerCapabilities;
  initialized: boolean;
  ready: boolean;
  transient: boolean;
  /** The log threshold (index in LOG_LEVELS). */
  logLevel: number;
  subscriptions: Set<string> | undefined;
  /** What every request's context shares on it (made by `statefulSetup`, per revision). */
  contextSetup: ContextSetup | undefined;
  /** Its connection, as far as a context asks: closed, nothing more reaches the client. */
  readonly peer: { readonly closed: boolean };
  /** Sends a request to the client (refused when the client did not declare what it needs). */
  request(
    method: string,
    params: JsonObject | undefined,
    options?: RequestOptions,
    related?: RequestId,
  ): Promise<JsonObject>;
  /** Sends a notification to the client, fitted to `policy`. */
  notify(method: string, params?: JsonObject, related?: RequestId, policy?: RevisionPolicy): Promise<void>;
  /** Subscribes to updates of a resource URI. */
  subscribe(uri: string): void;
}

/** How the handler's requests of the client travel: real requests (stateful) or MRTR input (stateless). */
export type Asker =
  | { readonly era: 'stateful'; readonly session: DispatchSession }
  | { readonly era: 'stateless'; readonly collector: InputCollector };

/** What differs between a stateful and a stateless request's context. */
export interface ContextSetup {
  readonly session: DispatchSession;
  readonly info: SessionInfo;
  /** The revision the request is served in. */
  readonly policy: RevisionPolicy;
  readonly asker: Asker;
  /** The log threshold (index in LOG_LEVELS); read on every log call since `logging/setLevel` may change it. */
  readonly logThreshold: () => number | undefined;
  readonly mrtr: MrtrState;
  /** Where progress and log notifications go instead of the session (a stateless request answered alone). */
  readonly notifier?: Notifier | undefined;
  /** Runs around each request the handler makes of its client (rate limits, audit), when the server has guards. */
  readonly asks?: AskHook | undefined;
}

/**
 * The channel of a request that has no connection of its own (a stateless HTTP request answered directly): its
 * notifications travel on its response.
 */
export interface Notifier {
  notify(method: string, params: JsonObject, related: RequestId, policy: RevisionPolicy): Promise<void>;
  /** True once nothing more can be delivered (the request was answered or its client went away). */
  readonly closed: boolean;
}

/** A request's notifier whose notifications go through the app's `sent` hook first (only made when one is set). */
export class ObservedNotifier implements Notifier {
  constructor(
    readonly inner: Notifier,
    readonly hook: SentNotificationHook,
  ) {}

  get closed(): boolean {
    return this.inner.closed;
  }

  notify(method: string, params: JsonObject, related: RequestId, policy: RevisionPolicy): Promise<void> {
    return this.hook(method, params, undefined, policy.version, (sent) =>
      this.inner.notify(method, sent ?? params, related, policy),
    );
  }
}

/** The MRTR state of a request that carried no answers and no `requestState`: shared, frozen. */
export const NO_MRTR: MrtrState = Object.freeze({ inputResponses: Object.freeze({}), state: undefined });

/*
 * The objects below hold a request's whole graph (its session, and through it the transport, the peer and the
 * context), and a stateless request makes them anew each time. They are class instances, not object literals, on
 * purpose: V8 "pretenures" a literal's allocation site (allocates its objects straight in the old generation) once
 * it has seen nearly all of them survive a scavenge, which happens as soon as anything keeps objects a while (an
 * audit sink holding its last records, say). A setup allocated old keeps the young graph it points to alive through
 * every scavenge until the next full collection, those survivors are promoted, and the server spends its time
 * copying: stateless HTTP at 8 clients spent a quarter of its CPU in scavenges of 1.3 MB each. Instances of a class
 * have no allocation site, so they are never pretenured.
 */

/** A request's {@link ContextSetup}. */
export class RequestSetup implements ContextSetup {
  constructor(
    readonly session: DispatchSession,
    readonly info: SessionInfo,
    readonly policy: RevisionPolicy,
    readonly asker: Asker,
    readonly logThreshold: () => number | undefined,
    readonly mrtr: MrtrState,
    readonly notifier?: Notifier,
    readonly asks?: AskHook,
  ) {}
}

/**
 * The setup of a stateful session's requests, which is also their asker (real requests of the session's client): one
 * object, with the log threshold read from the session when asked, rather than a setup, an asker and a closure.
 */
class SessionSetup implements ContextSetup {
  readonly era = 'stateful';
  readonly info: SessionInfo;
  readonly mrtr: MrtrState = NO_MRTR;
  constructor(
    readonly session: DispatchSession,
    readonly policy: RevisionPolicy,
    readonly notifier: Notifier | undefined,
    readonly asks: AskHook | undefined,
  ) {
    this.info = session;
  }

  get asker(): Asker {
    return this;
  }

  logThreshold(): number | undefined {
    return this.session.serverCapabilities.logging ? this.session.logLevel : undefined;
  }
}

/** The asker of a stateless request: its handler's requests are input the client answers in another round. */
export class InputAsker {
  readonly era = 'stateless';
  constructor(readonly collector: InputCollector) {}
}

/**
 * The setup of a request on a stateful session (a `ping` before initialize is served as the newest revision);
 * `notifier`: where its notifications go instead (a request without a connection, on a `TransientSession`).
 */
export function statefulSetup(session: DispatchSession, asks?: AskHook, notifier?: Notifier): ContextSetup {
  const policy = session.policy ?? POLICIES[LATEST_STATEFUL_REVISION];
  // Made once per session and revision (the revision only changes at initialize), not once per request.
  const cached = session.contextSetup;
  if (cached?.policy === policy) return cached;
  const setup = new SessionSetup(session, policy, notifier, asks);
  session.contextSetup = setup;
  return setup;
}
