import { toError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import type { MessageContext } from '../../../protocol/transport.js';
import type { ClusterOptions } from '../../../store/cluster.js';
import type { SessionRecord } from '../../../store/session-store.js';
import type { ServerSession } from '../../dispatch/session.js';
import { principalOf } from '../../handler/auth.js';
import type { McpServer } from '../../server.js';
import type { HandOff } from '../cluster/inbox.js';
import { type ClusterNode, joinCluster } from '../cluster/node.js';
import { recordOf } from '../cluster/session-record.js';
import type { LegacySseTransport } from './transport.js';

/** How long the shared store keeps a legacy session's record unrefreshed (its holder refreshes it at a quarter). */
const RECORD_TTL_MS = 30 * 60_000;
/** Most routes to other instances' sessions remembered (the oldest are read from the store again). */
const MAX_ROUTES = 10_000;

/** Where a legacy session of another instance lives. */
export interface LegacyRoute {
  /** The instance holding the session's stream. */
  readonly instance: string;
  /** The principal that opened it. */
  readonly owner: string | undefined;
}

/**
 * The legacy HTTP+SSE sessions of a clustered endpoint. A session lives on the instance holding its GET stream,
 * which stores its record (with `stream` naming that instance) for as long as the stream is open; a message POSTed
 * to any other instance is handed there through the cluster's bus, and the POST is answered once that instance has
 * taken it. Routes are learnt from the store once per session and dropped when the session ends.
 */
export class ClusteredLegacySessions {
  readonly node: ClusterNode;
  readonly #server: McpServer;
  /** The endpoint's own sessions (the streams this instance holds). */
  readonly #local: ReadonlyMap<string, LegacySseTransport>;
  readonly #sessions = new Map<string, ServerSession>();
  readonly #routes = new Map<string, LegacyRoute>();
  readonly #leave: () => void;
  readonly #refresh: ReturnType<typeof setInterval>;
  /** Sessions being deleted from the store (awaited by `close`). */
  readonly #ending = new Set<Promise<void>>();

  constructor(server: McpServer, options: ClusterOptions, local: ReadonlyMap<string, LegacySseTransport>) {
    this.#server = server;
    this.#local = local;
    const joined = joinCluster(server, options, {
      sessionDeleted: (id) => this.#routes.delete(id),
      accept: (id, message, authInfo) => this.#accept(id, message, authInfo),
    });
    this.node = joined.node;
    this.#leave = joined.leave;
    this.#refresh = setInterval(() => this.#refreshAll(), RECORD_TTL_MS / 4);
    (this.#refresh as { unref?: () => void }).unref?.();
  }

  /** Stores a session whose stream opens here, before its client learns the endpoint; rejects when unreachable. */
  async opened(transport: LegacySseTransport, session: ServerSession): Promise<void> {
    await this.node.start();
    const id = transport.sessionId;
    await this.node.sessions.create(id, this.#record(transport, session), RECORD_TTL_MS);
    if (transport.closed) {
      // Closed meanwhile (the endpoint shutting down): its record must not outlive it.
      await this.node.sessions.delete(id);
      return;
    }
    this.#sessions.set(id, session);
    transport.onrecordchanged = () => this.#save(transport);
  }

  /** A session's stream closed: it ends everywhere. */
  closed(id: string): void {
    if (!this.#sessions.delete(id)) return;
    const ending = this.node.sessions
      .delete(id)
      .then(() => this.node.sessionDeleted(id))
      .then(
        () => undefined,
        (e: unknown) => this.#error(e),
      )
      .finally(() => this.#ending.delete(ending));
    this.#ending.add(ending);
  }

  /** Where a session this instance does not hold lives (undefined: unknown or expired); rejects when unreachable. */
  async route(id: string): Promise<LegacyRoute | undefined> {
    const known = this.#routes.get(id);
    if (known !== undefined) return known;
    await this.node.start();
    const record = await this.node.sessions.get(id);
    if (record?.stream === undefined) return undefined;
    const route: LegacyRoute = { instance: record.stream, owner: record.owner };
    this.#routes.set(id, route);
    if (this.#routes.size > MAX_ROUTES) {
      const oldest = this.#routes.keys().next();
      if (!oldest.done) this.#routes.delete(oldest.value);
    }
    return route;
  }

  /** Hands a POSTed message to the instance holding the session; a session found gone there is forgotten here. */
  async handOff(
    id: string,
    route: LegacyRoute,
    message: JsonRpcMessage,
    authInfo: unknown,
  ): Promise<HandOff> {
    const outcome = await this.node.handOff(route.instance, id, message, authInfo);
    if (outcome === 'refused' || outcome === 'gone') this.#routes.delete(id);
    return outcome;
  }

  /** Leaves the cluster once the sessions of this instance's streams (closed first) are deleted from the store. */
  async close(): Promise<void> {
    clearInterval(this.#refresh);
    await Promise.all([...this.#ending]);
    this.#leave();
  }

  /** A message another instance handed here: delivered when the session's stream is here and the principal its owner. */
  #accept(id: string, message: JsonRpcMessage, authInfo: unknown): boolean {
    const transport = this.#local.get(id);
    if (!transport || transport.closed || transport.owner !== principalOf(authInfo)) return false;
    const context: MessageContext = { sessionId: id };
    if (authInfo !== undefined) context.authInfo = authInfo;
    transport.deliver(message, context);
    return true;
  }

  #record(transport: LegacySseTransport, session: ServerSession): SessionRecord {
    const record = recordOf(session, '', transport.owner);
    record.stream = this.node.instance;
    return record;
  }

  /** Stores a session's record again (after initialize, a log level, a subscription). */
  #save(transport: LegacySseTransport): void {
    const session = this.#sessions.get(transport.sessionId);
    if (session === undefined) return;
    this.node.sessions
      .put(transport.sessionId, this.#record(transport, session), RECORD_TTL_MS)
      .catch((e: unknown) => this.#error(e));
  }

  /** Keeps the records of the open streams alive; one lost from the store (a Redis restart) is stored again. */
  #refreshAll(): void {
    for (const [id, session] of this.#sessions) {
      const transport = this.#local.get(id);
      if (transport === undefined) continue;
      this.node.sessions
        .touch(id, RECORD_TTL_MS)
        .then((live) =>
          live || transport.closed
            ? undefined
            : this.node.sessions.create(id, this.#record(transport, session), RECORD_TTL_MS),
        )
        .catch((e: unknown) => this.#error(e));
    }
  }

  #error(e: unknown): void {
    this.#server.error(toError(e), undefined);
  }
}
