// The sweep of dead instances' tasks, on a private redis-server with instances that each have their own connections,
// task store and heartbeat: nobody reads the task (no tasks/get, no listen asking for it after the death), yet a
// `subscriptions/listen` stream opened on another instance while the task ran hears it become failed, or started
// again and completed; each sweep handles a bounded batch, and the instance's index empties. A graceful shutdown
// releases a re-runnable task to another instance instead of failing it, and still fails the others.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { RedisConnection } from '../../src/redis/connection.js';
import { RedisTaskStore } from '../../src/redis/task-store.js';
import type { TaskRecord } from '../../src/store/task-record.js';
import { TestRedis } from '../fixtures/redis.js';
import { connect, WITH_TASKS } from '../tasks/fixture.js';
import { eventually } from './helpers.js';
import { closeTaskInstances, kill, openTaskInstance, type TaskInstance } from './task-instances.js';

const T = { timeout: 60_000 };
const AUTH = { issuer: 'https://issuer.test', subject: 'ada', scopes: [] };
const PREFIX = 'mcpkit:';

let redis: TestRedis;
let admin: RedisConnection;

before(async () => {
  redis = await TestRedis.start();
  admin = await RedisConnection.open(redis.url);
});

after(async () => {
  await admin?.close();
  await redis?.close();
});

afterEach(async () => {
  await closeTaskInstances();
  await admin.command.flushall();
});

/**
 * One instance. Its tools: `rerun` (re-runs: 1) and `once` (none); on a `holding` instance both hold until released
 * or aborted, elsewhere they answer at once with the instance's name.
 */
async function instance(name: string, holding: boolean, sweepBatch?: number): Promise<TaskInstance> {
  const made = await openTaskInstance(redis.url, name, sweepBatch === undefined ? {} : { sweepBatch });
  const server = made.server;
  const run = async (tool: string, signal: AbortSignal) => {
    made.started.push(tool);
    if (holding) await made.hold(tool, signal);
    return `${tool} done by ${name}`;
  };
  server.tool('rerun', { task: { mode: 'required', reruns: 1 } }, (_args, ctx) => run('rerun', ctx.signal));
  server.tool('once', { task: 'required' }, (_args, ctx) => run('once', ctx.signal));
  return made;
}

/** A client of `on` (in memory) whose `notifications/tasks` land in `notes`. */
async function client(on: TaskInstance, notes: JsonObject[] = []) {
  const { client } = await connect(on.server, {
    capabilities: WITH_TASKS,
    authInfo: AUTH,
    onnotification: (n) => {
      if (n.method === 'notifications/tasks') notes.push(n.params as JsonObject);
    },
  });
  return client;
}

/** Starts `tool` as a task on `on` and waits until its handler runs there. */
async function started(on: TaskInstance, tool: string): Promise<string> {
  const c = await client(on);
  const start = await c.callToolAsTask(tool, {});
  assert.ok(start.task, 'a task');
  await eventually(() => on.started.includes(tool), `${tool} running on ${on.name}`);
  return start.task.taskId;
}

/** Opens a listen on `on` for `taskIds` (while their instance is alive) and gives the notes it hears. */
async function listening(on: TaskInstance, taskIds: string[]): Promise<JsonObject[]> {
  const notes: JsonObject[] = [];
  const sub = (await client(on, notes)).listen({ taskIds });
  assert.deepEqual((await sub.honoured).taskIds, taskIds);
  return notes;
}

/** The task as stored, read straight from Redis (not through a store: reading it would handle it). */
async function raw(taskId: string): Promise<TaskRecord | undefined> {
  const text = await admin.command.get(`${PREFIX}t:${taskId}`);
  return text === null ? undefined : (JSON.parse(text) as TaskRecord);
}

function statuses(notes: JsonObject[], taskId: string): string[] {
  return notes.filter((n) => n.taskId === taskId).map((n) => `${n.status}: ${n.statusMessage ?? ''}`);
}

