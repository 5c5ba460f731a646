import { randomBase64url } from '../../../framing/base64url.js';
import { toError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import type { MessageBus } from '../../../store/bus.js';
import type { ClusterOptions } from '../../../store/cluster.js';
import type { SessionRecord, SessionStore } from '../../../store/session-store.js';
import type { SharedEventStore } from '../../../store/shared-event-store.js';
import type { ServerChange } from '../../broadcast.js';
import type { ServerSession } from '../../dispatch/session.js';
import type { McpServer } from '../../server.js';
import { type HandOff, Inbox, type InboxMember } from './inbox.js';
import { type ClusterLink, INSTANCE_ID_LENGTH } from './link.js';

/**
 * What an endpoint joined to a node does with messages from other instances (the Streamable HTTP endpoint and the
 * legacy HTTP+SSE endpoint of one server share one node; each is a member). Members ignore sessions they do not hold.
 */
export interface ClusterMember extends InboxMember {
  /** Another instance changed a session's record (log level, subscriptions). */
  sessionChanged?(id: string, record: SessionRecord): void;
  /** Another instance ended a session. */
  sessionDeleted?(id: string): void;
  /** Whether this instance announces changes to `session` (false: another instance holds its stream). */
  delivers?(session: ServerSession): boolean;
}

const CONTROL = 'ctl';

type Control =
  | { t: 's'; f: string; id: string; r: SessionRecord }
  | { t: 'd'; f: string; id: string }
  | { t: 'c'; f: string; s: string; m: JsonRpcMessage }
  | { t: 'x'; f: string; c: ServerChange };

/**
 * One instance's end of the cluster, shared by its members: its id, heartbeat and control channel (session records,
 * cancellations and server changes for every instance), and its inbox (`inbox.ts`: answers and legacy hand-offs).
 */
export class ClusterNode implements ClusterLink {
  readonly instance: string;
  readonly events: SharedEventStore;
  readonly sessions: SessionStore;
  readonly heartbeatMs: number;
  readonly #bus: MessageBus;
  readonly #server: McpServer;
  readonly #members = new Set<ClusterMember>();
  readonly #inbox: Inbox;
  readonly #apply: (change: ServerChange) => void;
  #starting: Promise<void> | undefined;
  #ready = false;
  #closed = false;
  #unsubscribe: (() => void)[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Prefer {@link joinCluster}: endpoints of one server on the same options then share one node. */
  constructor(server: McpServer, options: ClusterOptions) {
    const id = options.instanceId ?? randomBase64url(6);
    if (!/^[A-Za-z0-9_-]+$/.test(id) || id.length !== INSTANCE_ID_LENGTH)
      throw new TypeError(`cluster instanceId must be ${INSTANCE_ID_LENGTH} base64url characters`);
    this.instance = id;
    this.events = options.events;
    this.sessions = options.sessions;
    this.#bus = options.bus;
    this.heartbeatMs = options.heartbeatMs ?? 1000;
    this.#server = server;
    this.#apply = server.relayChanges({
      publish: (change) => this.changed(change),
      delivers: (session) => {
        for (const member of this.#members) if (member.delivers?.(session) === false) return false;
        return true;
      },
    });
    this.#inbox = new Inbox(options.bus, {
      instance: id,
      members: this.#members,
      isAlive: (instance) => this.isAlive(instance),
      report: (e) => this.#error(e),
    });
    // The bus's failures no caller sees (a listener that threw) reach the server's onerror.
    const stopReporting = this.#bus.reportTo?.((e) => this.#error(e));
    if (stopReporting) this.#unsubscribe.push(stopReporting);
  }

  /** True once subscribed and announced. */
  get ready(): boolean {
    return this.#ready;
  }

  /** Adds an endpoint; the returned function removes it (the last one out closes the node). */
  join(member: ClusterMember): () => void {
    this.#members.add(member);
    return () => {
      if (!this.#members.delete(member) || this.#members.size > 0) return;
      this.close();
    };
  }

  /** Subscribes to the control channel and this instance's inbox and starts the heartbeat; retried after a failure. */
  start(): Promise<void> {
    this.#starting ??= this.#start().catch((e: unknown) => {
      this.#starting = undefined;
      throw e;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    const control = await this.#bus.subscribe(CONTROL, (text) => this.#control(text));
    this.#unsubscribe.push(control);
    this.#unsubscribe.push(await this.#inbox.open());
    await this.#bus.heartbeat(this.instance, this.heartbeatMs * 3);
    if (this.#closed) return this.close();
    this.#timer = setInterval(() => {
      this.#bus.heartbeat(this.instance, this.heartbeatMs * 3).catch((e: unknown) => this.#error(e));
    }, this.heartbeatMs);
    (this.#timer as { unref?: () => void }).unref?.();
    this.#ready = true;
  }

  isAlive(instance: string): Promise<boolean> {
    return instance === this.instance ? Promise.resolve(!this.#closed) : this.#bus.isAlive(instance);
  }

  forwardAnswer(instance: string, sessionId: string, message: JsonRpcMessage): void {
    this.#inbox.forward(instance, sessionId, message);
  }

  forwardCancel(sessionId: string, message: JsonRpcMessage): void {
    this.#send({ t: 'c', f: this.instance, s: sessionId, m: message });
  }

  /**
   * Hands a message POSTed for a legacy session to the instance holding its stream, and resolves with what became of
   * it (see {@link Inbox.handOff}); `unanswered` once this node is closed. Rejects when the bus cannot be reached.
   */
  async handOff(
    instance: string,
    sessionId: string,
    message: JsonRpcMessage,
    authInfo: unknown,
    waitMs = Math.max(5000, this.heartbeatMs * 5),
  ): Promise<HandOff> {
    await this.start();
    if (this.#closed) return 'unanswered';
    return this.#inbox.handOff(instance, sessionId, message, authInfo, waitMs);
  }

  /** Tells the other instances that a session's record changed (they update their copies). */
  sessionChanged(id: string, record: SessionRecord): Promise<number> {
    return this.#bus.publish(CONTROL, JSON.stringify({ t: 's', f: this.instance, id, r: record }));
  }

  /** Tells the other instances that a session ended. */
  sessionDeleted(id: string): Promise<number> {
    return this.#bus.publish(CONTROL, JSON.stringify({ t: 'd', f: this.instance, id }));
  }

  /** Tells the other instances about a change made here. */
  changed(change: ServerChange): void {
    this.#send({ t: 'x', f: this.instance, c: change });
  }

  /** Stops the heartbeat and leaves the channels (hand-offs still waiting are `unanswered`). */
  close(): void {
    if (!this.#closed) this.#server.relayChanges(undefined);
    this.#closed = true;
    this.#ready = false;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    this.#inbox.close();
    forget(this.#server, this);
  }

  #send(control: Control): void {
    this.#publish(CONTROL, JSON.stringify(control));
  }

  #publish(channel: string, text: string): void {
    this.#bus.publish(channel, text).catch((e: unknown) => this.#error(e));
  }

  #error(e: unknown): void {
    this.#server.error(toError(e), undefined);
  }

  #control(text: string): void {
    let control: Control;
    try {
      control = JSON.parse(text) as Control;
    } catch (e) {
      this.#error(e);
      return;
    }
    if (typeof control !== 'object' || control === null || control.f === this.instance) return;
    switch (control.t) {
      case 's':
        for (const member of this.#members) member.sessionChanged?.(control.id, control.r);
        return;
      case 'd':
        for (const member of this.#members) member.sessionDeleted?.(control.id);
        return;
      case 'c':
        for (const member of this.#members) member.deliver?.(control.s, control.m);
        return;
      case 'x':
        this.#apply(control.c);
        return;
    }
  }
}

const nodes = new WeakMap<McpServer, Map<ClusterOptions, ClusterNode>>();

/**
 * Joins an endpoint of `server` to the cluster `options` describe: endpoints of one server given the same options
 * object (as `serve()` gives its Streamable HTTP and legacy endpoints) share one node, so one instance id, one
 * heartbeat, one inbox. Call the returned `leave` when the endpoint closes.
 */
export function joinCluster(
  server: McpServer,
  options: ClusterOptions,
  member: ClusterMember,
): { node: ClusterNode; leave: () => void } {
  let byOptions = nodes.get(server);
  if (!byOptions) {
    byOptions = new Map();
    nodes.set(server, byOptions);
  }
  let node = byOptions.get(options);
  if (!node) {
    node = new ClusterNode(server, options);
    byOptions.set(options, node);
  }
  return { node, leave: node.join(member) };
}

/** A closed node is not handed to endpoints joining later. */
function forget(server: McpServer, node: ClusterNode): void {
  const byOptions = nodes.get(server);
  if (byOptions === undefined) return;
  for (const [options, n] of byOptions) if (n === node) byOptions.delete(options);
}
