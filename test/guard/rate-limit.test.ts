// Rate limits end to end: per client on tool calls in both eras (in-memory, Streamable HTTP with sessions, the
// legacy stateless mode and the 2026-07-28 revision with 429 and Retry-After), per tool and per method, keys by
// principal so that a flood from one principal never limits another, limits on sampling per session, and
// options given wrong refused when the server is made or starts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import { parseRate } from '../../src/server/guard/rate.js';
import { McpServer, type ServerOptions } from '../../src/server/server.js';
import { MemoryRateLimitStore } from '../../src/store/rate-limit-store.js';
import { handlers } from '../tasks/fixture.js';
import { authOf, codeOf, collect, ERAS, httpClient, memoryClient, principal, serveHttp } from './helpers.js';

function server(options: ServerOptions): McpServer {
  const s = new McpServer({ name: 'limited', version: '1' }, options);
  s.tool('echo', {}, () => 'echo');
  s.tool('search', {}, () => 'found');
  s.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'q' } }],
      maxTokens: 5,
    });
    return answer.content && !Array.isArray(answer.content) && answer.content.type === 'text'
      ? answer.content.text
      : '';
  });
  s.resource('mem://a', { name: 'a' }, () => 'a');
  return s;
}

/** Calls `name` n times in sequence; counts outcomes. */
async function calls(
  call: () => Promise<unknown>,
  n: number,
): Promise<{ ok: number; limited: number; other: unknown[] }> {
  const out = { ok: 0, limited: 0, other: [] as unknown[] };
  for (let i = 0; i < n; i++) {
    const code = await codeOf(call());
    if (code === undefined) out.ok++;
    else if (code === ErrorCode.RateLimited) out.limited++;
    else out.other.push(code);
  }
  return out;
}

// Rates of a few per hour: no token comes back during a test, so counts are exact whatever the machine's load.
const PER_CLIENT: ServerOptions = {
  rateLimit: { methods: { 'tools/call': { limit: '3/h', key: 'client' } } },
};