test(
  'a dead instance’s tasks nobody reads: a listener elsewhere hears one fail and the other run again and complete',
  T,
  async () => {
    const a = await instance('A', true);
    const b = await instance('B', false);
    const once = await started(a, 'once');
    const rerun = await started(a, 'rerun');
    const index = `${PREFIX}ti:${a.store.instance}`;
    assert.deepEqual((await admin.command.zrange(index, '0', '-1')).sort(), [once, rerun].sort());
    assert.ok((await admin.command.pttl(index)) > 0, 'the index expires with its tasks');
    const notes = await listening(b, [once, rerun]);
    await kill(a);
    await eventually(
      () => notes.some((n) => n.taskId === once && n.status === 'failed'),
      `once failed (heard: ${JSON.stringify(notes)})`,
    );
    const failed = notes.find((n) => n.taskId === once && n.status === 'failed');
    assert.match(
      String((failed?.error as JsonObject | undefined)?.message),
      /instance running this task stopped/,
    );
    await eventually(
      () => notes.some((n) => n.taskId === rerun && n.status === 'completed'),
      `rerun completed (heard: ${JSON.stringify(notes)})`,
    );
    const done = notes.find((n) => n.taskId === rerun && n.status === 'completed');
    assert.deepEqual((done?.result as JsonObject | undefined)?.content, [
      { type: 'text', text: 'rerun done by B' },
    ]);
    assert.ok(
      statuses(notes, rerun).includes('working: Started again: the server instance running it stopped'),
      statuses(notes, rerun).join(', '),
    );
    assert.deepEqual(b.started, ['rerun'], 'once is never started again; rerun once, on B');
    // The dead instance's index is gone, and so is the instance from the set of those with one.
    await eventually(async () => (await admin.command.exists(index)) === 0, 'the index emptied');
    await eventually(
      async () => (await admin.command.sismember(`${PREFIX}tinst`, a.store.instance)) === 0,
      'A forgotten',
    );
    // B's index held its run, and lost it when the task completed.
    assert.equal(await admin.command.exists(`${PREFIX}ti:${b.store.instance}`), 0);
    assert.deepEqual(b.errors, []);
  },
);

test(
  'one sweep handles at most sweepBatch tasks of each dead instance, under a lease only one instance holds',
  T,
  async () => {
    const a = await instance('A', true);
    const z = await instance('Z', true);
    const y = await instance('Y', true);
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) ids.push(await started(a, 'once'));
    const zs = await started(z, 'once');
    const leased = await started(y, 'once');
    for (const dead of [a, z, y]) await kill(dead);
    // A store whose own timer never fires within the test: only the sweeps called here run.
    const connection = await RedisConnection.open(redis.url);
    const store = new RedisTaskStore(connection, { heartbeatMs: 600_000, sweepBatch: 2 });
    const rerunAsked: string[] = [];
    const unadopt = store.adopt({
      canRerun: (r) => {
        rerunAsked.push(r.taskId);
        return false;
      },
      rerun: () => assert.fail('nothing is re-run'),
    });
    try {
      for (const dead of [a, z, y])
        await eventually(
          async () => (await admin.command.exists(`${PREFIX}alive:${dead.store.instance}`)) === 0,
          `${dead.name} dead`,
        );
      // Another instance holds Y's sweep lease: this one leaves Y's task alone.
      await admin.command.set(`${PREFIX}tsw:${y.store.instance}`, 'someone', 'PX', 60_000);
      const counts: number[] = [];
      for (let n = 0; n < 4; n++) counts.push(await store.sweep());
      assert.deepEqual(counts, [3, 2, 1, 0], 'a batch of A and Z’s one in the first sweep');
      for (const id of [...ids, zs]) assert.equal((await raw(id))?.status, 'failed', id);
      assert.equal((await raw(leased))?.status, 'working', 'under another sweeper’s lease');
      await admin.command.del(`${PREFIX}tsw:${y.store.instance}`);
      assert.equal(await store.sweep(), 1);
      assert.equal((await raw(leased))?.status, 'failed');
      assert.deepEqual(rerunAsked.sort(), [...ids, zs, leased].sort());
      for (const dead of [a, z, y]) {
        assert.equal(await admin.command.exists(`${PREFIX}ti:${dead.store.instance}`), 0);
        assert.equal(
          await admin.command.exists(`${PREFIX}tsw:${dead.store.instance}`),
          0,
          'the lease given back',
        );
      }
      assert.equal(await store.sweep(), 0);
      assert.equal(await admin.command.scard(`${PREFIX}tinst`), 0, 'no instance left to sweep');
    } finally {
      unadopt();
      store.close();
      await connection.close();
    }
  },
);

