import { ErrorCode, JsonRpcError, toError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';
import { listenedUris } from '../server/definitions/watch.js';
import type { SessionInfo } from '../server/handler/context.js';
import type { Middleware } from '../server/handler/middleware.js';

/** Default most resources a proxy keeps subscribed on the server behind it, for all its clients together. */
export const DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS = 1000;

/** What the subscriptions need of the client connected to the server behind. */
export interface SubscribingClient {
  subscribeResource(uri: string): Promise<void>;
  unsubscribeResource(uri: string): Promise<void>;
}

interface Held {
  /** Stateful sessions holding it, plus open `subscriptions/listen` requests naming it. */
  holders: number;
  /** The forwarded `resources/subscribe`: true once the server behind took it. */
  done: Promise<boolean>;
}

/**
 * The resource subscriptions a proxy holds on the server behind it for its own clients, reference-counted: a
 * resource is subscribed there once the first client subscribes to it (`resources/subscribe` of a session, or a
 * `subscriptions/listen` request naming it) and unsubscribed once the last holder lets it go (its
 * `resources/unsubscribe`, the end of its listen request, or the close of its session). A session holds a URI once
 * however often it subscribes. The set is bounded: a subscription to one more resource than `max` is refused.
 */
export class UpstreamSubscriptions {
  readonly #client: SubscribingClient;
  readonly #max: number;
  readonly #report: (error: Error) => void;
  readonly #held = new Map<string, Held>();
  /** The URIs each stateful session of the proxy holds (sessions that never subscribe have no entry). */
  readonly #bySession = new Map<SessionInfo, Set<string>>();

  constructor(client: SubscribingClient, max: number, report: (error: Error) => void) {
    this.#client = client;
    this.#max = max;
    this.#report = report;
  }

  /** The number of resources subscribed (or being subscribed) on the server behind. */
  get size(): number {
    return this.#held.size;
  }

  /**
   * The middleware that forwards subscriptions: before the request runs, since a `subscriptions/listen` request
   * lasts as long as its stream and its updates would otherwise never be asked for. A request that fails takes its
   * part back.
   */
  middleware(): Middleware {
    return (request, next) => {
      switch (request.method) {
        case 'resources/subscribe':
          return this.#subscribe(request.params, request.ctx.session, next);
        case 'resources/unsubscribe':
          return this.#unsubscribe(request.params, request.ctx.session, next);
        case 'subscriptions/listen':
          return this.#listen(request.params, request.ctx.signal, next);
        default:
          return next();
      }
    };
  }

  /** A session of the proxy closed: what it held is let go. */
  release(session: SessionInfo): void {
    const uris = this.#bySession.get(session);
    if (!uris) return;
    this.#bySession.delete(session);
    for (const uri of uris) this.#drop(uri);
  }

  async #subscribe(params: JsonObject, session: SessionInfo, next: () => Promise<JsonObject>) {
    const uri = params.uri;
    if (typeof uri !== 'string' || this.#bySession.get(session)?.has(uri)) return next();
    this.#hold([uri]);
    let uris = this.#bySession.get(session);
    if (!uris) {
      uris = new Set();
      this.#bySession.set(session, uris);
    }
    uris.add(uri);
    try {
      return await next();
    } catch (e) {
      this.#let(session, uri);
      throw e;
    }
  }

  async #unsubscribe(params: JsonObject, session: SessionInfo, next: () => Promise<JsonObject>) {
    try {
      return await next();
    } finally {
      if (typeof params.uri === 'string') this.#let(session, params.uri);
    }
  }

  async #listen(params: JsonObject, signal: AbortSignal, next: () => Promise<JsonObject>) {
    const uris = listenedUris(params);
    if (uris.length === 0) return next();
    this.#hold(uris);
    let held = true;
    const letGo = () => {
      if (!held) return;
      held = false;
      signal.removeEventListener('abort', letGo);
      for (const uri of uris) this.#drop(uri);
    };
    // A cancelled or disconnected listen request never settles: its abort lets go.
    if (signal.aborted) letGo();
    else signal.addEventListener('abort', letGo, { once: true });
    try {
      return await next();
    } finally {
      letGo();
    }
  }

  /** A session lets go of a URI it held (nothing when it did not hold it). */
  #let(session: SessionInfo, uri: string): void {
    const uris = this.#bySession.get(session);
    if (!uris?.delete(uri)) return;
    if (uris.size === 0) this.#bySession.delete(session);
    this.#drop(uri);
  }

  /** Takes one hold on each URI, all or none: over the limit, nothing is held and the request is refused. */
  #hold(uris: readonly string[]): void {
    let fresh = 0;
    for (const uri of uris) if (!this.#held.has(uri)) fresh++;
    if (fresh > 0 && this.#held.size + fresh > this.#max) {
      throw new JsonRpcError(
        ErrorCode.InvalidRequest,
        `Too many subscriptions: the proxy keeps at most ${this.#max} resources subscribed on the server behind it, for all its clients`,
        { limit: this.#max },
      );
    }
    for (const uri of uris) {
      const known = this.#held.get(uri);
      if (known) {
        known.holders++;
        continue;
      }
      const entry: Held = {
        holders: 1,
        done: this.#client.subscribeResource(uri).then(
          () => true,
          (e: unknown) => {
            if (this.#held.get(uri) === entry) this.#held.delete(uri);
            this.#report(toError(e));
            return false;
          },
        ),
      };
      this.#held.set(uri, entry);
    }
  }

  /** Lets one hold on a URI go; the last one unsubscribes the server behind (once its subscribe is done). */
  #drop(uri: string): void {
    const entry = this.#held.get(uri);
    if (!entry || --entry.holders > 0) return;
    this.#held.delete(uri);
    void entry.done.then((subscribed) => {
      // Subscribed again meanwhile: that subscription stands.
      if (subscribed && !this.#held.has(uri))
        this.#client.unsubscribeResource(uri).catch((e: unknown) => this.#report(toError(e)));
    });
  }
}