describe('rate limits', { timeout: 60_000 }, () => {
  for (const era of ERAS) {
    test(`${era}, in memory: tool calls per client; the error says when to retry; other methods are free`, async () => {
      const client = await memoryClient(server(PER_CLIENT), era);
      try {
        const counted = await calls(() => client.callTool('echo'), 5);
        assert.deepEqual(counted, { ok: 3, limited: 2, other: [] });
        const error = await client.callTool('echo').catch((e: unknown) => e);
        assert.match(
          String((error as Error).message),
          /Rate limit exceeded for tools\/call echo \(3\/h per client on tools\/call\): retry after \d+ ms/,
        );
        assert.ok((error as { data: { retryAfterMs: number } }).data.retryAfterMs > 1000);
        assert.equal((await client.readResource('mem://a')).contents.length, 1);
      } finally {
        await client.close();
      }
    });
  }

  for (const [label, era, sessions] of [
    ['stateful sessions', 'stateful', true],
    ['legacy stateless', 'stateful', false],
    ['2026-07-28', 'stateless', true],
  ] as const) {
    test(`over HTTP (${label}): over the limit is refused, and the client learns when to retry`, async () => {
      const s = server({ rateLimit: { methods: { 'tools/call': { limit: '2/h', key: 'global' } } } });
      const running = await serveHttp(s, { sessions });
      const client = await httpClient(running.url, era);
      try {
        assert.deepEqual(await calls(() => client.callTool('echo'), 4), { ok: 2, limited: 2, other: [] });
      } finally {
        await client.close();
        await running.close();
      }
    });
  }

  test('a 2026-07-28 POST over the limit is answered 429 with Retry-After, the body a JSON-RPC error', async () => {
    const running = await serveHttp(
      server({ rateLimit: { methods: { 'tools/call': { limit: '1/h', key: 'global' } } } }),
    );
    try {
      const post = () =>
        fetch(running.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'echo',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'tools/call',
            params: {
              name: 'echo',
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }),
        });
      assert.equal((await post()).status, 200);
      const refused = await post();
      assert.equal(refused.status, 429);
      const seconds = Number(refused.headers.get('retry-after'));
      assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 3600, `Retry-After ${seconds}`);
      const body = (await refused.json()) as {
        id: number;
        error: { code: number; data: { retryAfterMs: number } };
      };
      assert.equal(body.id, 7);
      assert.equal(body.error.code, ErrorCode.RateLimited);
      assert.ok(body.error.data.retryAfterMs > 0);
    } finally {
      await running.close();
    }
  });

  for (const era of ERAS) {
    test(`${era}: a flood from one principal never limits another (keys by principal, over HTTP)`, async () => {
      const s = server({ rateLimit: { methods: { 'tools/call': '5/h' } } });
      const running = await serveHttp(s, { auth: true });
      const mallory = await httpClient(running.url, era, 'mallory');
      const alice = await httpClient(running.url, era, 'alice');
      try {
        // Mallory's flood, with Alice's calls interleaved among it.
        const flood = Promise.all(Array.from({ length: 40 }, () => codeOf(mallory.callTool('echo'))));
        const aliceCalls = calls(() => alice.callTool('echo'), 5);
        const [codes, aliceCounted] = await Promise.all([flood, aliceCalls]);
        assert.deepEqual(aliceCounted, { ok: 5, limited: 0, other: [] });
        assert.equal(codes.filter((c) => c === undefined).length, 5);
        assert.equal(codes.filter((c) => c === ErrorCode.RateLimited).length, 35);
      } finally {
        await mallory.close();
        await alice.close();
        await running.close();
      }
    });
  }

  test('per tool: a named tool has its own limit, "*" gives each tool its own bucket', async () => {
    const s = server({ rateLimit: { tools: { search: '1/h', '*': '2/h' }, key: 'global' } });
    const client = await memoryClient(s, 'stateful');
    try {
      assert.deepEqual(await calls(() => client.callTool('search'), 3), { ok: 1, limited: 2, other: [] });
      assert.deepEqual(await calls(() => client.callTool('echo'), 3), { ok: 2, limited: 1, other: [] });
      // The "*" bucket of search is separate from echo's: search was refused by its own limit, not echo's.
    } finally {
      await client.close();
    }
  });

  test('"*" method limit counts every request, each principal its own bucket', async () => {
    const s = server({ rateLimit: { methods: { '*': '3/h' } } });
    const bob = await memoryClient(s, 'stateless', authOf('bob'));
    const carol = await memoryClient(s, 'stateless', authOf('carol'));
    try {
      await bob.listTools();
      await bob.readResource('mem://a');
      await bob.callTool('echo');
      assert.equal(await codeOf(bob.callTool('echo')), ErrorCode.RateLimited);
      assert.equal(await codeOf(carol.callTool('echo')), undefined);
    } finally {
      await bob.close();
      await carol.close();
    }
  });

  test('a key function: requests it returns undefined for are not counted', async () => {
    const s = server({
      rateLimit: {
        methods: {
          'tools/call': { limit: '1/h', key: (r) => (r.params.name === 'search' ? 'search' : undefined) },
        },
      },
    });
    const client = await memoryClient(s, 'stateless');
    try {
      assert.deepEqual(await calls(() => client.callTool('echo'), 3), { ok: 3, limited: 0, other: [] });
      assert.deepEqual(await calls(() => client.callTool('search'), 2), { ok: 1, limited: 1, other: [] });
    } finally {
      await client.close();
    }
  });

  test("sampling per session: the handler's ctx.sample() is refused over the limit, the call still answers", async () => {
    const seen = { elicitations: 0, samplings: 0 };
    const s = server({ rateLimit: { clientRequests: { sampling: '2/h' } } });
    const first = await memoryClient(s, 'stateful', undefined, handlers(seen));
    const second = await memoryClient(s, 'stateful', undefined, handlers(seen));
    try {
      assert.equal((await first.callTool('ask')).isError, undefined);
      assert.equal((await first.callTool('ask')).isError, undefined);
      const third = await first.callTool('ask');
      assert.equal(third.isError, true);
      assert.match(JSON.stringify(third.content), /sampling\/createMessage is over its rate limit/);
      assert.equal(seen.samplings, 2, 'the third sampling request never reached the client');
      // Another session has its own budget.
      assert.equal((await second.callTool('ask')).isError, undefined);
      assert.equal(seen.samplings, 3);
    } finally {
      await first.close();
      await second.close();
    }
  });

  test('an asynchronous store works the same (every take a promise)', async () => {
    const memory = new MemoryRateLimitStore();
    const store = {
      take: (...a: Parameters<MemoryRateLimitStore['take']>) => Promise.resolve(memory.take(...a)),
    };
    // Limits are taken in turn: a call refused by the second has spent a token of the first (echo's second call).
    const s = server({
      rateLimit: { store, methods: { 'tools/call': '3/h' }, tools: { echo: '1/h' }, key: 'global' },
    });
    const client = await memoryClient(s, 'stateless');
    try {
      assert.deepEqual(await calls(() => client.callTool('echo'), 2), { ok: 1, limited: 1, other: [] });
      assert.deepEqual(await calls(() => client.callTool('search'), 2), { ok: 1, limited: 1, other: [] });
    } finally {
      await client.close();
    }
  });

  test('a rate-limited call is still audited', async () => {
    const { records, sink } = collect();
    const s = server({ ...PER_CLIENT, audit: { sink } });
    const client = await memoryClient(s, 'stateful', authOf('dave'));
    try {
      await calls(() => client.callTool('echo', { q: 1 }), 4);
      assert.deepEqual(
        records.map((r) => r.outcome),
        ['ok', 'ok', 'ok', 'rate_limited'],
      );
      const last = records[3];
      assert.equal(last?.principal, principal('dave'));
      assert.equal(last?.error?.code, ErrorCode.RateLimited);
      assert.equal(last?.argumentsDigest, records[0]?.argumentsDigest);
    } finally {
      await client.close();
    }
  });
});

