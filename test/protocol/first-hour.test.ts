// What a newcomer sees: a client with a log handler gets logs in both eras without another call, and a result of
// the 2026-07-28 revision prints as the result asked for (its protocol fields readable, but not enumerable).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inspect } from 'node:util';
import { type LoggingLevel, type LoggingMessageParams, McpServer, resultPlumbing } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';

const ERAS = ['stateless', 'stateful'] as const;
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

function server(): McpServer {
  const s = new McpServer({ name: 'first-hour', version: '1.2.3' });
  s.tool('chatty', {}, async (_args, ctx) => {
    for (const level of ['debug', 'info', 'warning'] as LoggingLevel[]) await ctx.log(level, `at ${level}`);
    return 'done';
  });
  s.tool('with_meta', {}, () => ({
    content: [{ type: 'text', text: 'x' }],
    _meta: { 'example.com/trace': 'abc' },
  }));
  s.resource('memo://one', { name: 'one', cache: { ttlMs: 60_000, cacheScope: 'public' } }, () => 'the memo');
  return s;
}

describe('a client with a log handler', () => {
  for (const era of ERAS) {
    test(`receives info and above without setLoggingLevel (${era})`, async () => {
      const logs: LoggingMessageParams[] = [];
      const { client } = await connectInMemory(server(), { era, onlog: (p) => logs.push(p) });
      try {
        await client.callTool('chatty');
        await client.ping();
        assert.deepEqual(
          logs.map((l) => l.level),
          ['info', 'warning'],
        );
        logs.length = 0;
        await client.setLoggingLevel('debug');
        await client.callTool('chatty');
        await client.ping();
        assert.deepEqual(
          logs.map((l) => l.level),
          ['debug', 'info', 'warning'],
        );
      } finally {
        await client.close();
      }
    });
  }
});

describe('a 2026-07-28 result', () => {
  test('keeps resultType, cache hints and server info readable but out of what is printed or serialized', async () => {
    const { client } = await connectInMemory(server(), { era: 'stateless' });
    try {
      const read = await client.readResource('memo://one');
      assert.deepEqual(Object.keys(read), ['contents']);
      assert.equal(JSON.stringify(read), '{"contents":[{"uri":"memo://one","text":"the memo"}]}');
      assert.doesNotMatch(inspect(read, { depth: 5 }), /resultType|ttlMs|cacheScope|serverInfo/);
      assert.deepEqual(resultPlumbing(read), {
        resultType: 'complete',
        ttlMs: 60_000,
        cacheScope: 'public',
        serverInfo: { name: 'first-hour', version: '1.2.3' },
      });
      assert.equal(Reflect.get(read, 'ttlMs'), 60_000, 'a plain property read works too');
      // Served again from the client's cache (the hints still count), and still plain.
      const again = await client.readResource('memo://one');
      assert.deepEqual(again, read);
      assert.deepEqual(Object.keys(again), ['contents']);

      const call = await client.callTool('chatty');
      assert.deepEqual({ ...call }, { content: [{ type: 'text', text: 'done' }] });
      assert.equal(resultPlumbing(call).resultType, 'complete');
      // The tool's own _meta stays in view; the server info inside it does not.
      const meta = await client.callTool('with_meta');
      assert.deepEqual(JSON.parse(JSON.stringify(meta)), {
        content: [{ type: 'text', text: 'x' }],
        _meta: { 'example.com/trace': 'abc' },
      });
      assert.deepEqual(meta._meta?.[SERVER_INFO], { name: 'first-hour', version: '1.2.3' });
      assert.deepEqual(
        (await client.listTools()).map((t) => t.name),
        ['chatty', 'with_meta'],
      );
    } finally {
      await client.close();
    }
  });

  test('a stateful result has no such fields at all', async () => {
    const { client } = await connectInMemory(server(), { era: 'stateful' });
    try {
      const read = await client.readResource('memo://one');
      assert.deepEqual(Object.getOwnPropertyNames(read), ['contents']);
      assert.deepEqual(resultPlumbing(read), {});
    } finally {
      await client.close();
    }
  });
});
