import { randomBase64url } from '../../framing/base64url.js';
import { toError } from '../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import type { ServerChange } from '../../server/broadcast.js';
import type { MessageBus } from './bus.js';
import { type ClusterLink, INSTANCE_ID_LENGTH } from './link.js';
import type { SessionRecord, SessionStore } from './session-store.js';
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
  /** This instance's id ({@link INSTANCE_ID_LENGTH} base64url characters). Default: random. */
  instanceId?: string;
  /** Heartbeat interval in ms (an instance silent for three is taken for dead). Default 1000. */
  heartbeatMs?: number;
}

/** What a cluster node does with messages from other instances (the endpoint provides it). */
export interface ClusterHooks {
  /** Another instance changed a session's record (log level, subscriptions). */
  sessionChanged(id: string, record: SessionRecord): void;
  /** Another instance ended a session. */
  sessionDeleted(id: string): void;
  /** A message for a session of this instance (an answer to one of its requests, or a cancellation). */
  deliver(sessionId: string, message: JsonRpcMessage): void;
  /** A change another instance announces (list changes, resource updates). */
  change(change: ServerChange): void;
  /** A message could not be handled or published. */
  error(error: Error): void;
}

const CONTROL = 'ctl';
const inbox = (instance: string) => `i:${instance}`;

type Control =
  | { t: 's'; f: string; id: string; r: SessionRecord }
  | { t: 'd'; f: string; id: string }
  | { t: 'c'; f: string; s: string; m: JsonRpcMessage }
  | { t: 'x'; f: string; c: ServerChange };

/** One instance's end of the cluster: its id, heartbeat, control channel and inbox. */
export class ClusterNode implements ClusterLink {
  readonly instance: string;
  readonly events: SharedEventStore;
  readonly sessions: SessionStore;
  readonly heartbeatMs: number;
  readonly #bus: MessageBus;
  readonly #hooks: ClusterHooks;
  #starting: Promise<void> | undefined;
  #ready = false;
  #closed = false;
  #unsubscribe: (() => void)[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: ClusterOptions, hooks: ClusterHooks) {
    const id = options.instanceId ?? randomBase64url(6);
    if (!/^[A-Za-z0-9_-]+$/.test(id) || id.length !== INSTANCE_ID_LENGTH)
      throw new TypeError(`cluster instanceId must be ${INSTANCE_ID_LENGTH} base64url characters`);
    this.instance = id;
    this.events = options.events;
    this.sessions = options.sessions;
    this.#bus = options.bus;
    this.heartbeatMs = options.heartbeatMs ?? 1000;
    this.#hooks = hooks;
  }

  /** True once subscribed and announced. */
  get ready(): boolean {
    return this.#ready;
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
    const own = await this.#bus.subscribe(inbox(this.instance), (text) => this.#inbox(text));
    this.#unsubscribe.push(own);
    await this.#bus.heartbeat(this.instance, this.heartbeatMs * 3);
    if (this.#closed) return this.close();
    this.#timer = setInterval(() => {
      this.#bus
        .heartbeat(this.instance, this.heartbeatMs * 3)
        .catch((e: unknown) => this.#hooks.error(toError(e)));
    }, this.heartbeatMs);
    (this.#timer as { unref?: () => void }).unref?.();
    this.#ready = true;
  }

  isAlive(instance: string): Promise<boolean> {
    return instance === this.instance ? Promise.resolve(!this.#closed) : this.#bus.isAlive(instance);
  }

  forwardAnswer(instance: string, sessionId: string, message: JsonRpcMessage): void {
    this.#publish(inbox(instance), JSON.stringify({ s: sessionId, m: message }));
  }

  forwardCancel(sessionId: string, message: JsonRpcMessage): void {
    this.#send({ t: 'c', f: this.instance, s: sessionId, m: message });
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

  /** Stops the heartbeat and leaves the channels. */
  close(): void {
    this.#closed = true;
    this.#ready = false;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  #send(control: Control): void {
    this.#publish(CONTROL, JSON.stringify(control));
  }

  #publish(channel: string, text: string): void {
    this.#bus.publish(channel, text).catch((e: unknown) => this.#hooks.error(toError(e)));
  }

  #control(text: string): void {
    let control: Control;
    try {
      control = JSON.parse(text) as Control;
    } catch (e) {
      this.#hooks.error(toError(e));
      return;
    }
    if (typeof control !== 'object' || control === null || control.f === this.instance) return;
    switch (control.t) {
      case 's':
        this.#hooks.sessionChanged(control.id, control.r);
        return;
      case 'd':
        this.#hooks.sessionDeleted(control.id);
        return;
      case 'c':
        this.#hooks.deliver(control.s, control.m);
        return;
      case 'x':
        this.#hooks.change(control.c);
        return;
    }
  }

  #inbox(text: string): void {
    try {
      const { s, m } = JSON.parse(text) as { s: string; m: JsonRpcMessage };
      this.#hooks.deliver(s, m);
    } catch (e) {
      this.#hooks.error(toError(e));
    }
  }
}
