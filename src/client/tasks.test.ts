import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';
import { TASKS_EXTENSION } from '../spec/modern.js';
import type { DetailedTask } from '../spec/tasks.js';
import type { ClientCapabilities } from '../spec/types.js';
import type { ClientHandlers } from './handlers.js';
import { declaresTasksExtension, isTaskResult, TaskClient, taskOf } from './tasks.js';

const BASE = {
  taskId: 't-1',
  createdAt: '2026-08-01T00:00:00.000Z',
  lastUpdatedAt: '2026-08-01T00:00:00.000Z',
  ttlMs: 60_000,
  pollIntervalMs: 10,
};

const ELICIT = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
};

/** A scripted server: each tasks/get returns the next state (the last one repeats). */
function fake(states: JsonObject[], handlers: ClientHandlers = {}, caps: ClientCapabilities = {}) {
  const calls: { method: string; params: JsonObject; at: number }[] = [];
  let next = 0;
  const client = new TaskClient({
    request: async (method, params) => {
      calls.push({ method, params, at: Date.now() });
      if (method !== 'tasks/get') return { resultType: 'complete' };
      const state = states[Math.min(next++, states.length - 1)] ?? {};
      return { resultType: 'complete', _meta: { server: 'x' }, ...BASE, ...state };
    },
    capabilities: caps,
    handlers,
    roots: () => [{ uri: 'file:///r' }],
    applyDefaults: true,
  });
  return { client, calls };
}

describe('task client helpers', () => {
  test('capability and result checks', () => {
    assert.equal(declaresTasksExtension({ extensions: { [TASKS_EXTENSION]: {} } }), true);
    assert.equal(declaresTasksExtension({ extensions: {} }), false);
    assert.equal(declaresTasksExtension({ tasks: {} }), false, 'the 2025-11-25 capability does not count');
    assert.equal(isTaskResult({ resultType: 'task' }), true);
    assert.equal(isTaskResult({ resultType: 'complete' }), false);
    assert.deepEqual(taskOf({ resultType: 'task', _meta: {}, ...BASE, status: 'working' }), {
      ...BASE,
      status: 'working',
    });
    assert.throws(() => taskOf({ resultType: 'task' }), McpkitError);
  });

  test('polls at pollIntervalMs until completed and returns the result', async () => {
    const result = { content: [{ type: 'text', text: 'done' }] };
    const { client, calls } = fake([
      { status: 'working', pollIntervalMs: 30 },
      { status: 'working', pollIntervalMs: 30 },
      { status: 'completed', result },
    ]);
    const seen: string[] = [];
    const out = await client.wait('t-1', { onUpdate: (t) => seen.push(t.status) });
    assert.deepEqual(out, result);
    assert.deepEqual(seen, ['working', 'working', 'completed']);
    const gets = calls.filter((c) => c.method === 'tasks/get');
    assert.equal(gets.length, 3);
    for (let i = 1; i < gets.length; i++) {
      const gap = (gets[i]?.at ?? 0) - (gets[i - 1]?.at ?? 0);
      assert.ok(gap >= 25, `waited ${gap} ms between polls`);
    }
  });

  test('answers each input request once, however many polls repeat it', async () => {
    let elicited = 0;
    const { client, calls } = fake(
      [
        { status: 'input_required', inputRequests: { a: ELICIT } },
        // The update is eventually consistent: the same key shows up again.
        { status: 'input_required', inputRequests: { a: ELICIT } },
        { status: 'input_required', inputRequests: { a: ELICIT, b: { method: 'roots/list' } } },
        { status: 'completed', result: { content: [] } },
      ],
      {
        elicitation: () => {
          elicited++;
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
      { elicitation: { form: {} }, roots: {} },
    );
    await client.wait('t-1');
    assert.equal(elicited, 1);
    const updates = calls.filter((c) => c.method === 'tasks/update').map((c) => c.params);
    assert.deepEqual(updates, [
      { taskId: 't-1', inputResponses: { a: { action: 'accept', content: { name: 'Ada' } } } },
      { taskId: 't-1', inputResponses: { b: { roots: [{ uri: 'file:///r' }] } } },
    ]);
  });

  test('a failed task rejects with its JSON-RPC error; a cancelled one with REQUEST_CANCELLED', async () => {
    const failed = fake([{ status: 'failed', error: { code: 4001, message: 'Quota', data: { n: 1 } } }]);
    await assert.rejects(failed.client.wait('t-1'), (e: unknown) => {
      assert.ok(e instanceof JsonRpcError);
      assert.equal(e.code, 4001);
      assert.deepEqual(e.data, { n: 1 });
      return true;
    });
    const cancelled = fake([{ status: 'cancelled' }]);
    await assert.rejects(
      cancelled.client.wait('t-1', { cancelOnAbandon: true }),
      (e: unknown) => e instanceof McpkitError && e.code === 'REQUEST_CANCELLED',
    );
    assert.equal(cancelled.calls.filter((c) => c.method === 'tasks/cancel').length, 0, 'it already ended');
  });

  test('an unknown status is an invalid result', async () => {
    const { client } = fake([{ status: 'paused' }]);
    await assert.rejects(
      client.wait('t-1'),
      (e: unknown) => e instanceof McpkitError && e.code === 'INVALID_RESULT',
    );
  });

  test('abandoning the wait cancels the task only with cancelOnAbandon', async () => {
    for (const cancelOnAbandon of [false, true]) {
      const { client, calls } = fake([{ status: 'working', pollIntervalMs: 1_000 }]);
      const controller = new AbortController();
      const waiting = client.wait('t-1', { signal: controller.signal, cancelOnAbandon });
      setTimeout(() => controller.abort(), 20);
      await assert.rejects(
        waiting,
        (e: unknown) => e instanceof McpkitError && e.code === 'REQUEST_CANCELLED',
      );
      assert.equal(calls.filter((c) => c.method === 'tasks/cancel').length, cancelOnAbandon ? 1 : 0);
    }
  });

  test('input the client cannot give fails the wait (and cancels when abandoning)', async () => {
    const { client, calls } = fake([{ status: 'input_required', inputRequests: { a: ELICIT } }]);
    await assert.rejects(
      client.wait('t-1', { cancelOnAbandon: true }),
      (e: unknown) => e instanceof McpkitError && e.code === 'CAPABILITY_MISSING',
    );
    assert.equal(calls.filter((c) => c.method === 'tasks/cancel').length, 1);
  });

  test('a task passed in is not fetched again before its first wait', async () => {
    const { client, calls } = fake([{ status: 'completed', result: { content: [] } }]);
    const start = { ...BASE, status: 'working', pollIntervalMs: 10 } as DetailedTask;
    await client.wait(start);
    assert.equal(calls.length, 1);
  });
});
