// One test suite per cluster store interface, run against every implementation (memory-stores.test.ts and
// redis-stores.test.ts). Each factory gives two handles on one backend: what two instances of a cluster see.
// Not a test file itself.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonRpcMessage } from '../../src/jsonrpc/types.js';
import type { MessageBus } from '../../src/store/bus.js';
import type { StoredEvent } from '../../src/store/event-store.js';
import type { SessionRecord, SessionStore } from '../../src/store/session-store.js';
import type { SharedEventStore } from '../../src/store/shared-event-store.js';
import type { TaskRecord } from '../../src/store/task-record.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { eventually, sleep } from './helpers.js';

export interface Pair<T> {
  a: T;
  b: T;
}

const T = { timeout: 20_000 };
let unique = 0;
const fresh = (what: string) => `${what}-${process.pid}-${Date.now()}-${++unique}`;

const RECORD: SessionRecord = {
  protocolVersion: '2025-11-25',
  clientCapabilities: { elicitation: { form: {} } },
  clientInfo: { name: 'c', version: '1' },
  serverCapabilities: { tools: { listChanged: true } },
  logLevel: 'warning',
  subscriptions: ['test://a'],
  owner: 'issuer|sub:alice',
  tag: 'AbCdEfGh',
};

export function sessionStoreSuite(name: string, make: () => Pair<SessionStore>): void {
  describe(`SessionStore: ${name}`, () => {
    test('a session stored by one instance is read by another, whole', T, async () => {
      const { a, b } = make();
      const id = fresh('s');
      assert.equal(await b.get(id), undefined);
      await a.create(id, RECORD, 60_000);
      assert.deepEqual(await b.get(id), RECORD);
    });

    test('put replaces a live session only; touch says whether it lives; delete forgets it', T, async () => {
      const { a, b } = make();
      const id = fresh('s');
      assert.equal(await a.put(id, RECORD, 60_000), false);
      assert.equal(await a.touch(id, 60_000), false);
      await a.create(id, RECORD, 60_000);
      const changed = { ...RECORD, logLevel: 'debug' as const, subscriptions: [] };
      assert.equal(await b.put(id, changed, 60_000), true);
      assert.deepEqual(await a.get(id), changed);
      assert.equal(await a.touch(id, 60_000), true);
      await b.delete(id);
      assert.equal(await a.get(id), undefined);
      assert.equal(await a.touch(id, 60_000), false);
    });

    test('a session expires its time to live after the last create, put or touch', T, async () => {
      const { a, b } = make();
      const short = fresh('s');
      await a.create(short, RECORD, 300);
      await eventually(async () => (await b.get(short)) === undefined, 'expiry after create');
      // touch sets the time to live anew: a long-lived session given a short one expires, the other stays.
      const touched = fresh('s');
      const kept = fresh('s');
      await a.create(touched, RECORD, 3_600_000);
      await a.create(kept, RECORD, 3_600_000);
      assert.equal(await b.touch(touched, 300), true);
      await eventually(async () => (await a.get(touched)) === undefined, 'expiry after touch');
      assert.deepEqual(await a.get(kept), RECORD);
      assert.equal(await b.put(kept, RECORD, 300), true);
      await eventually(async () => (await a.get(kept)) === undefined, 'expiry after put');
    });
  });
}

const msg = (n: number): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: n },
});

