import type { JsonObject, JsonRpcNotification, RequestId } from '../jsonrpc/types.js';
import type { Peer } from '../protocol/peer.js';
import { META, type SubscriptionFilter } from '../spec/modern.js';

/** How a subscription ended: the server closed it gracefully, this side closed it, or the connection dropped. */
export type SubscriptionEnd = 'graceful' | 'local' | 'remote';

/** An open `subscriptions/listen` stream (stateless revision). */
export interface Subscription {
  /** The notification types the server agreed to send (from its acknowledgement). */
  readonly honoured: Promise<SubscriptionFilter>;
  /** Settles when the subscription ends for good. */
  readonly ended: Promise<SubscriptionEnd>;
  /** Ends the subscription (the server is told by cancellation). */
  close(): void;
}

/** Options of one subscription. */
export interface ListenOptions {
  /** Re-open the stream when the connection drops (bounded backoff). Default true. */
  resubscribe?: boolean;
  /** Most re-subscriptions in a row without an acknowledgement. Default 5. */
  maxAttempts?: number;
}

interface State {
  filter: SubscriptionFilter;
  options: ListenOptions;
  controller: AbortController;
  ids: Set<RequestId>;
  acked: (filter: SubscriptionFilter) => void;
  end: (how: SubscriptionEnd) => void;
  attempts: number;
}

/**
 * The client side of `subscriptions/listen`: opens the long-lived requests, routes notifications by
 * their subscription id, and re-subscribes after a dropped connection.
 */
export class ClientSubscriptions {
  readonly #byId = new Map<RequestId, State>();
  readonly #peer: () => Peer | undefined;
  readonly #envelope: () => JsonObject;
  readonly #report: (e: unknown) => void;

  constructor(peer: () => Peer | undefined, envelope: () => JsonObject, report: (e: unknown) => void) {
    this.#peer = peer;
    this.#envelope = envelope;
    this.#report = report;
  }

  /** Opens a subscription. */
  open(filter: SubscriptionFilter, options: ListenOptions = {}): Subscription {
    let acked!: (f: SubscriptionFilter) => void;
    let end!: (how: SubscriptionEnd) => void;
    const honoured = new Promise<SubscriptionFilter>((r) => {
      acked = r;
    });
    const ended = new Promise<SubscriptionEnd>((r) => {
      end = r;
    });
    const state: State = {
      filter,
      options,
      controller: new AbortController(),
      ids: new Set(),
      acked,
      end,
      attempts: 0,
    };
    this.#start(state);
    return { honoured, ended, close: () => state.controller.abort('closed by the client') };
  }

  /** Delivers a notification to its subscription; false when it carries no known subscription id. */
  route(notification: JsonRpcNotification): boolean {
    const id = (notification.params?._meta as JsonObject | undefined)?.[META.subscriptionId];
    if (typeof id !== 'string' && typeof id !== 'number') return false;
    const state = this.#byId.get(id);
    if (!state) return false;
    if (notification.method === 'notifications/subscriptions/acknowledged') {
      state.attempts = 0;
      state.acked((notification.params?.notifications ?? {}) as SubscriptionFilter);
      return true;
    }
    return false;
  }

  /** Ends every subscription from this side (the client is closing). */
  closeAll(): void {
    for (const state of new Set(this.#byId.values())) state.controller.abort('client closed');
  }

  /** Number of open subscriptions. */
  get size(): number {
    return new Set(this.#byId.values()).size;
  }

  #start(state: State): void {
    const peer = this.#peer();
    if (!peer || peer.closed || state.controller.signal.aborted) {
      state.end(state.controller.signal.aborted ? 'local' : 'remote');
      return;
    }
    const params: JsonObject = { notifications: state.filter as JsonObject, _meta: this.#envelope() };
    const { id, promise } = peer.begin('subscriptions/listen', params, {
      timeout: Number.POSITIVE_INFINITY,
      signal: state.controller.signal,
    });
    state.ids.add(id);
    this.#byId.set(id, state);
    promise.then(
      () => {
        this.#forget(state);
        state.end('graceful');
      },
      (e: unknown) => {
        this.#byId.delete(id);
        if (state.controller.signal.aborted) {
          this.#forget(state);
          state.end('local');
          return;
        }
        const again =
          state.options.resubscribe !== false && state.attempts < (state.options.maxAttempts ?? 5);
        const alive = this.#peer()?.closed === false;
        if (!again || !alive) {
          // A connection that is gone is reported by the client's onclose; do not report it twice.
          if (alive) this.#report(e);
          this.#forget(state);
          state.end('remote');
          return;
        }
        // Bounded exponential backoff: 0.5 s, 1 s, 2 s, … up to 30 s.
        const delay = Math.min(30_000, 500 * 2 ** state.attempts++);
        setTimeout(() => this.#start(state), delay);
      },
    );
  }

  #forget(state: State): void {
    for (const id of state.ids) this.#byId.delete(id);
    state.ids.clear();
  }
}
