import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { McpkitError } from '../jsonrpc/errors.js';
import type { TaskStatus } from '../spec/tasks.js';
import {
  advance,
  canTransition,
  isTerminal,
  mayRerun,
  rerunChanges,
  type TaskRecord,
  toDetailedTask,
} from './task-record.js';
import { MemoryTaskStore } from './task-store.js';

const T0 = Date.parse('2026-08-01T00:00:00.000Z');

function record(taskId: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    taskId,
    status: 'working',
    createdAt: new Date(T0).toISOString(),
    lastUpdatedAt: new Date(T0).toISOString(),
    ttlMs: 60_000,
    pollIntervalMs: 100,
    expiresAt: T0 + 60_000,
    version: 1,
    ...overrides,
  };
}

describe('status transitions', () => {
  const all: TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

  test('working and input_required go anywhere; terminal states are final', () => {
    for (const from of all) {
      for (const to of all) {
        assert.equal(canTransition(from, to), !isTerminal(from), `${from} -> ${to}`);
      }
    }
    assert.deepEqual(
      all.filter((s) => isTerminal(s)),
      ['completed', 'failed', 'cancelled'],
    );
  });

  test('an unknown target status is refused', () => {
    assert.equal(canTransition('working', 'paused' as TaskStatus), false);
  });

  test('advance bumps the version, stamps lastUpdatedAt and removes fields set to undefined', () => {
    const before = record('a', { status: 'input_required', inputRequests: { k: { method: 'roots/list' } } });
    const at = new Date(T0 + 5_000);
    const after = advance(before, { status: 'working', inputRequests: undefined }, at);
    assert.equal(after.version, 2);
    assert.equal(after.lastUpdatedAt, at.toISOString());
    assert.equal(after.status, 'working');
    assert.equal('inputRequests' in after, false);
    assert.equal(before.status, 'input_required', 'the old record is untouched');
  });

  test('the detailed task carries what its status needs and no bookkeeping', () => {
    const base = record('a', {
      owner: 'alice',
      inputResponses: { x: {} },
      request: { tool: 't', requestId: 1, protocolVersion: '2026-07-28', clientCapabilities: {} },
      rerunsLeft: 1,
      run: 1,
    });
    assert.deepEqual(toDetailedTask(base), {
      taskId: 'a',
      status: 'working',
      createdAt: base.createdAt,
      lastUpdatedAt: base.lastUpdatedAt,
      ttlMs: 60_000,
      pollIntervalMs: 100,
    });
    const waiting = toDetailedTask({
      ...base,
      status: 'input_required',
      inputRequests: { k: { method: 'roots/list' } },
    });
    assert.deepEqual((waiting as { inputRequests: unknown }).inputRequests, { k: { method: 'roots/list' } });
    const done = toDetailedTask({ ...base, status: 'completed', result: { content: [], isError: true } });
    assert.deepEqual((done as { result: unknown }).result, { content: [], isError: true });
    const failed = toDetailedTask({ ...base, status: 'failed', error: { code: -32603, message: 'boom' } });
    assert.deepEqual((failed as { error: unknown }).error, { code: -32603, message: 'boom' });
    for (const task of [waiting, done, failed]) {
      assert.equal(
        'owner' in task ||
          'version' in task ||
          'expiresAt' in task ||
          'inputResponses' in task ||
          'request' in task ||
          'rerunsLeft' in task ||
          'run' in task,
        false,
      );
    }
  });

  test('a task started again: working, input dropped, one re-run fewer, the next run; none left, no more', () => {
    const request = { tool: 't', requestId: 1, protocolVersion: '2026-07-28', clientCapabilities: {} };
    const waiting = record('a', {
      status: 'input_required',
      inputRequests: { 'input-1': { method: 'roots/list' } },
      inputResponses: { 'input-0': {} },
      request,
      rerunsLeft: 2,
    });
    assert.equal(mayRerun(waiting), true);
    const again = advance(waiting, rerunChanges(waiting));
    assert.equal(again.status, 'working');
    assert.equal(again.run, 1);
    assert.equal(again.rerunsLeft, 1);
    assert.equal('inputRequests' in again || 'inputResponses' in again, false);
    const last = advance(again, rerunChanges(again));
    assert.deepEqual([last.run, last.rerunsLeft, mayRerun(last)], [2, 0, false]);
    assert.equal(mayRerun(record('b', { rerunsLeft: 1 })), false, 'no request kept');
    assert.equal(mayRerun(record('c', { request, rerunsLeft: 1, status: 'completed' })), false, 'over');
  });
});