export function sharedEventStoreSuite(
  name: string,
  make: (options?: { maxEventsPerStream?: number }) => Pair<SharedEventStore>,
): void {
  describe(`SharedEventStore: ${name}`, () => {
    test(
      'ids are unique and increasing across instances; replay gives what followed an id, in order',
      T,
      async () => {
        const { a, b } = make();
        const session = fresh('e');
        const ids: string[] = [];
        for (let n = 0; n < 6; n++)
          ids.push(await (n % 2 ? b : a).append(session, n % 3 ? 'T1' : 'T_', msg(n)));
        assert.equal(new Set(ids).size, 6);
        const seqs = ids.map((id) => Number(id.slice(id.lastIndexOf('.') + 1)));
        assert.deepEqual(
          seqs,
          [...seqs].sort((x, y) => x - y),
        );
        assert.equal(a.streamOf(ids[1] as string), 'T1');
        const replay = await b.replayAfter(session, ids[1] as string);
        assert.deepEqual(
          replay?.map((e) => e.id),
          [ids[2], ids[4], ids[5]],
        );
        assert.deepEqual(replay?.[0]?.message, msg(2));
      },
    );

    test('unknown ids, ids of other sessions and dropped sessions replay nothing', T, async () => {
      const { a, b } = make();
      const session = fresh('e');
      const id = await a.append(session, 'T1', msg(1));
      assert.equal(await b.replayAfter(fresh('other'), id), undefined);
      assert.equal(await b.replayAfter(session, 'T1.999'), undefined);
      assert.equal(await b.replayAfter(session, 'no-sequence'), undefined);
      assert.deepEqual(await b.replayAfter(session, id), []);
      await b.dropSession(session);
      assert.equal(await a.replayAfter(session, id), undefined);
    });

    test('a bounded stream refuses to resume before what it dropped', T, async () => {
      const { a } = make({ maxEventsPerStream: 3 });
      const session = fresh('e');
      const ids: string[] = [];
      for (let n = 0; n < 6; n++) ids.push(await a.append(session, 'T1', msg(n)));
      assert.equal(await a.replayAfter(session, ids[0] as string), undefined, 'a gap is refused');
      assert.deepEqual(
        (await a.replayAfter(session, ids[2] as string))?.map((e) => e.id),
        ids.slice(3),
      );
    });

    test('a follower on another instance gets every later event in order, then the end', T, async () => {
      const { a, b } = make();
      const session = fresh('e');
      await a.append(session, 'T1', msg(0));
      const seen: (StoredEvent | undefined)[] = [];
      const stop = await b.follow(session, 'T1', (e) => seen.push(e));
      assert.equal(await a.followers(session, 'T1'), 1);
      assert.equal(await a.followers(session, 'T2'), 0);
      const ids: string[] = [];
      for (let n = 1; n <= 20; n++) ids.push(await a.append(session, 'T1', msg(n)));
      await a.append(session, 'T2', msg(99));
      await a.streamEnded(session, 'T1');
      await eventually(() => seen.length === 21, 'every event and the end');
      assert.deepEqual(
        seen.slice(0, 20).map((e) => e?.id),
        ids,
      );
      assert.deepEqual(seen[4]?.message, msg(5));
      assert.equal(seen[20], undefined);
      stop();
      await eventually(async () => (await a.followers(session, 'T1')) === 0, 'unfollowed');
    });

    test(
      "a stream's last event and its end in one step: followed, known ended everywhere, replayed",
      T,
      async () => {
        const { a, b } = make();
        const session = fresh('e');
        assert.ok(a.appendLast, 'the store records a last event with its end');
        const first = await a.append(session, 'T1', msg(1));
        const seen: (StoredEvent | undefined)[] = [];
        const stop = await b.follow(session, 'T1', (e) => seen.push(e));
        const last = await a.appendLast(session, 'T1', msg(2));
        await eventually(() => seen.length === 2, 'the event and the end');
        assert.deepEqual(seen, [{ id: last, message: msg(2) }, undefined]);
        stop();
        assert.deepEqual(await b.streamInfo(session, 'T1'), { ended: true, requests: [] });
        assert.deepEqual(await b.replayAfter(session, first), [{ id: last, message: msg(2) }]);
        // A stream whose only event is its last.
        assert.ok(b.appendLast);
        const only = await b.appendLast(session, 'T2', msg(3));
        assert.deepEqual(await a.streamInfo(session, 'T2'), { ended: true, requests: [] });
        assert.deepEqual(await a.replayAfter(session, `${a.streamOf(only)}.0`), [
          { id: only, message: msg(3) },
        ]);
      },
    );

    test('what a stream answers and whether it ended is known to every instance', T, async () => {
      const { a, b } = make();
      const session = fresh('e');
      assert.equal(await b.streamInfo(session, 'T1'), undefined);
      await a.streamOpened(session, 'T1', [1, 'two']);
      assert.deepEqual(await b.streamInfo(session, 'T1'), { ended: false, requests: [1, 'two'] });
      await a.append(session, 'T1', msg(1));
      await a.streamEnded(session, 'T1');
      assert.deepEqual(await b.streamInfo(session, 'T1'), { ended: true, requests: [1, 'two'] });
    });
  });
}

export function busSuite(name: string, make: () => Pair<MessageBus>): void {
  describe(`MessageBus: ${name}`, () => {
    test('a message published on one instance reaches the subscribers on all, in order', T, async () => {
      const { a, b } = make();
      const channel = fresh('c');
      const seenA: string[] = [];
      const seenB: string[] = [];
      const stopA = await a.subscribe(channel, (m) => seenA.push(m));
      const stopB = await b.subscribe(channel, (m) => seenB.push(m));
      assert.equal(await a.publish(channel, '1'), 2);
      assert.equal(await b.publish(channel, '2'), 2);
      await eventually(() => seenA.length === 2 && seenB.length === 2, 'both messages');
      assert.deepEqual(seenA, ['1', '2']);
      assert.deepEqual(seenB, ['1', '2']);
      stopB();
      await eventually(async () => (await a.publish(channel, '3')) === 1, 'one subscriber left');
      stopA();
      await eventually(async () => (await a.publish(channel, '4')) === 0, 'none left');
      assert.equal(await b.publish(fresh('nobody'), 'x'), 0);
    });

    test('an instance is alive while its heartbeats last', T, async () => {
      const { a, b } = make();
      const instance = fresh('i').slice(-8);
      assert.equal(await b.isAlive(instance), false);
      await a.heartbeat(instance, 300);
      assert.equal(await b.isAlive(instance), true);
      await eventually(async () => !(await b.isAlive(instance)), 'the heartbeat expired');
    });
  });
}

