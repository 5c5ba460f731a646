// A listener of the shared Redis subscriber that throws: its failure is reported (the connection's `onerror`, and the
// `onerror` of a server whose cluster node runs on that connection), never printed, and the channel's other
// listeners still get the message. On a private redis-server.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedisBus } from '../../src/redis/bus.js';
import { RedisConnection } from '../../src/redis/connection.js';
import { RedisEventStore } from '../../src/redis/event-store.js';
import { RedisSessionStore } from '../../src/redis/session-store.js';
import { joinCluster } from '../../src/server/http/cluster/node.js';
import { McpServer } from '../../src/server/server.js';
import { TestRedis } from '../fixtures/redis.js';
import { eventually } from './helpers.js';

const T = { timeout: 30_000 };
let redis: TestRedis;

before(async () => {
  redis = await TestRedis.start();
});

after(async () => {
  await redis?.close();
});

/** Runs `body` with stderr, stdout and the console watched; resolves with whatever they would have printed. */
async function printedDuring(body: () => Promise<void>): Promise<string> {
  const printed: string[] = [];
  const stderr = process.stderr.write;
  const stdout = process.stdout.write;
  const consoleError = console.error;
  const consoleLog = console.log;
  const capture = (chunk: unknown) => {
    printed.push(String(chunk));
    return true;
  };
  process.stderr.write = capture as typeof process.stderr.write;
  process.stdout.write = capture as typeof process.stdout.write;
  console.error = (...args: unknown[]) => printed.push(args.join(' '));
  console.log = (...args: unknown[]) => printed.push(args.join(' '));
  try {
    await body();
  } finally {
    process.stderr.write = stderr;
    process.stdout.write = stdout;
    console.error = consoleError;
    console.log = consoleLog;
  }
  return printed.join('');
}

test(
  'a listener that throws is reported to the connection’s onerror, not printed; others still hear',
  T,
  async () => {
    const reported: Error[] = [];
    const connection = await RedisConnection.open(redis.url, { onerror: (e) => reported.push(e) });
    try {
      const heard: string[] = [];
      const printed = await printedDuring(async () => {
        const stopBad = await connection.subscriber.listen('c1', () => {
          throw new Error('listener broke');
        });
        const stopGood = await connection.subscriber.listen('c1', (m) => heard.push(m));
        await connection.command.publish('c1', 'hello');
        await eventually(() => reported.length === 1 && heard.length === 1, 'the report and the message');
        stopBad();
        stopGood();
      });
      assert.equal(reported[0]?.message, 'listener broke');
      assert.deepEqual(heard, ['hello']);
      assert.equal(printed, '');
    } finally {
      await connection.close();
    }
  },
);

test(
  'a server whose cluster node runs on the connection hears it through its onerror, until it leaves',
  T,
  async () => {
    const connection = await RedisConnection.open(redis.url);
    const errors: Error[] = [];
    const server = new McpServer({ name: 's', version: '1' }, { onerror: (e) => errors.push(e) });
    const cluster = {
      sessions: new RedisSessionStore(connection),
      events: new RedisEventStore(connection),
      bus: new RedisBus(connection),
    };
    const { leave } = joinCluster(server, cluster, {});
    try {
      const printed = await printedDuring(async () => {
        const stop = await connection.subscriber.listen('c2', () => {
          throw new Error('broke again');
        });
        await connection.command.publish('c2', 'x');
        await eventually(() => errors.length === 1, 'the report');
        stop();
      });
      assert.equal(errors[0]?.message, 'broke again');
      assert.equal(printed, '');
      leave();
      // Gone with the node: a failure now reaches only the reporters left.
      const later: Error[] = [];
      const stopReporting = connection.reportTo((e) => later.push(e));
      const stop = await connection.subscriber.listen('c3', () => {
        throw new Error('after leaving');
      });
      await connection.command.publish('c3', 'y');
      await eventually(() => later.length === 1, 'the later report');
      stop();
      stopReporting();
      assert.equal(errors.length, 1);
    } finally {
      leave();
      await connection.close();
    }
  },
);