describe('rate limit options given wrong', () => {
  const make = (options: ServerOptions) => () => new McpServer({ name: 'x', version: '1' }, options);
  test('refused when the server is made, naming the option', () => {
    assert.throws(
      make({ rateLimit: { methods: { 'tools/call': '-5/s' } } }),
      /rateLimit\.methods\["tools\/call"\].*not a rate/,
    );
    assert.throws(make({ rateLimit: { methods: { 'tools/call': '0/s' } } }), /positive integer/);
    assert.throws(make({ rateLimit: { methods: { 'tools/call': '5/fortnight' } } }), /not a rate/);
    assert.throws(
      make({ rateLimit: { tools: { echo: { limit: { capacity: -1, refillPerSecond: 1 } } } } }),
      /capacity must be a positive integer/,
    );
    assert.throws(
      make({ rateLimit: { tools: { echo: { limit: { capacity: 1, refillPerSecond: 0 } } } } }),
      /refillPerSecond/,
    );
    assert.throws(
      make({ rateLimit: { methods: { 'tools/call': { limit: '1/s', key: 'planet' as never } } } }),
      /Unknown key "planet"/,
    );
  });

  test('an unknown tool name is refused at start (connect and the HTTP endpoint), a pattern is not', async () => {
    const s = server({ rateLimit: { tools: { serch: '1/s' } } });
    await assert.rejects(
      memoryClient(s, 'stateful'),
      /rateLimit\.tools\["serch"\]: no tool named "serch" is registered/,
    );
    await assert.rejects(
      serveHttp(server({ rateLimit: { tools: { serch: '1/s' } } })),
      /no tool named "serch"/,
    );
    const patterned = server({ rateLimit: { tools: { 'se*': '1/s' } } });
    const client = await memoryClient(patterned, 'stateful');
    await client.close();
  });

  test('rates parse as written', () => {
    assert.deepEqual(parseRate('5/s', 'x'), { capacity: 5, refillPerSecond: 5 });
    assert.deepEqual(parseRate('120/min', 'x'), { capacity: 120, refillPerSecond: 2 });
    assert.deepEqual(parseRate('10/30s', 'x'), { capacity: 10, refillPerSecond: 10 / 30 });
    assert.deepEqual(parseRate('3600/h', 'x'), { capacity: 3600, refillPerSecond: 1 });
  });
});