function task(taskId: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  const now = Date.now();
  return {
    taskId,
    status: 'working',
    createdAt: new Date(now).toISOString(),
    lastUpdatedAt: new Date(now).toISOString(),
    ttlMs: 60_000,
    expiresAt: now + 60_000,
    version: 1,
    ...overrides,
  };
}

export function taskStoreSuite(name: string, make: () => Pair<TaskStore>): void {
  describe(`TaskStore: ${name}`, () => {
    test('a task created on one instance is read and updated on another (compare-and-set)', T, async () => {
      const { a, b } = make();
      const id = fresh('t');
      assert.equal(await a.create(task(id)), true);
      await assert.rejects(a.create(task(id)));
      const created = task(id);
      const other = fresh('t');
      await a.create({ ...created, taskId: other });
      assert.deepEqual(await b.get(other), { ...created, taskId: other });
      const next: TaskRecord = {
        ...created,
        version: 2,
        status: 'input_required',
        inputRequests: { k: { method: 'roots/list' } },
      };
      assert.equal(await b.update(id, 1, next), true);
      assert.equal(await a.update(id, 1, { ...next, version: 2 }), false, 'stale version');
      assert.deepEqual((await a.get(id))?.inputRequests, { k: { method: 'roots/list' } });
      const done: TaskRecord = { ...next, version: 3, status: 'completed', result: { content: [] } };
      assert.equal(await a.update(id, 2, done), true);
      assert.deepEqual((await b.get(id))?.result, { content: [] }, 'empty arrays stay arrays');
      assert.equal(
        await b.update(id, 3, { ...done, version: 4, status: 'working' }),
        false,
        'terminal is final',
      );
      assert.equal(await b.update(fresh('unknown'), 1, done), false);
    });

    test(
      'the request a re-runnable task keeps, its re-runs and its run number are read back whole',
      T,
      async () => {
        const { a, b } = make();
        const id = fresh('t');
        const kept = task(id, {
          request: {
            tool: 'build',
            arguments: { target: 'web', flags: [], nested: { n: 1 } },
            meta: { trace: 'x' },
            requestId: 'r-1',
            protocolVersion: '2026-07-28',
            clientCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
            clientInfo: { name: 'c', version: '1' },
            authInfo: { subject: 'ada', scopes: [] },
          },
          rerunsLeft: 2,
        });
        await a.create(kept);
        assert.deepEqual(await b.get(id), kept);
        const again: TaskRecord = { ...kept, version: 2, rerunsLeft: 1, run: 1 };
        assert.equal(await b.update(id, 1, again), true);
        assert.deepEqual(await a.get(id), again);
      },
    );

    test('every instance watching sees updates made anywhere', T, async () => {
      const { a, b } = make();
      const id = fresh('t');
      const seen: TaskRecord[] = [];
      const stop = b.watch?.((r) => {
        if (r.taskId === id) seen.push(r);
      });
      assert.ok(stop);
      await sleep(100); // a remote feed subscribes in the background
      await a.create(task(id));
      assert.equal(await a.update(id, 1, { ...task(id), version: 2, statusMessage: 'half' }), true);
      await eventually(() => seen.length === 1, 'the update');
      assert.equal(seen[0]?.statusMessage, 'half');
      stop();
    });

    test(
      'release (where implemented): the running instance only, its current run, while not ended, once',
      T,
      async (t) => {
        const { a, b } = make();
        if (a.release === undefined || b.release === undefined) {
          t.skip('this store does not release tasks');
          return;
        }
        const id = fresh('t');
        const created = task(id);
        await a.create(created);
        assert.equal(await b.release(id, 0), false, 'another instance');
        assert.equal(await a.release(id, 1), false, 'another run');
        assert.equal(await a.release(id, 0), true);
        assert.equal(await a.release(id, 0), false, 'once');
        // Read where no task manager can start it again: left as it was, for one that can.
        assert.deepEqual(await b.get(id), created);
        const ended = fresh('t');
        await a.create(task(ended));
        await a.update(ended, 1, {
          ...task(ended),
          version: 2,
          status: 'completed',
          result: { content: [] },
        });
        assert.equal(await a.release(ended, 0), false, 'ended');
        assert.equal(await a.release(fresh('unknown'), 0), false, 'unknown');
      },
    );

    test('an expired task is gone', T, async () => {
      const { a, b } = make();
      const id = fresh('t');
      await a.create(task(id, { expiresAt: Date.now() + 200 }));
      assert.ok(await b.get(id));
      await eventually(async () => (await b.get(id)) === undefined, 'expiry');
    });
  });
}
