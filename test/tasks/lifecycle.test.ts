// The life of a task end to end over the in-memory pair: polling to completion at the server's interval,
// input_required → tasks/update → completion (context-style and explicit MRTR-style handlers), keys unique
// over the task's lifetime, cancellation (sticky), failure with the JSON-RPC error, isError results, no
// progress/log notifications, and what the client's helpers do on abort.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { ErrorCode, JsonRpcError, McpkitError } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import type { McpServer } from '../../src/server/server.js';
import type { DetailedTask } from '../../src/spec/tasks.js';
import {
  connect,
  createTaskServer,
  eventually,
  gate,
  handlers,
  NAME_SCHEMA,
  newObserved,
  type Observed,
  WITH_TASKS,
} from './fixture.js';

const servers: McpServer[] = [];
const observers: Observed[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  const errors = observers.splice(0).flatMap((o) => o.errors.map((e) => e.message));
  assert.deepEqual(errors, [], 'the server reported no problems');
});

function server() {
  const observed = newObserved();
  observers.push(observed);
  const s = createTaskServer(observed);
  servers.push(s);
  return { server: s, observed };
}

function isCancelled(e: unknown): boolean {
  return e instanceof McpkitError && e.code === 'REQUEST_CANCELLED';
}

describe('tasks: polling to completion', () => {
  test('callTool follows a task transparently and returns the final result', async () => {
    const { server: s } = server();
    const updates: DetailedTask[] = [];
    const { client, wire } = await connect(s, { capabilities: WITH_TASKS });
    const result = await client.callTool('build', { ms: 30 }, { onTaskUpdate: (t) => updates.push(t) });
    assert.deepEqual(result.structuredContent, { ms: 30 });
    assert.equal(updates[0]?.status, 'working', 'first the CreateTaskResult');
    assert.equal(updates.at(-1)?.status, 'completed');
    assert.equal(new Set(updates.map((u) => u.taskId)).size, 1);
    assert.ok(wire.requests('tasks/get').length >= 1);
    for (const request of wire.requests('tasks/get')) {
      assert.equal((request.params as JsonObject).taskId, updates[0]?.taskId);
    }
  });

  test("polling honours the server's pollIntervalMs", async () => {
    const { server: s } = server();
    const { client, wire } = await connect(s, { capabilities: WITH_TASKS });
    const started = Date.now();
    const result = await client.callTool('slow_poll');
    const elapsed = Date.now() - started;
    assert.deepEqual(result.content, [{ type: 'text', text: 'slow done' }]);
    const polls = wire.requests('tasks/get').length;
    // 350 ms of work at 100 ms per poll: about four polls, never dozens.
    assert.ok(polls >= 2 && polls <= Math.ceil(elapsed / 100) + 1, `${polls} polls in ${elapsed} ms`);
  });

  test('progress and log notifications are not sent for tasks', async () => {
    const { server: s, observed } = server();
    const { client, wire } = await connect(s, { capabilities: WITH_TASKS });
    await client.setLoggingLevel('debug');
    await client.callTool('build', { ms: 0 }, { onprogress: () => assert.fail('no progress for tasks') });
    assert.equal(observed.progressCalls, 1, 'the handler did report progress');
    assert.equal(wire.notifications('notifications/progress').length, 0);
    assert.equal(wire.notifications('notifications/message').length, 0);
  });

  test('waitForTask resumes a task from its id alone', async () => {
    const { server: s, observed } = server();
    gate(observed, 'resume');
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    const started = await client.callToolAsTask('hold', { key: 'resume' });
    const id = started.task?.taskId ?? '';
    await eventually(
      async () => (await client.getTask(id)).statusMessage === 'holding resume',
      'statusMessage',
    );
    const waiting = client.waitForTask(id);
    observed.gates.get('resume')?.release();
    assert.deepEqual((await waiting).content, [{ type: 'text', text: 'released resume' }]);
  });
});

