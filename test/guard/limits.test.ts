// Size limits, error normalization and cached results of tools marked `cache`, in both eras.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import { McpServer, type ServerOptions } from '../../src/server/server.js';
import { authOf, codeOf, collect, ERAS, memoryClient } from './helpers.js';

function server(options: ServerOptions, runs = { count: 0 }): McpServer {
  const s = new McpServer({ name: 'limited', version: '1' }, options);
  s.tool('echo', {}, (args: Record<string, unknown>) => JSON.stringify(args));
  s.tool('big', {}, () => 'x'.repeat(5_000));
  s.tool('boom', {}, () => {
    throw new Error('connect ECONNREFUSED 10.0.0.7:5432 (secret host)');
  });
  s.tool('chosen', {}, () => ({
    content: [{ type: 'text', text: 'Nothing found for that query' }],
    isError: true,
  }));
  s.tool('lookup', { cache: { ttlMs: 60_000 } }, (args: Record<string, unknown>) => {
    runs.count++;
    return `looked up ${String(args.q)} (run ${runs.count})`;
  });
  s.tool('shared', { cache: { ttlMs: 60_000, scope: 'shared' } }, () => {
    runs.count++;
    return `shared run ${runs.count}`;
  });
  s.resource('mem://big', { name: 'big' }, () => 'y'.repeat(5_000));
  s.resource('mem://broken', { name: 'broken' }, () => {
    throw new Error('ENOENT: /etc/app/secret.conf');
  });
  return s;
}

describe('size limits', { timeout: 30_000 }, () => {
  for (const era of ERAS) {
    test(`${era}: arguments over the limit are refused, results over it answered with an error`, async () => {
      const { records, sink } = collect();
      const client = await memoryClient(
        server({ limits: { maxArgumentsSize: 100, maxResultSize: 1_000 }, audit: { sink } }),
        era,
      );
      try {
        assert.equal((await client.callTool('echo', { a: 'short' })).isError, undefined);
        await assert.rejects(
          client.callTool('echo', { a: 'z'.repeat(200) }),
          /Arguments of tools\/call echo too large: \d+ characters of JSON, at most 100/,
        );
        const big = await client.callTool('big');
        assert.equal(big.isError, true);
        assert.match(JSON.stringify(big.content), /too large: \d+ characters of JSON, at most 1000/);
        await assert.rejects(client.readResource('mem://big'), /too large/);
        assert.deepEqual(
          records.map((r) => r.outcome),
          ['ok', 'too_large', 'too_large', 'too_large'],
        );
      } finally {
        await client.close();
      }
    });
  }

  test('limits given wrong are refused', () => {
    assert.throws(() => server({ limits: { maxArgumentsSize: -1 } }), /limits\.maxArgumentsSize/);
    assert.throws(() => server({ limits: { maxResultSize: 1.5 } }), /limits\.maxResultSize/);
  });
});

describe('error normalization', { timeout: 30_000 }, () => {
  for (const era of ERAS) {
    test(`${era}: no internal detail reaches the client; the audit record has it, tied by a reference`, async () => {
      const { records, sink } = collect();
      const client = await memoryClient(server({ normalizeErrors: true, audit: { sink } }), era);
      try {
        const boom = await client.callTool('boom');
        assert.equal(boom.isError, true);
        const text = JSON.stringify(boom.content);
        assert.doesNotMatch(text, /ECONNREFUSED|10\.0\.0\.7|secret/);
        const ref = /Tool boom failed \(ref ([0-9a-f]{8})\)/.exec(text)?.[1];
        assert.ok(ref, text);
        const error = (await client.readResource('mem://broken').then(
          () => assert.fail('the read should fail'),
          (e: unknown) => e,
        )) as Error & { code: number };
        assert.equal(error.code, ErrorCode.InternalError);
        assert.doesNotMatch(error.message, /ENOENT|secret/);
        const readRef = /Internal error \(ref ([0-9a-f]{8})\)/.exec(error.message)?.[1];
        assert.ok(readRef, error.message);
        // A result the handler chose to mark isError, and deliberate JSON-RPC errors, pass unchanged.
        assert.deepEqual((await client.callTool('chosen')).content, [
          { type: 'text', text: 'Nothing found for that query' },
        ]);
        assert.equal(await codeOf(client.callTool('nonexistent')), ErrorCode.InvalidParams);
        const [boomRecord, readRecord] = records;
        assert.equal(boomRecord?.error?.ref, ref);
        assert.match(boomRecord?.error?.message ?? '', /ECONNREFUSED 10\.0\.0\.7/);
        assert.match(boomRecord?.error?.stack ?? '', /Error: connect ECONNREFUSED/);
        assert.equal(readRecord?.error?.ref, readRef);
        assert.match(readRecord?.error?.message ?? '', /ENOENT/);
      } finally {
        await client.close();
      }
    });
  }
});

describe('cached results of tools marked cache', { timeout: 30_000 }, () => {
  for (const era of ERAS) {
    test(`${era}: the same arguments are answered again without running the handler, per principal`, async () => {
      const runs = { count: 0 };
      const s = server({}, runs);
      const ann = await memoryClient(s, era, authOf('ann'));
      const bob = await memoryClient(s, era, authOf('bob'));
      try {
        const first = await ann.callTool('lookup', { q: 'a' });
        assert.deepEqual(await ann.callTool('lookup', { q: 'a' }), first);
        assert.equal(runs.count, 1);
        await ann.callTool('lookup', { q: 'b' });
        assert.equal(runs.count, 2, 'other arguments: another entry');
        await bob.callTool('lookup', { q: 'a' });
        assert.equal(runs.count, 3, 'another principal: another entry');
        await ann.callTool('shared');
        await bob.callTool('shared');
        assert.equal(runs.count, 4, 'scope shared: one entry for all');
      } finally {
        await ann.close();
        await bob.close();
      }
    });
  }

  test('an update of the tool forgets its results; errors are not kept; access still applies to a cached result', async () => {
    const runs = { count: 0 };
    const s = new McpServer(
      { name: 'c', version: '1' },
      {
        access: {
          rules: [{ effect: 'deny', tools: ['lookup'], principals: ['https://issuer.test|sub:eve'] }],
        },
      },
    );
    let fail = true;
    const handle = s.tool('lookup', { cache: { ttlMs: 60_000, scope: 'shared' } }, () => {
      runs.count++;
      if (fail) return { content: [{ type: 'text', text: 'flaky' }], isError: true };
      return `ok ${runs.count}`;
    });
    const ann = await memoryClient(s, 'stateless', authOf('ann'));
    const eve = await memoryClient(s, 'stateless', authOf('eve'));
    try {
      await ann.callTool('lookup');
      fail = false;
      await ann.callTool('lookup');
      await ann.callTool('lookup');
      assert.equal(runs.count, 2, 'the error was not kept, the success was');
      await assert.rejects(eve.callTool('lookup'), /Forbidden/);
      handle.update({ description: 'changed' });
      await ann.callTool('lookup');
      assert.equal(runs.count, 3);
    } finally {
      await ann.close();
      await eve.close();
    }
  });

  test('a bad cache mark is refused at registration', () => {
    const s = new McpServer({ name: 'c', version: '1' });
    assert.throws(
      () => s.tool('a', { cache: { ttlMs: -5 } }, () => 'a'),
      /Tool a: cache\.ttlMs must be a positive integer/,
    );
    assert.throws(
      () => s.tool('b', { cache: { ttlMs: 5, scope: 'world' as never } }, () => 'b'),
      /cache\.scope/,
    );
  });
});
