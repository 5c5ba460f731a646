import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { JsonObject, RequestId } from '../../jsonrpc/types.js';
import { META, type SubscriptionFilter } from '../../spec/modern.js';
import type { RevisionPolicy } from '../../spec/revision.js';
import type { ServerCapabilities } from '../../spec/types.js';
import type { ServerSession } from './session.js';

/** Default most concurrent `subscriptions/listen` streams per server. */
export const DEFAULT_MAX_SUBSCRIPTIONS = 1024;

interface Subscription {
  id: RequestId;
  session: ServerSession;
  /** The revision the subscription was opened in (its notifications are fitted to it, not to the session's). */
  policy: RevisionPolicy;
  filter: SubscriptionFilter;
  close: () => void;
}

/** The kinds of list-change notification a subscription can opt into. */
export type ListKind = 'tools' | 'prompts' | 'resources';

const FILTER_KEY: Record<ListKind, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

/**
 * The live `subscriptions/listen` streams of a server (2026-07-28): each gets its acknowledgement first,
 * then only the notification types it opted into, each tagged with its subscription id.
 */
export class Subscriptions {
  readonly #subs = new Set<Subscription>();
  readonly #max: number;

  constructor(max = DEFAULT_MAX_SUBSCRIPTIONS) {
    this.#max = max;
  }

  /** Number of open subscriptions. */
  get size(): number {
    return this.#subs.size;
  }

  /**
   * Opens a subscription: sends the acknowledgement and resolves with the empty result on a graceful close.
   * `acceptTaskIds` (tasks extension) picks the `taskIds` it will follow; without it they are not honoured.
   */
  async listen(
    params: JsonObject,
    id: RequestId,
    session: ServerSession,
    policy: RevisionPolicy,
    caps: ServerCapabilities,
    signal: AbortSignal,
    acceptTaskIds?: (ids: unknown) => Promise<string[]>,
  ): Promise<JsonObject> {
    const wanted = params.notifications;
    if (typeof wanted !== 'object' || wanted === null || Array.isArray(wanted)) {
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: "notifications" must be an object');
    }
    if (this.#subs.size >= this.#max)
      throw new JsonRpcError(ErrorCode.InternalError, 'Too many open subscriptions');
    const filter = honoured(wanted as SubscriptionFilter, caps);
    const taskIds = (wanted as JsonObject).taskIds;
    if (taskIds !== undefined && acceptTaskIds) filter.taskIds = await acceptTaskIds(taskIds);
    const meta = { [META.subscriptionId]: id };
    await session.notify(
      'notifications/subscriptions/acknowledged',
      { notifications: filter as JsonObject, _meta: meta },
      id,
      policy,
    );
    return new Promise<JsonObject>((resolve) => {
      const sub: Subscription = {
        id,
        session,
        policy,
        filter,
        close: () => {
          this.#subs.delete(sub);
          resolve({ _meta: meta });
        },
      };
      this.#subs.add(sub);
      // A cancelled or disconnected listener is simply forgotten (no result is sent).
      signal.addEventListener('abort', () => this.#subs.delete(sub), { once: true });
    });
  }

  /** Tells subscribers of `kind` that the list changed. */
  listChanged(kind: ListKind, report: (e: unknown) => void): void {
    const key = FILTER_KEY[kind];
    for (const sub of this.#subs) {
      if (!sub.filter[key]) continue;
      sub.session
        .notify(
          `notifications/${kind}/list_changed`,
          { _meta: { [META.subscriptionId]: sub.id } },
          sub.id,
          sub.policy,
        )
        .catch(report);
    }
  }

  /** Tells subscribers of `uri` (or of a parent ending in "/") that the resource changed. */
  resourceUpdated(uri: string, report: (e: unknown) => void): void {
    for (const sub of this.#subs) {
      const list = sub.filter.resourceSubscriptions;
      if (!list?.some((s) => s === uri || (s.endsWith('/') && uri.startsWith(s)))) continue;
      sub.session
        .notify(
          'notifications/resources/updated',
          { uri, _meta: { [META.subscriptionId]: sub.id } },
          sub.id,
          sub.policy,
        )
        .catch(report);
    }
  }

  /** Sends a task's new state (`notifications/tasks`, the full task) to subscribers of its id. */
  taskUpdated(task: { taskId: string }, report: (e: unknown) => void): void {
    for (const sub of this.#subs) {
      if (!sub.filter.taskIds?.includes(task.taskId)) continue;
      const params = { ...task, _meta: { [META.subscriptionId]: sub.id } } as JsonObject;
      sub.session.notify('notifications/tasks', params, sub.id, sub.policy).catch(report);
    }
  }

  /** Ends every subscription gracefully (each gets its empty result). */
  closeAll(): void {
    for (const sub of [...this.#subs]) sub.close();
  }
}

function honoured(wanted: SubscriptionFilter, caps: ServerCapabilities): SubscriptionFilter {
  const out: SubscriptionFilter = {};
  if (wanted.toolsListChanged === true && caps.tools?.listChanged) out.toolsListChanged = true;
  if (wanted.promptsListChanged === true && caps.prompts?.listChanged) out.promptsListChanged = true;
  if (wanted.resourcesListChanged === true && caps.resources?.listChanged) out.resourcesListChanged = true;
  if (Array.isArray(wanted.resourceSubscriptions) && caps.resources?.subscribe) {
    out.resourceSubscriptions = wanted.resourceSubscriptions
      .filter((u): u is string => typeof u === 'string')
      .slice(0, 1000);
  }
  return out;
}
