import type { JsonObject } from '../../jsonrpc/types.js';
import type { RequestContext } from '../handler/context.js';
import {
  type Answer,
  type AskHook,
  type GuardRunner,
  intercept,
  type Middleware,
} from '../handler/middleware.js';

/** The child's side of a mount as its middleware needs it: its guards and chain as they are at each request. */
export interface MiddlewareSource {
  readonly middleware: readonly Middleware[];
  readonly guards: () => GuardRunner | undefined;
  /** Its hook around the requests its handlers make of their client (its audit, its limits on them). */
  readonly asks: () => AskHook | undefined;
}

/**
 * How a subscription to a resource a mount added reaches the server it came from: that server's guards and
 * middleware see `resources/subscribe`, `resources/unsubscribe` and `subscriptions/listen` naming it by its own URI
 * (a proxy holds the subscription on the server behind it that way), and through it the server further down when
 * that entry was itself mounted there.
 */
export interface Watch {
  /** The mounted server's side (one object per mount): the URIs of one mount reach its middleware together. */
  readonly source: MiddlewareSource;
  /** The mounted server's URI of a URI of the server it is mounted in. */
  readonly uri: (uri: string) => string;
  /** The mounted server's own entry's, when a mount brought it there too. */
  readonly inner: Watch | undefined;
}

/** One URI a subscription names, with the way to the server that serves it. */
export interface Watched {
  readonly uri: string;
  readonly watch: Watch;
}

/** The methods a subscription is made, ended or held by. */
export type WatchMethod = 'resources/subscribe' | 'resources/unsubscribe' | 'subscriptions/listen';

/**
 * Runs `run` (this server's own subscribe, unsubscribe or listen) inside the guards and middleware of every mounted
 * server serving one of the URIs: each sees one request of `method` naming its own URIs (in `params`, as this server
 * got it otherwise), in the order of their first URI, and inside it the servers mounted in it. Nothing when no URI
 * came through a mount.
 */
export function watched(
  method: WatchMethod,
  uris: readonly Watched[],
  params: JsonObject,
  ctx: RequestContext,
  run: () => Answer,
): Answer {
  if (uris.length === 0) return run();
  const groups = new Map<MiddlewareSource, { own: string[]; deeper: Watched[] }>();
  for (const { uri, watch } of uris) {
    let group = groups.get(watch.source);
    if (!group) {
      group = { own: [], deeper: [] };
      groups.set(watch.source, group);
    }
    const own = watch.uri(uri);
    if (!group.own.includes(own)) group.own.push(own);
    if (watch.inner) group.deeper.push({ uri: own, watch: watch.inner });
  }
  let next = run;
  for (const [source, group] of [...groups].reverse()) {
    const inner = next;
    next = () => {
      const last = () => watched(method, group.deeper, ownParams(method, params, group.own), ctx, inner);
      const guards = source.guards();
      const chain = source.middleware;
      if (guards === undefined && chain.length === 0) return last();
      return intercept(guards, chain, { method, params: ownParams(method, params, group.own), ctx }, last);
    };
  }
  return next();
}

/** The URIs a `subscriptions/listen` request names (strings only, each once, as many as are honoured). */
export function listenedUris(params: JsonObject): string[] {
  const wanted = (params.notifications as JsonObject | undefined)?.resourceSubscriptions;
  if (!Array.isArray(wanted)) return [];
  return [...new Set(wanted.filter((u): u is string => typeof u === 'string').slice(0, 1000))];
}

/** The request as the mounted server sees it: its own URIs (a listen names only those, and nothing else). */
function ownParams(method: WatchMethod, params: JsonObject, uris: readonly string[]): JsonObject {
  if (method !== 'subscriptions/listen') return { ...params, uri: uris[0] as string };
  return { ...params, notifications: { resourceSubscriptions: [...uris] } };
}
