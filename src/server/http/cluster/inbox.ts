import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import type { MessageBus } from '../../../store/bus.js';

/**
 * What became of a message handed to the instance holding a legacy session's stream: `accepted`; `refused` (that
 * instance does not hold the session, or not for this principal); `gone` (no such instance is listening);
 * `unanswered` (it did not say in time, or this instance is closing).
 */
export type HandOff = 'accepted' | 'refused' | 'gone' | 'unanswered';

/** What an endpoint does with what reaches its instance's inbox (the part of a `ClusterMember` the inbox calls). */
export interface InboxMember {
  /** A message for a session of this instance (an answer to one of its requests, or a cancellation). */
  deliver?(sessionId: string, message: JsonRpcMessage): void;
  /** A legacy POST another instance handed here, for a session whose stream this instance holds: true when taken. */
  accept?(sessionId: string, message: JsonRpcMessage, authInfo: unknown): boolean;
}

/** The channel of an instance's inbox. */
const inboxOf = (instance: string) => `i:${instance}`;

/** An inbox message: an answer for a session here, a legacy POST handed here (`p`), or the word on one (`k`). */
type Message =
  | { t?: undefined; s: string; m: JsonRpcMessage }
  | { t: 'p'; f: string; r: number; s: string; m: JsonRpcMessage; a?: unknown }
  | { t: 'k'; r: number; ok: boolean };

/** What the inbox needs of its node. */
export interface InboxHost {
  readonly instance: string;
  readonly members: ReadonlySet<InboxMember>;
  isAlive(instance: string): Promise<boolean>;
  report(error: unknown): void;
}

/**
 * One instance's inbox on the bus: answers to its sessions' requests forwarded by other instances, and the legacy
 * POSTs handed between instances with the word that comes back (the hand-offs still waiting for it are kept here).
 */
export class Inbox {
  readonly #bus: MessageBus;
  readonly #host: InboxHost;
  /** Legacy POSTs handed to other instances, waiting for their word. */
  readonly #waiting = new Map<number, (outcome: HandOff) => void>();
  #next = 0;

  constructor(bus: MessageBus, host: InboxHost) {
    this.#bus = bus;
    this.#host = host;
  }

  /** Listens to this instance's inbox; resolves with the function that stops. */
  open(): Promise<() => void> {
    return this.#bus.subscribe(inboxOf(this.#host.instance), (text) => this.#receive(text));
  }

  /** Sends an answer (or a cancellation) to the instance whose session it belongs to. */
  forward(instance: string, sessionId: string, message: JsonRpcMessage): void {
    this.#publish(inboxOf(instance), { s: sessionId, m: message });
  }

  /**
   * Hands a message POSTed for a legacy session to the instance holding its stream, and resolves with what became of
   * it: that instance says whether it took it; nobody listening is `gone`; no word within `waitMs` is `unanswered`
   * (`gone` if the instance stopped its heartbeat meanwhile). Rejects when the bus cannot be reached.
   */
  async handOff(
    instance: string,
    sessionId: string,
    message: JsonRpcMessage,
    authInfo: unknown,
    waitMs: number,
  ): Promise<HandOff> {
    const r = ++this.#next;
    const said = new Promise<HandOff>((resolve) => this.#waiting.set(r, resolve));
    const handed: Message = { t: 'p', f: this.#host.instance, r, s: sessionId, m: message };
    if (authInfo !== undefined) handed.a = authInfo;
    let listening: number;
    try {
      listening = await this.#bus.publish(inboxOf(instance), JSON.stringify(handed));
    } catch (e) {
      this.#waiting.delete(r);
      throw e;
    }
    if (listening === 0) {
      this.#waiting.delete(r);
      return 'gone';
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<HandOff>((resolve) => {
      timer = setTimeout(() => {
        this.#waiting.delete(r);
        this.#host.isAlive(instance).then(
          (alive) => resolve(alive ? 'unanswered' : 'gone'),
          () => resolve('unanswered'),
        );
      }, waitMs);
    });
    try {
      return await Promise.race([said, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every hand-off still waiting is `unanswered` (the instance is closing). */
  close(): void {
    for (const resolve of this.#waiting.values()) resolve('unanswered');
    this.#waiting.clear();
  }

  #publish(channel: string, message: Message): void {
    this.#bus.publish(channel, JSON.stringify(message)).catch((e: unknown) => this.#host.report(e));
  }

  #receive(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch (e) {
      this.#host.report(e);
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const members = this.#host.members;
    switch (message.t) {
      case undefined:
        for (const member of members) member.deliver?.(message.s, message.m);
        return;
      case 'p': {
        let ok = false;
        for (const member of members) ok ||= member.accept?.(message.s, message.m, message.a) === true;
        this.#publish(inboxOf(message.f), { t: 'k', r: message.r, ok });
        return;
      }
      case 'k': {
        const resolve = this.#waiting.get(message.r);
        this.#waiting.delete(message.r);
        resolve?.(message.ok ? 'accepted' : 'refused');
        return;
      }
    }
  }
}
