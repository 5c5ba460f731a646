import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import { statefulPolicy } from '../../../spec/revision.js';
import type { ClusterOptions } from '../../../store/cluster.js';
import type { ServerSession } from '../../dispatch/session.js';
import type { McpServer } from '../../server.js';
import { type ClusterNode, joinCluster } from '../cluster/node.js';
import { applyRecord, changesRecord, recordOf } from '../cluster/session-record.js';
import type { SessionTable } from './session-table.js';
import { HttpSessionTransport } from './session-transport.js';
import type { StreamSettings } from './stream-settings.js';

/**
 * The sessions of a clustered endpoint: the local table is a cache of the shared session store, filled on first
 * sight of a session (one store read) and kept true by the cluster's control channel, so an ordinary request costs
 * no store round trip.
 */
export class ClusteredSessions {
  readonly node: ClusterNode;
  readonly #server: McpServer;
  readonly #table: SessionTable;
  readonly #ttlMs: number;
  /** The server session of each cached transport. */
  readonly #sessions = new Map<string, ServerSession>();
  /** When this instance last restarted each session's time to live in the store. */
  readonly #touched = new Map<string, number>();
  readonly #loading = new Map<string, Promise<HttpSessionTransport | undefined>>();
  #settings: StreamSettings | undefined;
  readonly #leave: () => void;

  constructor(server: McpServer, table: SessionTable, options: ClusterOptions, ttlMs: number) {
    this.#server = server;
    this.#table = table;
    this.#ttlMs = ttlMs;
    const joined = joinCluster(server, options, {
      sessionChanged: (id, record) => {
        const session = this.#sessions.get(id);
        if (session) applyRecord(session, record);
      },
      sessionDeleted: (id) => this.#ended(id),
      deliver: (id, message) => this.#table.peek(id)?.deliverRemote(message),
      // A session whose GET stream another instance holds hears of changes from that one.
      delivers: (session) => {
        const transport = session.peer.transport;
        return (
          !(transport instanceof HttpSessionTransport && transport.clustered) || transport.holdsStandalone
        );
      },
    });
    this.node = joined.node;
    this.#leave = joined.leave;
  }

  /** The stream settings every session transport of the endpoint uses (set once by the endpoint). */
  set settings(settings: StreamSettings) {
    this.#settings = settings;
  }

  /** A session this instance has not seen yet, from the store (undefined when unknown); rejects when unreachable. */
  async load(id: string): Promise<HttpSessionTransport | undefined> {
    await this.node.start();
    let loading = this.#loading.get(id);
    if (!loading) {
      loading = this.#load(id).finally(() => this.#loading.delete(id));
      this.#loading.set(id, loading);
    }
    return loading;
  }

  async #load(id: string): Promise<HttpSessionTransport | undefined> {
    const cached = this.#table.get(id);
    if (cached) return cached;
    const record = await this.node.sessions.get(id);
    const settings = this.#settings;
    // A legacy HTTP+SSE session (`stream` set) is served by the instance holding its stream alone.
    if (
      !record ||
      !settings ||
      record.stream !== undefined ||
      statefulPolicy(record.protocolVersion) === undefined
    )
      return undefined;
    const transport = new HttpSessionTransport(id, id, settings, record.tag);
    const session = await this.#server.connect(transport);
    transport.negotiated = session;
    applyRecord(session, record);
    session.initialized = true;
    session.ready = true;
    transport.owner = record.owner;
    if (!this.#table.add(id, transport)) {
      await transport.close();
      return undefined;
    }
    this.adopt(id, transport, session);
    this.#touched.set(id, Date.now());
    return transport;
  }

  /** Keeps a transport of this instance (a session it opened or loaded). */
  adopt(id: string, transport: HttpSessionTransport, session: ServerSession): void {
    this.#sessions.set(id, session);
    transport.onclosed = () => {
      this.#table.delete(id);
      this.#sessions.delete(id);
      this.#touched.delete(id);
    };
  }

  /** Stores a session just initialized here. */
  async created(id: string, transport: HttpSessionTransport, session: ServerSession): Promise<void> {
    await this.node.start();
    await this.node.sessions.create(id, recordOf(session, transport.tag, transport.owner), this.#ttlMs);
    this.adopt(id, transport, session);
    this.#touched.set(id, Date.now());
  }

  /** After a request of a cached session: restarts its time to live now and then (not on every request). */
  used(id: string): void {
    const now = Date.now();
    if (now - (this.#touched.get(id) ?? 0) < this.#ttlMs / 8) return;
    this.#touched.set(id, now);
    this.node.sessions.touch(id, this.#ttlMs).then(
      (live) => {
        if (!live) this.#ended(id);
      },
      (e: unknown) => this.#server.error(e instanceof Error ? e : new Error(String(e)), undefined),
    );
  }

  /** Whether these messages change the session's record. */
  changes(messages: readonly JsonRpcMessage[]): boolean {
    for (const m of messages) if (changesRecord(m)) return true;
    return false;
  }

  /** Stores a session's record again and tells the other instances. */
  async save(id: string, transport: HttpSessionTransport): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) return;
    const record = recordOf(session, transport.tag, transport.owner);
    if (await this.node.sessions.put(id, record, this.#ttlMs)) await this.node.sessionChanged(id, record);
  }

  /** Ends a session everywhere (DELETE). */
  async delete(id: string): Promise<void> {
    await this.node.sessions.delete(id);
    await this.node.events.dropSession(id);
    await this.node.sessionDeleted(id);
  }

  #ended(id: string): void {
    const transport = this.#table.peek(id);
    this.#table.delete(id);
    if (transport) void transport.close();
  }

  /** Leaves the cluster (the shared stores keep the sessions for the other instances). */
  close(): void {
    this.#leave();
  }
}
