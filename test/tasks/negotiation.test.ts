// The tasks extension (io.modelcontextprotocol/tasks) end to end over the in-memory pair: when a task is
// returned at all (per-request capability, 'optional' vs 'required'), discover, durable creation, the
// error codes of tasks/*, principal binding, listen with taskIds, and the stateful era ignoring tasks.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { ErrorCode, JsonRpcError, McpkitError } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { McpServer } from '../../src/server/server.js';
import { META, TASKS_EXTENSION } from '../../src/spec/modern.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { connectInMemory } from '../../src/testing.js';
import {
  connect,
  createTaskServer,
  eventually,
  gate,
  handlers,
  newObserved,
  type Observed,
  WITH_TASKS,
  WITHOUT_TASKS,
} from './fixture.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function isRpcError(code: number) {
  return (e: unknown) => e instanceof JsonRpcError && e.code === code;
}

const servers: McpServer[] = [];
const observers: Observed[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  const errors = observers.splice(0).flatMap((o) => o.errors.map((e) => e.message));
  assert.deepEqual(errors, [], 'the server reported no problems');
});

function server(options = {}) {
  const observed = newObserved();
  observers.push(observed);
  const s = createTaskServer(observed, options);
  servers.push(s);
  return { server: s, observed };
}

describe('tasks extension: negotiation and creation', () => {
  test('server/discover advertises the extension when tasks are on, and only then', async () => {
    const { server: on } = server();
    const { client } = await connect(on, { capabilities: WITH_TASKS });
    const extensions = client.serverCapabilities?.extensions as JsonObject | undefined;
    assert.deepEqual(extensions?.[TASKS_EXTENSION], {});
    assert.equal(on.capabilities.extensions, undefined, 'initialize never advertises it');

    const off = new McpServer({ name: 'no-tasks', version: '1' });
    servers.push(off);
    off.tool('t', {}, () => 'x');
    const { client: other } = await connect(off, { capabilities: WITH_TASKS });
    assert.equal(other.serverCapabilities?.extensions, undefined);
  });

  test('a tool with a task option turns the extension on by itself; tasks: false turns it off', async () => {
    const auto = new McpServer({ name: 'auto', version: '1' });
    servers.push(auto);
    auto.tool('t', { task: 'optional' }, () => 'x');
    const { client } = await connect(auto, { capabilities: WITH_TASKS });
    assert.ok((client.serverCapabilities?.extensions as JsonObject | undefined)?.[TASKS_EXTENSION]);
    const started = await client.callToolAsTask('t');
    assert.ok(started.task, 'a task');

    const off = new McpServer({ name: 'off', version: '1' }, { tasks: false });
    servers.push(off);
    off.tool('t', { task: 'required' }, () => 'ran normally');
    const { client: c2 } = await connect(off, { capabilities: WITH_TASKS });
    assert.equal(c2.serverCapabilities?.extensions, undefined);
    const plain = await c2.callToolAsTask('t');
    assert.equal(plain.task, undefined);
    assert.deepEqual(plain.result?.content, [{ type: 'text', text: 'ran normally' }]);
  });

  test('a task is returned only when the request declares the capability', async () => {
    const { server: s } = server();
    const { client, wire } = await connect(s, { capabilities: WITH_TASKS });
    const started = await client.callToolAsTask('build', { ms: 0 });
    assert.ok(started.task);
    const task = started.task;
    assert.equal(task.status, 'working');
    assert.match(task.taskId, /^[0-9a-f-]{36}$/);
    assert.match(task.createdAt, ISO);
    assert.match(task.lastUpdatedAt, ISO);
    assert.equal(task.ttlMs, 3_600_000);
    assert.equal(task.pollIntervalMs, 10);
    const raw = wire.results().find((r) => r.taskId === task.taskId);
    assert.equal(raw?.resultType, 'task');
    assert.ok((raw?._meta as JsonObject | undefined)?.[META.serverInfo]);
    assert.equal('content' in (raw ?? {}), false);

    const { client: without, wire: w2 } = await connect(s, { capabilities: WITHOUT_TASKS });
    const direct = await without.callToolAsTask('build', { ms: 0 });
    assert.equal(direct.task, undefined);
    assert.deepEqual(direct.result?.structuredContent, { ms: 0 });
    assert.ok(w2.results().every((r) => r.resultType !== 'task'));
  });

  test('a tool without a task option never becomes a task', async () => {
    const { server: s } = server();
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    const started = await client.callToolAsTask('plain');
    assert.equal(started.task, undefined);
    assert.deepEqual(started.result?.content, [{ type: 'text', text: 'plain result' }]);
  });

  test("'required' without the capability: -32021 naming the extension", async () => {
    const { server: s } = server();
    const { client } = await connect(s, { capabilities: WITHOUT_TASKS });
    await assert.rejects(client.callTool('deploy'), (e: unknown) => {
      assert.ok(e instanceof JsonRpcError);
      assert.equal(e.code, ErrorCode.MissingClientCapability);
      assert.deepEqual(e.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
      return true;
    });
  });

  test('legacy `tasks` capabilities do not count as the extension', async () => {
    const { server: s } = server();
    const { client } = await connect(s, { capabilities: { ...WITHOUT_TASKS, tasks: { requests: {} } } });
    await assert.rejects(client.callTool('deploy'), isRpcError(ErrorCode.MissingClientCapability));
    const started = await client.callToolAsTask('build', { ms: 0 });
    assert.equal(started.task, undefined);
  });

  test('the task exists before the CreateTaskResult arrives (durable creation)', async () => {
    const { server: s, observed } = server();
    gate(observed, 'durable');
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    const started = await client.callToolAsTask('hold', { key: 'durable' });
    assert.ok(started.task);
    // The very next request already finds it.
    const seen = await client.getTask(started.task.taskId);
    assert.equal(seen.taskId, started.task.taskId);
    assert.ok(seen.status === 'working' || seen.status === 'input_required');
    observed.gates.get('durable')?.release();
  });

  test('a full store: optional tools run as ordinary calls, required ones get -32603', async () => {
    const observed = newObserved();
    observers.push(observed);
    const s = createTaskServer(observed, {
      tasks: { store: new MemoryTaskStore({ maxTasks: 1 }), pollIntervalMs: 10 },
    });
    servers.push(s);
    gate(observed, 'full');
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    const first = await client.callToolAsTask('hold', { key: 'full' });
    assert.ok(first.task);
    const second = await client.callToolAsTask('build', { ms: 0 });
    assert.equal(second.task, undefined, 'served inline');
    assert.deepEqual(second.result?.structuredContent, { ms: 0 });
    await assert.rejects(client.callTool('deploy'), isRpcError(ErrorCode.InternalError));
    observed.gates.get('full')?.release();
  });
});

describe('tasks extension: tasks/* methods and their errors', () => {
  test('tasks/get answers resultType "complete" with the detailed task', async () => {
    const { server: s } = server();
    const { client, wire } = await connect(s, { capabilities: WITH_TASKS });
    const started = await client.callToolAsTask('build', { ms: 0 });
    const id = started.task?.taskId ?? '';
    await eventually(async () => (await client.getTask(id)).status === 'completed', 'completion');
    const raw = wire
      .results()
      .filter((r) => r.taskId === id)
      .at(-1);
    assert.ok(raw);
    assert.equal(raw.resultType, 'complete');
    assert.equal(raw.status, 'completed');
    assert.deepEqual((raw.result as JsonObject).structuredContent, { ms: 0 });
  });

  test('unknown ids: -32602 on get, update and cancel', async () => {
    const { server: s } = server();
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    await assert.rejects(client.getTask('no-such-task'), isRpcError(ErrorCode.InvalidParams));
    await assert.rejects(client.updateTask('no-such-task', { k: {} }), isRpcError(ErrorCode.InvalidParams));
    await assert.rejects(client.cancelTask('no-such-task'), isRpcError(ErrorCode.InvalidParams));
    await assert.rejects(client.request('tasks/get', {}), isRpcError(ErrorCode.InvalidParams));
  });

  test('an expired task is gone (-32602) and its handler is stopped', async () => {
    const { server: s, observed } = server();
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    const started = await client.callToolAsTask('short_lived');
    assert.equal(started.task?.ttlMs, 60);
    await eventually(() => observed.gates.get('short_lived')?.aborted === true, 'the handler to be stopped');
    await assert.rejects(client.getTask(started.task?.taskId ?? ''), isRpcError(ErrorCode.InvalidParams));
  });

  test('tasks/result and tasks/list do not exist: -32601', async () => {
    const { server: s } = server();
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    const started = await client.callToolAsTask('build', { ms: 0 });
    for (const method of ['tasks/result', 'tasks/list']) {
      await assert.rejects(
        client.request(method, { taskId: started.task?.taskId ?? '' }),
        isRpcError(ErrorCode.MethodNotFound),
        method,
      );
    }
  });

  test('a client without the capability calling tasks/*: -32021', async () => {
    const { server: s } = server();
    const { client: owner } = await connect(s, { capabilities: WITH_TASKS });
    const started = await owner.callToolAsTask('build', { ms: 0 });
    const taskId = started.task?.taskId ?? '';
    const { client } = await connect(s, { capabilities: WITHOUT_TASKS });
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      await assert.rejects(client.request(method, params), (e: unknown) => {
        assert.ok(e instanceof JsonRpcError, method);
        assert.equal(e.code, ErrorCode.MissingClientCapability);
        assert.deepEqual((e.data as JsonObject).requiredCapabilities, {
          extensions: { [TASKS_EXTENSION]: {} },
        });
        return true;
      });
    }
    // The typed helpers refuse locally.
    await assert.rejects(
      client.getTask(taskId),
      (e: unknown) => e instanceof McpkitError && e.code === 'CAPABILITY_MISSING',
    );
  });

  test('a server without tasks answers tasks/* with -32601', async () => {
    const off = new McpServer({ name: 'off', version: '1' });
    servers.push(off);
    off.tool('t', {}, () => 'x');
    const { client } = await connect(off, { capabilities: WITH_TASKS });
    await assert.rejects(client.getTask('x'), isRpcError(ErrorCode.MethodNotFound));
  });

  test('tasks are bound to the principal: another one (or none) gets -32602', async () => {
    const { server: s, observed } = server();
    gate(observed, 'mine');
    const { client: alice } = await connect(s, { capabilities: WITH_TASKS, authInfo: { sub: 'alice' } });
    const { client: bob } = await connect(s, { capabilities: WITH_TASKS, authInfo: { sub: 'bob' } });
    const { client: anonymous } = await connect(s, { capabilities: WITH_TASKS });
    const { client: aliceApp } = await connect(s, {
      capabilities: WITH_TASKS,
      authInfo: { clientId: 'alice' },
    });
    const started = await alice.callToolAsTask('hold', { key: 'mine' });
    const id = started.task?.taskId ?? '';
    assert.equal((await alice.getTask(id)).taskId, id);
    // The client "alice" (a client-credentials token) is not the user "alice".
    for (const other of [bob, anonymous, aliceApp]) {
      await assert.rejects(other.getTask(id), isRpcError(ErrorCode.InvalidParams));
      await assert.rejects(other.updateTask(id, {}), isRpcError(ErrorCode.InvalidParams));
      await assert.rejects(other.cancelTask(id), isRpcError(ErrorCode.InvalidParams));
    }
    // A client id stands in for the principal when there is no subject: its own tasks are its own.
    const own = (await aliceApp.callToolAsTask('build', { ms: 0 })).task?.taskId ?? '';
    assert.equal((await aliceApp.getTask(own)).taskId, own);
    await assert.rejects(alice.getTask(own), isRpcError(ErrorCode.InvalidParams));
    assert.notEqual((await alice.getTask(id)).status, 'cancelled', "bob's cancel did nothing");
    observed.gates.get('mine')?.release();
    await alice.waitForTask(id);
  });
});