describe('tasks: input required', () => {
  test('ctx.elicit/sample/listRoots become inputRequests answered through the client handlers', async () => {
    const { server: s } = server();
    const seen = { elicitations: 0, samplings: 0 };
    const { client, wire } = await connect(s, { capabilities: WITH_TASKS, ...handlers(seen) });
    const statuses: string[] = [];
    const result = await client.callTool('ask', undefined, { onTaskUpdate: (t) => statuses.push(t.status) });
    assert.deepEqual(result.content, [{ type: 'text', text: 'hello Ada; sampled greet Ada; 1 roots' }]);
    assert.equal(seen.elicitations, 1, 'each request answered once, however often it was polled');
    assert.equal(seen.samplings, 1);
    assert.ok(statuses.includes('input_required'));
    const keys = wire
      .requests('tasks/update')
      .flatMap((r) => Object.keys((r.params as JsonObject).inputResponses as JsonObject));
    assert.deepEqual(keys, ['input-1', 'input-2', 'input-3'], 'keys are never reused within a task');
  });

  test('by hand: tasks/get shows the requests, unknown keys are ignored, an answer resumes the task', async () => {
    const { server: s } = server();
    const { client } = await connect(s, {
      capabilities: WITH_TASKS,
      ...handlers({ elicitations: 0, samplings: 0 }),
    });
    const started = await client.callToolAsTask('ask');
    const id = started.task?.taskId ?? '';
    let task = await client.getTask(id);
    await eventually(async () => {
      task = await client.getTask(id);
      return task.status === 'input_required';
    }, 'input_required');
    assert.equal(task.status, 'input_required');
    const requests = task.status === 'input_required' ? task.inputRequests : {};
    assert.deepEqual(Object.keys(requests), ['input-1']);
    assert.equal(requests['input-1']?.method, 'elicitation/create');
    assert.deepEqual(requests['input-1']?.params?.requestedSchema, NAME_SCHEMA);

    await client.updateTask(id, { 'never-issued': { action: 'accept' } });
    assert.equal((await client.getTask(id)).status, 'input_required', 'unknown keys change nothing');
    await client.updateTask(id, { 'input-1': { action: 'accept', content: { name: 'Grace' } } });
    await eventually(async () => {
      const t = await client.getTask(id);
      return t.status === 'input_required' && Object.keys(t.inputRequests).includes('input-2');
    }, 'the next request');
    // Answering an already answered key again is ignored.
    await client.updateTask(id, { 'input-1': { action: 'decline' } });
    const result = await client.waitForTask(id);
    assert.match(JSON.stringify(result.content), /hello Grace; sampled greet Grace/);
  });

  test('onInputRequired answers some requests itself; the handlers answer the rest', async () => {
    const { server: s } = server();
    const seen = { elicitations: 0, samplings: 0 };
    const { client } = await connect(s, { capabilities: WITH_TASKS, ...handlers(seen) });
    const offered: string[][] = [];
    const result = await client.callTool('ask', undefined, {
      onInputRequired: (requests) => {
        offered.push(Object.keys(requests));
        const entry = Object.entries(requests).find(([, r]) => r.method === 'elicitation/create');
        return entry ? { [entry[0]]: { action: 'accept', content: { name: 'Lin' } } } : undefined;
      },
    });
    assert.match(JSON.stringify(result.content), /hello Lin; sampled greet Lin/);
    assert.equal(seen.elicitations, 0);
    assert.equal(seen.samplings, 1);
    assert.deepEqual(offered, [['input-1'], ['input-2'], ['input-3']]);
  });

  test('explicit inputRequired(…) handlers run again with the answers and their state', async () => {
    const { server: s } = server();
    const { client } = await connect(s, {
      capabilities: WITH_TASKS,
      ...handlers({ elicitations: 0, samplings: 0 }),
    });
    const result = await client.callTool('explicit');
    assert.deepEqual(result.content, [{ type: 'text', text: 'confirmed by Ada after round 1' }]);
  });
});

describe('tasks: input the client did not declare', () => {
  test('context-style and explicit requests fail the task with -32021', async () => {
    const { server: s } = server();
    const { client } = await connect(s, { capabilities: { extensions: WITH_TASKS.extensions } });
    for (const tool of ['ask', 'explicit']) {
      await assert.rejects(client.callTool(tool), (e: unknown) => {
        assert.ok(e instanceof JsonRpcError, tool);
        assert.equal(e.code, ErrorCode.MissingClientCapability);
        assert.deepEqual(e.data, { requiredCapabilities: { elicitation: { form: {} } } });
        return true;
      });
    }
  });
});

