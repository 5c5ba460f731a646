// The shared store suites against the Redis implementations, on a private redis-server (two connections: two
// instances); then what only Redis has: a task whose instance died is failed when read, Lua scripts survive a
// restart, stored events survive a restart, and an unreachable Redis fails fast and is reconnected by itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { JsonRpcMessage } from '../../src/jsonrpc/types.js';
import { RedisBus } from '../../src/redis/bus.js';
import { RedisConnection } from '../../src/redis/connection.js';
import { RedisEventStore } from '../../src/redis/event-store.js';
import { RedisSessionStore } from '../../src/redis/session-store.js';
import { RedisTaskStore } from '../../src/redis/task-store.js';
import { TestRedis } from '../fixtures/redis.js';
import { eventually } from './helpers.js';
import { busSuite, sessionStoreSuite, sharedEventStoreSuite, taskStoreSuite } from './store-suites.js';

let redis: TestRedis;
let one: RedisConnection;
let two: RedisConnection;

before(async () => {
  redis = await TestRedis.start();
  one = await RedisConnection.open(redis.url);
  two = await RedisConnection.open(redis.url);
});

after(async () => {
  await one?.close();
  await two?.close();
  await redis?.close();
});

sessionStoreSuite('redis', () => ({ a: new RedisSessionStore(one), b: new RedisSessionStore(two) }));
sharedEventStoreSuite('redis', (options) => ({
  a: new RedisEventStore(one, options),
  b: new RedisEventStore(two, options),
}));
busSuite('redis', () => ({ a: new RedisBus(one), b: new RedisBus(two) }));
taskStoreSuite('redis', () => ({ a: new RedisTaskStore(one), b: new RedisTaskStore(two) }));

const T = { timeout: 30_000 };

describe('Redis only', () => {
  test('a task whose instance stopped its heartbeat is failed when read, once', T, async () => {
    const dying = new RedisTaskStore(one, { heartbeatMs: 100 });
    const reader = new RedisTaskStore(two);
    const now = Date.now();
    const record = {
      taskId: `dead-${now}`,
      status: 'working' as const,
      createdAt: new Date(now).toISOString(),
      lastUpdatedAt: new Date(now).toISOString(),
      ttlMs: 60_000,
      expiresAt: now + 60_000,
      version: 1,
    };
    await dying.create(record);
    assert.equal((await reader.get(record.taskId))?.status, 'working');
    dying.close();
    await eventually(async () => (await reader.get(record.taskId))?.status === 'failed', 'failed', 5_000);
    const failed = await reader.get(record.taskId);
    assert.equal(failed?.version, 2);
    assert.match(String(failed?.error?.message), /instance running this task stopped/);
  });

  test(
    'events stored before a restart (appendfsync always) are all there after it; scripts load again',
    T,
    async () => {
      const store = new RedisEventStore(one);
      const session = `restart-${Date.now()}`;
      const ids: string[] = [];
      for (let n = 0; n < 50; n++) {
        const m: JsonRpcMessage = {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', data: n },
        };
        ids.push(await store.append(session, 'S1', m));
      }
      await redis.restart(true); // kill -9: only what was fsynced survives
      await eventually(
        async () => {
          try {
            await store.replayAfter(session, 'S1.0');
            return true;
          } catch {
            return false;
          }
        },
        'reconnection',
        15_000,
      );
      const replay = await store.replayAfter(session, ids[0] as string);
      assert.deepEqual(
        replay?.map((e) => e.id),
        ids.slice(1),
      );
      // The script cache was emptied by the restart: appending loads the script again.
      const next = await store.append(session, 'S1', { jsonrpc: '2.0', method: 'notifications/x' });
      assert.equal(next, 'S1.51');
    },
  );

  test(
    'while Redis is down commands are refused, not queued; when it is back they work again',
    T,
    async () => {
      const sessions = new RedisSessionStore(one);
      await redis.stop();
      // Refused, not queued until Redis returns (the test's own time limit would catch a wait).
      await assert.rejects(sessions.get('any'));
      await redis.restart();
      await eventually(
        async () => {
          try {
            await sessions.get('any');
            return true;
          } catch {
            return false;
          }
        },
        'reconnected',
        15_000,
      );
    },
  );
});
