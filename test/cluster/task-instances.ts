// Instances of a cluster's task side for the Redis task tests (re-runs, the sweep): each with its own Redis
// connection, task store (a 100 ms heartbeat) and McpServer, what its handlers did, and the means to hold them and
// to kill the instance. The tests add their own tools.
import { RedisConnection } from '../../src/redis/connection.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from '../../src/redis/task-store.js';
import { McpServer } from '../../src/server/server.js';

export interface TaskInstance {
  readonly name: string;
  readonly server: McpServer;
  readonly store: RedisTaskStore;
  readonly connection: RedisConnection;
  /** The tools whose handlers started here, in order. */
  readonly started: string[];
  /** `<tool>: <reason>` of each handler aborted while held. */
  readonly aborted: string[];
  /** What the server reported to its `onerror`. */
  readonly errors: Error[];
  /** Lets this instance's held handlers return. */
  release(): void;
  /** Holds a handler of `tool` until released or aborted (an abort is recorded in `aborted`). */
  hold(tool: string, signal: AbortSignal): Promise<void>;
}

const open: TaskInstance[] = [];

/** Opens an instance on the Redis at `url`; {@link closeTaskInstances} closes it. */
export async function openTaskInstance(
  url: string,
  name: string,
  storeOptions: RedisTaskStoreOptions = {},
): Promise<TaskInstance> {
  const connection = await RedisConnection.open(url);
  const store = new RedisTaskStore(connection, { heartbeatMs: 100, ...storeOptions });
  const errors: Error[] = [];
  const server = new McpServer(
    { name, version: '1' },
    { tasks: { store, pollIntervalMs: 20 }, onerror: (e) => errors.push(e) },
  );
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const aborted: string[] = [];
  const hold = (tool: string, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => {
        aborted.push(`${tool}: ${String((signal.reason as Error)?.message)}`);
        resolve();
      });
      released.then(resolve);
    });
  const made: TaskInstance = { name, server, store, connection, started: [], aborted, errors, release, hold };
  open.push(made);
  return made;
}

/** Closes every instance opened since the last call (an `afterEach`). */
export async function closeTaskInstances(): Promise<void> {
  for (const i of open.splice(0)) {
    i.release();
    i.store.close();
    await i.server.close().catch(() => undefined);
    await i.connection.close();
  }
}

/** The instance dies: no more heartbeats, and its connections are gone (a dead process writes nothing). */
export async function kill(i: TaskInstance): Promise<void> {
  i.store.close();
  await i.connection.close();
}
