import type { ServerCapabilities } from '../spec/types.js';
import { listCanChange } from './dispatch/capabilities.js';
import type { ListKind, Subscriptions } from './dispatch/listen.js';
import type { ServerSession } from './dispatch/session.js';

/** A change every instance of a cluster announces to its own clients. */
export type ServerChange = { list: ListKind } | { resource: string };

/** What joins a server's change notifications to other instances (set by a clustered HTTP endpoint). */
export interface ChangeRelay {
  /** A change made on this instance: tell the others. */
  publish(change: ServerChange): void;
  /** Whether this instance announces changes to `session` (false: another instance holds its stream). */
  delivers(session: ServerSession): boolean;
}

/** Reports a failed send (`session` undefined for `subscriptions/listen` streams). */
export type BroadcastReport = (error: unknown, session: ServerSession | undefined) => void;

/**
 * Fans server-side changes out to clients: list changes (batched, once per kind per tick) and resource
 * updates, both to stateful sessions and to open `subscriptions/listen` streams.
 */
export class Broadcaster {
  readonly #sessions: ReadonlySet<ServerSession>;
  readonly #subscriptions: Subscriptions;
  readonly #capabilities: () => ServerCapabilities;
  readonly #report: BroadcastReport;
  readonly #reportListen: (error: unknown) => void;
  readonly #dirty = new Set<ListKind>();
  /** Set when the server is one instance of a cluster. */
  relay: ChangeRelay | undefined;

  /** `capabilities` gives what the server declares now (listen streams follow it; sessions follow their own). */
  constructor(
    sessions: ReadonlySet<ServerSession>,
    subscriptions: Subscriptions,
    capabilities: () => ServerCapabilities,
    report: BroadcastReport,
  ) {
    this.#sessions = sessions;
    this.#subscriptions = subscriptions;
    this.#capabilities = capabilities;
    this.#report = report;
    this.#reportListen = (e) => report(e, undefined);
  }

  /** Notes that the list of `kind` changed; announced once per kind after the current tick. */
  listChanged(kind: ListKind): void {
    if (this.#dirty.size === 0) queueMicrotask(() => this.#flush());
    this.#dirty.add(kind);
  }

  /** Tells every session subscribed to `uri` (or to a parent ending in "/") that the resource changed. */
  resourceUpdated(uri: string): void {
    this.relay?.publish({ resource: uri });
    this.#resourceUpdated(uri);
  }

  /** Announces a change made on another instance to this instance's clients. */
  applyRemote(change: ServerChange): void {
    if ('resource' in change) this.#resourceUpdated(change.resource);
    else this.#listChanged(change.list);
  }

  #resourceUpdated(uri: string): void {
    const relay = this.relay;
    this.#subscriptions.resourceUpdated(uri, this.#reportListen);
    for (const session of this.#sessions) {
      if (!session.initialized || session.subscriptions === undefined) continue;
      if (relay && !relay.delivers(session)) continue;
      for (const sub of session.subscriptions) {
        if (sub === uri || (sub.endsWith('/') && uri.startsWith(sub))) {
          session
            .notify('notifications/resources/updated', { uri })
            .catch((e: unknown) => this.#report(e, session));
          break;
        }
      }
    }
  }

  // Changes made in one tick are announced once per kind.
  #flush(): void {
    const kinds = [...this.#dirty];
    this.#dirty.clear();
    for (const kind of kinds) {
      this.relay?.publish({ list: kind });
      this.#listChanged(kind);
    }
  }

  #listChanged(kind: ListKind): void {
    const relay = this.relay;
    if (listCanChange(this.#capabilities(), kind)) this.#subscriptions.listChanged(kind, this.#reportListen);
    for (const session of this.#sessions) {
      // Only sessions that were told at initialize that this list can change hear about it.
      if (!session.initialized || !listCanChange(session.serverCapabilities, kind)) continue;
      if (relay && !relay.delivers(session)) continue;
      session.notify(`notifications/${kind}/list_changed`).catch((e: unknown) => this.#report(e, session));
    }
  }
}