test(
  'a graceful shutdown releases a task with re-runs left to another instance, and fails one without',
  T,
  async () => {
    const a = await instance('A', true);
    const b = await instance('B', false);
    const once = await started(a, 'once');
    const rerun = await started(a, 'rerun');
    const notes = await listening(b, [once, rerun]);
    await a.server.close();
    // Its handlers were stopped; the re-runnable task is not failed, it waits for another instance.
    assert.equal(a.aborted.length, 2, a.aborted.join(', '));
    assert.equal((await raw(once))?.status, 'failed');
    assert.match(String((await raw(once))?.error?.message), /server shut down/);
    await eventually(
      () => notes.some((n) => n.taskId === rerun && n.status === 'completed'),
      `rerun completed (heard: ${JSON.stringify(notes)})`,
    );
    assert.ok(!statuses(notes, rerun).some((s) => s.startsWith('failed')), statuses(notes, rerun).join(', '));
    assert.deepEqual(b.started, ['rerun']);
    const final = await raw(rerun);
    assert.equal(final?.run, 1);
    assert.equal(final?.rerunsLeft, 0);
    assert.deepEqual(b.errors, []);
    assert.deepEqual(a.errors, []);
  },
);

test(
  'a released task waits for an instance that can run it: a read where none can leaves it, a new instance takes it',
  T,
  async () => {
    const a = await instance('A', true);
    const rerun = await started(a, 'rerun');
    await a.server.close();
    // A's store is still open, without a task manager (a request still in flight there): it leaves the task be.
    const left = await a.store.get(rerun);
    assert.equal(left?.status, 'working');
    assert.equal(left?.run, undefined, 'not started again yet');
    // The next instance of a rolling deploy comes up: its sweep takes the task, nobody reading it.
    const b = await instance('B', false);
    await eventually(async () => (await raw(rerun))?.status === 'completed', 'completed by B');
    assert.deepEqual((await raw(rerun))?.result?.content, [{ type: 'text', text: 'rerun done by B' }]);
    assert.deepEqual(b.started, ['rerun']);
  },
);

test('a graceful shutdown with no re-runs left fails the task, as before', T, async () => {
  const a = await instance('A', true);
  const b = await instance('B', true);
  const rerun = await started(a, 'rerun');
  await kill(a);
  await eventually(() => b.started.includes('rerun'), 'B running its one re-run');
  await b.server.close();
  const record = await raw(rerun);
  assert.equal(record?.status, 'failed');
  assert.match(String(record?.error?.message), /server shut down/);
});

test(
  'a dead instance’s expired tasks leave its index without being read, and the instance the set',
  T,
  async () => {
    const a = await instance('A', true);
    a.server.tool('brief', { task: { mode: 'required', ttlMs: 300 } }, async (_args, ctx) => {
      a.started.push('brief');
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      return 'never';
    });
    const id = await started(a, 'brief');
    const index = `${PREFIX}ti:${a.store.instance}`;
    const pttl = await admin.command.pttl(index);
    assert.ok(pttl > 0 && pttl <= 300, `the index expires with its one task (${pttl} ms)`);
    await kill(a);
    const connection = await RedisConnection.open(redis.url);
    const store = new RedisTaskStore(connection, { heartbeatMs: 600_000 });
    const asked: string[] = [];
    const unadopt = store.adopt({
      canRerun: (r) => {
        asked.push(r.taskId);
        return false;
      },
      rerun: () => assert.fail('nothing is re-run'),
    });
    try {
      await eventually(async () => (await raw(id)) === undefined, 'the task expired');
      assert.equal(await store.sweep(), 0);
      assert.deepEqual(asked, [], 'an expired task is not read');
      assert.equal(await admin.command.exists(index), 0);
      assert.equal(await admin.command.sismember(`${PREFIX}tinst`, a.store.instance), 0);
    } finally {
      unadopt();
      store.close();
      await connection.close();
    }
  },
);
