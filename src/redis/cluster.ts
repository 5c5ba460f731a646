import { randomBase64url } from '../framing/base64url.js';
import type { ClusterOptions } from '../store/cluster.js';
import { RedisBus } from './bus.js';
import { RedisConnection, type RedisConnectionOptions } from './connection.js';
import { RedisEventStore, type RedisEventStoreOptions } from './event-store.js';
import { RedisSessionStore } from './session-store.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from './task-store.js';

/** Options of {@link redisCluster}. */
export interface RedisClusterOptions extends RedisConnectionOptions, RedisEventStoreOptions {
  /** This instance's id (8 base64url characters). Default: random. */
  instanceId?: string;
  /** Heartbeat interval in ms (an instance silent for three is taken for dead). Default 1000. */
  heartbeatMs?: number;
  /** Most tasks of a dead instance one sweep of the task store handles (see {@link RedisTaskStoreOptions}). Default 64. */
  sweepBatch?: number;
}

/** Every store of one instance on one Redis: pass it as an endpoint's `cluster`, and `tasks` as the tasks store. */
export interface RedisCluster extends ClusterOptions {
  readonly instanceId: string;
  readonly sessions: RedisSessionStore;
  readonly events: RedisEventStore;
  readonly bus: RedisBus;
  /** The tasks extension's store (`new McpServer(info, { tasks: { store: cluster.tasks } })`). */
  readonly tasks: RedisTaskStore;
  /** The connections, for other stores on the same Redis (rate limits). */
  readonly connection: RedisConnection;
  /** Closes the connections (close the endpoints first). */
  close(): Promise<void>;
}

/**
 * Connects one instance to the Redis at `url` and gives its stores: sessions, resumable streams, the message bus and
 * tasks. Several instances given the same Redis (and the same `requestStateKey`) serve any request of any session
 * behind a load balancer without affinity.
 *
 * @example
 * const cluster = await redisCluster('redis://127.0.0.1:6379');
 * const server = new McpServer(info, { tasks: { store: cluster.tasks } });
 * await serve(server, { port: 3000, cluster });
 */
export async function redisCluster(url: string, options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const connection = await RedisConnection.open(url, options);
  const instanceId = options.instanceId ?? randomBase64url(6);
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const tasks = new RedisTaskStore(connection, {
    instanceId,
    heartbeatMs,
    ...(options.sweepBatch === undefined ? {} : { sweepBatch: options.sweepBatch }),
  });
  return {
    instanceId,
    heartbeatMs,
    sessions: new RedisSessionStore(connection),
    events: new RedisEventStore(connection, options),
    bus: new RedisBus(connection),
    tasks,
    connection,
    async close() {
      tasks.close();
      await connection.close();
    },
  };
}