describe('MemoryTaskStore', () => {
  test('create then get; a taken id is refused', async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    assert.equal(await store.create(record('a')), true);
    assert.equal((await store.get('a'))?.status, 'working');
    assert.equal(await store.get('missing'), undefined);
    await assert.rejects(store.create(record('a')));
  });

  test('update is a compare-and-set on the version', async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    const first = record('a');
    await store.create(first);
    const next = advance(first, { status: 'input_required' });
    assert.equal(await store.update('a', 1, next), true);
    // A writer that read version 1 loses.
    assert.equal(await store.update('a', 1, advance(first, { status: 'completed' })), false);
    assert.equal((await store.get('a'))?.status, 'input_required');
    assert.equal(await store.update('missing', 1, next), false);
    assert.equal(await store.update('a', 2, { ...advance(next, {}), taskId: 'b' }), false, 'ids must match');
  });

  test('a terminal task never changes again (cancelled is sticky)', async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    const first = record('a');
    await store.create(first);
    const cancelled = advance(first, { status: 'cancelled' });
    assert.equal(await store.update('a', 1, cancelled), true);
    assert.equal(await store.update('a', 2, advance(cancelled, { status: 'completed' })), false);
    assert.equal(await store.update('a', 2, advance(cancelled, { statusMessage: 'late' })), false);
    assert.equal((await store.get('a'))?.status, 'cancelled');
  });

  test('stored records are frozen copies', async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    const mine = record('a');
    await store.create(mine);
    const stored = await store.get('a');
    assert.notEqual(stored, mine);
    assert.ok(Object.isFrozen(stored));
  });

  test('a task past its ttl is gone; a null ttl never expires', async () => {
    let now = T0;
    const store = new MemoryTaskStore({ now: () => now });
    await store.create(record('short', { expiresAt: T0 + 1_000 }));
    await store.create(record('forever', { ttlMs: null, expiresAt: null }));
    now = T0 + 999;
    assert.ok(await store.get('short'));
    now = T0 + 1_000;
    assert.equal(await store.get('short'), undefined);
    assert.equal(await store.update('short', 1, advance(record('short'), {})), false);
    now = T0 + 10 ** 12;
    assert.ok(await store.get('forever'));
  });

  test('expired tasks are swept on create', async () => {
    let now = T0;
    const store = new MemoryTaskStore({ now: () => now, sweepIntervalMs: 1_000 });
    for (let i = 0; i < 5; i++) await store.create(record(`old-${i}`, { expiresAt: T0 + 100 }));
    assert.equal(store.size, 5);
    now = T0 + 2_000;
    await store.create(record('new', { expiresAt: now + 100 }));
    assert.equal(store.size, 1);
  });

  test('bounded: the oldest finished task makes room; with none, create answers false', async () => {
    const store = new MemoryTaskStore({ now: () => T0, maxTasks: 3 });
    await store.create(record('a'));
    await store.create(record('b'));
    await store.create(record('c'));
    assert.equal(await store.create(record('d')), false, 'all three are still working');
    await store.update('b', 1, advance(record('b'), { status: 'completed', result: { content: [] } }));
    await store.update('c', 1, advance(record('c'), { status: 'failed', error: { code: 1, message: 'x' } }));
    assert.equal(await store.create(record('d')), true);
    assert.equal(await store.get('b'), undefined, 'the oldest finished task went first');
    assert.ok(await store.get('c'));
    assert.ok(await store.get('a'), 'working tasks are never evicted');
    assert.equal(store.size, 3);
  });

  test('the change feed sees every successful update, and nothing else', async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    const seen: string[] = [];
    const stop = store.watch((r) => seen.push(`${r.taskId}:${r.status}:${r.version}`));
    const first = record('a');
    await store.create(first);
    const waiting = advance(first, { status: 'input_required' });
    await store.update('a', 1, waiting);
    await store.update('a', 1, waiting);
    stop();
    await store.update('a', 2, advance(waiting, { status: 'working' }));
    assert.deepEqual(seen, ['a:input_required:2']);
  });

  test('maxTasks must be a positive integer', () => {
    assert.throws(() => new MemoryTaskStore({ maxTasks: 0 }), McpkitError);
  });
});