describe('tasks extension: subscriptions/listen with taskIds', () => {
  test('acknowledges the caller’s known ids, then sends notifications/tasks on every change', async () => {
    const { server: s } = server();
    const notes: JsonObject[] = [];
    const { client } = await connect(s, {
      capabilities: WITH_TASKS,
      authInfo: { sub: 'alice' },
      ...handlers({ elicitations: 0, samplings: 0 }),
      onnotification: (n) => {
        if (n.method === 'notifications/tasks') notes.push(n.params as JsonObject);
      },
    });
    const { client: bob } = await connect(s, { capabilities: WITH_TASKS, authInfo: { sub: 'bob' } });
    const bobs = await bob.callToolAsTask('build', { ms: 0 });
    const started = await client.callToolAsTask('ask');
    const id = started.task?.taskId ?? '';
    const sub = client.listen({
      taskIds: [id, 'unknown-id', bobs.task?.taskId ?? '', 42 as unknown as string],
    });
    const honoured = await sub.honoured;
    assert.deepEqual(honoured.taskIds, [id]);

    await eventually(() => notes.some((n) => n.status === 'input_required'), 'input_required to be pushed');
    const waiting = notes.find((n) => n.status === 'input_required');
    assert.ok(waiting);
    assert.equal(waiting.taskId, id);
    assert.ok((waiting.inputRequests as JsonObject)['input-1'], 'the full task, with its input requests');
    assert.equal(typeof (waiting._meta as JsonObject)[META.subscriptionId], 'number');

    const result = await client.waitForTask(id);
    assert.match(JSON.stringify(result.content), /hello Ada/);
    await eventually(() => notes.some((n) => n.status === 'completed'), 'completion to be pushed');
    const done = notes.find((n) => n.status === 'completed');
    assert.deepEqual(done?.result, result);
    assert.ok(
      notes.some((n) => n.status === 'working'),
      'back to working after the answers',
    );
    assert.ok(
      notes.every((n) => n.taskId === id),
      "nothing about bob's task",
    );
    sub.close();
  });

  test('taskIds without the capability: -32021', async () => {
    const { server: s } = server();
    const { client } = await connect(s, { capabilities: WITHOUT_TASKS });
    await assert.rejects(
      client.request('subscriptions/listen', { notifications: { taskIds: ['x'] } }),
      isRpcError(ErrorCode.MissingClientCapability),
    );
  });
});

describe('tasks extension: stateful sessions ignore it', () => {
  test('the same tools run normally and tasks/* do not exist', async () => {
    const { server: s } = server();
    const seen = { elicitations: 0, samplings: 0 };
    const { client } = await connectInMemory(s, { capabilities: WITH_TASKS, ...handlers(seen) });
    assert.equal(client.era, 'stateful');
    const deployed = await client.callTool('deploy');
    assert.deepEqual(deployed.content, [{ type: 'text', text: 'deployed' }]);
    const asked = await client.callTool('ask');
    assert.match(JSON.stringify(asked.content), /hello Ada; sampled greet Ada; 1 roots/);
    assert.equal(seen.elicitations, 1);
    const started = await client.callToolAsTask('build', { ms: 0 });
    assert.equal(started.task, undefined);
    await assert.rejects(client.request('tasks/get', { taskId: 'x' }), isRpcError(ErrorCode.MethodNotFound));
    await client.close();
  });
});
