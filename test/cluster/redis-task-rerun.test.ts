// Tasks whose instance died, on a private redis-server with three instances (each its own connections, task store
// and heartbeat): a task of a tool allowing re-runs is started again from its stored request (arguments, principal)
// by exactly one surviving instance, asks again for its input under new keys and completes; a re-run bound reached,
// or a tool without re-runs, or a reader whose store is closed, fails the task as before; an instance only cut off from its heartbeat (alive, not
// dead) sees its run superseded: its handler is aborted and its late result never overwrites the task.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { principalOf } from '../../src/server/handler/auth.js';
import type { DetailedTask } from '../../src/spec/tasks.js';
import { TestRedis } from '../fixtures/redis.js';
import { connect, NAME_SCHEMA, WITH_TASKS } from '../tasks/fixture.js';
import { eventually } from './helpers.js';
import { closeTaskInstances, kill, openTaskInstance, type TaskInstance } from './task-instances.js';

const T = { timeout: 60_000 };
const AUTH = { issuer: 'https://issuer.test', subject: 'ada', scopes: [] };
const PRINCIPAL = 'https://issuer.test|sub:ada';

let redis: TestRedis;

before(async () => {
  redis = await TestRedis.start();
});

after(async () => {
  await redis?.close();
});

afterEach(closeTaskInstances);

/**
 * One instance. Its tools: `rerun` (re-runs: 1) and `once` (none). On a `holding` instance both hold until released
 * (or aborted); elsewhere `rerun` asks a name and answers with what it ran for.
 */
async function instance(name: string, holding: boolean): Promise<TaskInstance> {
  const made = await openTaskInstance(redis.url, name);
  const { server, hold } = made;
  const schema = { type: 'object', properties: { n: { type: 'number' } } } as const;
  server.tool('rerun', { task: { mode: 'required', reruns: 1 }, inputSchema: schema }, async (args, ctx) => {
    made.started.push('rerun');
    if (holding) {
      await hold('rerun', ctx.signal);
      return `${name} finished late`;
    }
    const who = await ctx.elicit({ message: 'Name?', requestedSchema: NAME_SCHEMA });
    return `${name} ran n=${args.n} for ${principalOf(ctx.authInfo)}, named ${String(who.content?.name)}`;
  });
  server.tool('once', { task: 'required' }, async (_args, ctx) => {
    made.started.push('once');
    if (holding) await hold('once', ctx.signal);
    return `${name} ran once`;
  });
  return made;
}

async function client(of: TaskInstance) {
  const { client } = await connect(of.server, {
    capabilities: WITH_TASKS,
    authInfo: AUTH,
    elicitation: () => ({ action: 'accept', content: { name: 'Grace' } }),
  });
  return client;
}

/** Starts `tool` as a task on `on` and waits until its handler runs there. */
async function started(on: TaskInstance, tool: string, args: Record<string, unknown> = {}): Promise<string> {
  const c = await client(on);
  const start = await c.callToolAsTask(tool, args);
  assert.ok(start.task, 'a task');
  await eventually(() => on.started.includes(tool), `${tool} running on ${on.name}`);
  return start.task.taskId;
}

test(
  'a task of a tool allowing re-runs is started again by exactly one surviving instance, and completes',
  T,
  async () => {
    const a = await instance('A', true);
    const b = await instance('B', false);
    const c = await instance('C', false);
    const taskId = await started(a, 'rerun', { n: 7 });
    assert.equal((await b.store.get(taskId))?.status, 'working', 'A is alive: nothing to take over');
    await kill(a);
    // B and C both read it once A is seen dead: one claim wins.
    await eventually(async () => {
      const [fromB, fromC] = await Promise.all([b.store.get(taskId), c.store.get(taskId)]);
      return fromB?.run === 1 && fromC?.run === 1;
    }, 'the claim');
    const record = await b.store.get(taskId);
    assert.equal(record?.rerunsLeft, 0);
    assert.equal(record?.request?.tool, 'rerun');
    assert.deepEqual(record?.request?.arguments, { n: 7 });
    await eventually(() => b.started.length + c.started.length === 1, 'one re-run');
    const winner = b.started.length === 1 ? 'B' : 'C';
    // The client polls any instance; the new run asks again under a key of its own, and finishes.
    const updates: DetailedTask[] = [];
    const result = await (await client(b)).waitForTask(taskId, { onUpdate: (t) => updates.push(t) });
    assert.deepEqual(result.content, [
      { type: 'text', text: `${winner} ran n=7 for ${PRINCIPAL}, named Grace` },
    ]);
    const asked = updates.find((u) => u.status === 'input_required');
    assert.deepEqual(Object.keys(asked?.status === 'input_required' ? asked.inputRequests : {}), [
      'input-1.1',
    ]);
    assert.equal(b.started.length + c.started.length, 1, 'still one re-run');
    assert.deepEqual([...b.errors, ...c.errors], []);
  },
);

test('without re-runs, or with none left, a task whose instance died is failed as before', T, async () => {
  const a = await instance('A', true);
  const b = await instance('B', true);
  const once = await started(a, 'once');
  const rerun = await started(a, 'rerun');
  await kill(a);
  // B is the one survivor (C joins later: a survivor's sweep would otherwise take the re-run as soon as B's read).
  await eventually(async () => (await b.store.get(once))?.status === 'failed', 'once failed');
  assert.match(String((await b.store.get(once))?.error?.message), /instance running this task stopped/);
  // The re-run lands on B, which dies too: its one re-run is spent.
  await eventually(async () => (await b.store.get(rerun))?.run === 1, 'B took it');
  await eventually(() => b.started.includes('rerun'), 'B running it');
  assert.deepEqual(b.started, ['rerun'], 'a tool without re-runs is never started again');
  const c = await instance('C', false);
  await kill(b);
  await eventually(async () => (await c.store.get(rerun))?.status === 'failed', 'rerun failed');
  assert.deepEqual(c.started, [], 'the bound holds');
  const task = await (await client(c)).getTask(rerun);
  assert.equal(task.status, 'failed');
});

test(
  'a reader whose task store is closed (its instance going away) claims nothing: the task fails',
  T,
  async () => {
    const a = await instance('A', true);
    const b = await instance('B', false);
    const taskId = await started(a, 'rerun');
    await kill(a);
    b.store.close();
    await eventually(async () => (await b.store.get(taskId))?.status === 'failed', 'failed');
    assert.deepEqual(b.started, []);
  },
);

test(
  'an instance taken for dead while alive sees its run superseded: aborted, its late result dropped',
  T,
  async () => {
    const a = await instance('A', true);
    const b = await instance('B', false);
    const taskId = await started(a, 'rerun', { n: 1 });
    a.store.close(); // only the heartbeat stops: A still hears the store's changes
    await eventually(async () => (await b.store.get(taskId))?.run === 1, 'B took it');
    await eventually(() => a.aborted.length === 1, 'A aborted');
    assert.match(a.aborted[0] ?? '', /started again on another instance/);
    const result = await (await client(b)).waitForTask(taskId);
    assert.deepEqual(result.content, [{ type: 'text', text: `B ran n=1 for ${PRINCIPAL}, named Grace` }]);
    a.release();
    const final = await b.store.get(taskId);
    assert.equal(final?.status, 'completed');
    assert.equal(final?.run, 1);
  },
);