describe('tasks: cancellation and failure', () => {
  test('tasks/cancel aborts the handler and sticks, even when the work then completes', async () => {
    const { server: s, observed } = server();
    const g = gate(observed, 'cancel-me');
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    const started = await client.callToolAsTask('hold', { key: 'cancel-me' });
    const id = started.task?.taskId ?? '';
    await eventually(
      async () => (await client.getTask(id)).statusMessage === 'holding cancel-me',
      'the handler',
    );
    await client.cancelTask(id);
    const cancelled = await client.getTask(id);
    assert.equal(cancelled.status, 'cancelled');
    await eventually(() => g.aborted, 'ctx.signal to abort');
    g.release();
    await eventually(() => g.finished, 'the handler to return anyway');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal((await client.getTask(id)).status, 'cancelled', 'a late completion does not overwrite it');
    await client.cancelTask(id);
    await assert.rejects(client.waitForTask(id), isCancelled);
  });

  test('aborting callTool cancels its task', async () => {
    const { server: s, observed } = server();
    const g = gate(observed, 'abort-me');
    const { client, wire } = await connect(s, { capabilities: WITH_TASKS });
    const controller = new AbortController();
    let id = '';
    const call = client.callTool(
      'hold',
      { key: 'abort-me' },
      {
        signal: controller.signal,
        onTaskUpdate: (t) => {
          id = t.taskId;
        },
      },
    );
    await eventually(() => id !== '' && g.started, 'the task and its handler');
    controller.abort();
    await assert.rejects(call, isCancelled);
    await eventually(() => wire.requests('tasks/cancel').length === 1, 'tasks/cancel');
    await eventually(() => g.aborted, 'the handler to stop');
    assert.equal((await client.getTask(id)).status, 'cancelled');
  });

  test('a task cancelled before its handler began never runs it', async () => {
    const { server: s, observed } = server();
    const g = gate(observed, 'too-late');
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    // The in-memory link answers within the same turn: the cancel lands before the handler's first turn.
    const started = await client.callToolAsTask('hold', { key: 'too-late' });
    const id = started.task?.taskId ?? '';
    await client.cancelTask(id);
    assert.equal(g.started, false, 'cancelled before its handler began');
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(g.started, false, 'the handler of a cancelled task ran');
    assert.equal((await client.getTask(id)).status, 'cancelled');
    assert.deepEqual(observed.errors, []);
  });

  test('waitForTask stops waiting on abort without cancelling, unless asked to', async () => {
    const { server: s, observed } = server();
    gate(observed, 'keep');
    const { client, wire } = await connect(s, { capabilities: WITH_TASKS });
    const started = await client.callToolAsTask('hold', { key: 'keep' });
    const id = started.task?.taskId ?? '';
    const controller = new AbortController();
    const waiting = client.waitForTask(id, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(waiting, isCancelled);
    assert.equal(wire.requests('tasks/cancel').length, 0);
    assert.notEqual((await client.getTask(id)).status, 'cancelled');
    observed.gates.get('keep')?.release();
    await client.waitForTask(id);
  });

  test('a JSON-RPC error fails the task with that error', async () => {
    const { server: s } = server();
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    await assert.rejects(client.callTool('fail'), (e: unknown) => {
      assert.ok(e instanceof JsonRpcError);
      assert.equal(e.code, 4001);
      assert.equal(e.message, 'Quota exceeded');
      assert.deepEqual(e.data, { retryAfterMs: 5 });
      return true;
    });
    const started = await client.callToolAsTask('fail');
    const id = started.task?.taskId ?? '';
    await eventually(async () => (await client.getTask(id)).status === 'failed', 'failed');
    const task = await client.getTask(id);
    assert.equal(task.status, 'failed');
    assert.deepEqual(task.status === 'failed' ? task.error : undefined, {
      code: 4001,
      message: 'Quota exceeded',
      data: { retryAfterMs: 5 },
    });
    assert.equal(task.statusMessage, 'Quota exceeded');
  });

  test('an isError tool result completes the task (it is not a failure)', async () => {
    const { server: s } = server();
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    const result = await client.callTool('soft_fail');
    assert.equal(result.isError, true);
    assert.deepEqual(result.content, [{ type: 'text', text: 'could not build' }]);
  });

  test('invalid arguments complete the task with an isError result', async () => {
    const { server: s } = server();
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    const result = await client.callTool('build', { ms: 'soon' });
    assert.equal(result.isError, true);
  });

  test('closing the server fails the tasks still running there', async () => {
    const { server: s, observed } = server();
    gate(observed, 'shutdown');
    const { client } = await connect(s, { capabilities: WITH_TASKS });
    const started = await client.callToolAsTask('hold', { key: 'shutdown' });
    const id = started.task?.taskId ?? '';
    const record = () => s.tasks?.store.get(id);
    await eventually(async () => (await record())?.statusMessage === 'holding shutdown', 'the handler');
    await s.close();
    await eventually(async () => (await record())?.status === 'failed', 'failed after shutdown');
    assert.equal((await record())?.error?.code, ErrorCode.InternalError);
    observed.gates.get('shutdown')?.release();
  });
});
