// Guards cheap by construction: a synchronous handler behind guards that all decide synchronously (the memory rate
// limiter, access rules, audit to a callback, size limits, concurrency caps, error normalization, a deadline) is
// answered synchronously, the server's fast path; a guard goes asynchronous only when it must (a store answering
// with a promise, a deadline around a handler that answered with a promise). And the audit's result sizes, measured
// by a walk instead of a second JSON text, are exactly the JSON text's length.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { JsonObject, JsonRpcRequest } from '../../src/jsonrpc/types.js';
import type { IncomingRequest } from '../../src/protocol/peer.js';
import type { Notifier } from '../../src/server/dispatch/setup.js';
import { jsonLength } from '../../src/server/guard/json-size.js';
import { McpServer, type ServerOptions } from '../../src/server/server.js';
import { MemoryRateLimitStore } from '../../src/store/rate-limit-store.js';
import { collect } from './helpers.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'fast', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const NOTIFIER: Notifier = { notify: async () => undefined, closed: false };

let nextId = 0;
/** Dispatches one stateless tools/call of `name` on `server`, as the HTTP endpoint does. */
function dispatch(server: McpServer, name: string): JsonObject | Promise<JsonObject> {
  const request: JsonRpcRequest = {
    jsonrpc: '2.0',
    id: ++nextId,
    method: 'tools/call',
    params: { name, arguments: { text: 'hi' }, _meta: META },
  };
  const controller = new AbortController();
  const incoming: IncomingRequest = { request, signal: controller.signal, context: undefined };
  return server.dispatchAlone(incoming, NOTIFIER);
}

function guarded(options: ServerOptions): McpServer {
  const s = new McpServer({ name: 'fast', version: '1' }, options);
  s.tool('echo', {}, () => 'echo');
  s.tool('slow', {}, async () => {
    await new Promise((r) => setTimeout(r, 1));
    return 'slow';
  });
  return s;
}

const ALL_SYNC = (sink: (r: unknown) => void): ServerOptions => ({
  rateLimit: { methods: { 'tools/call': { limit: '1000/h', key: 'client' } }, tools: { '*': '1000/h' } },
  access: {
    rules: [
      { effect: 'deny', tools: ['admin_*'] },
      { effect: 'allow', tools: ['echo', 'slow'] },
    ],
  },
  audit: { sink },
  limits: { maxArgumentsSize: 10_000, maxResultSize: 10_000 },
  concurrency: { perSession: 4, perTool: 8 },
  timeouts: { defaultMs: 5_000 },
  normalizeErrors: true,
});

describe('guards keep the synchronous fast path', () => {
  test('every guard on: a synchronous handler is answered synchronously, and audited', () => {
    const { records, sink } = collect();
    const s = guarded(ALL_SYNC(sink as (r: unknown) => void));
    for (let i = 0; i < 3; i++) {
      const out = dispatch(s, 'echo');
      assert.ok(!(out instanceof Promise), 'no promise: answered on the fast path');
      assert.deepEqual((out as { content: unknown }).content, [{ type: 'text', text: 'echo' }]);
    }
    assert.deepEqual(
      records.map((r) => r.outcome),
      ['ok', 'ok', 'ok'],
    );
    assert.equal(
      records[0]?.resultSize,
      JSON.stringify({ content: [{ type: 'text', text: 'echo' }] }).length,
    );
  });

  test('a refusal is synchronous too: over the limit throws at once, and is audited', () => {
    const { records, sink } = collect();
    const s = guarded({
      rateLimit: { methods: { 'tools/call': { limit: '1/h', key: 'global' } } },
      audit: { sink },
    });
    assert.ok(!(dispatch(s, 'echo') instanceof Promise));
    assert.throws(() => dispatch(s, 'echo'), /Rate limit exceeded/);
    assert.deepEqual(
      records.map((r) => r.outcome),
      ['ok', 'rate_limited'],
    );
  });

  test('asynchronous only where needed: a store answering with a promise, a handler answering with one', async () => {
    const memory = new MemoryRateLimitStore();
    const remote = guarded({
      rateLimit: {
        store: {
          take: (...a: Parameters<MemoryRateLimitStore['take']>) => Promise.resolve(memory.take(...a)),
        },
        methods: { 'tools/call': '100/h' },
      },
    });
    const viaStore = dispatch(remote, 'echo');
    assert.ok(viaStore instanceof Promise);
    assert.equal(((await viaStore) as { content: { text: string }[] }).content[0]?.text, 'echo');
    const { sink } = collect();
    const slow = dispatch(guarded(ALL_SYNC(sink as (r: unknown) => void)), 'slow');
    assert.ok(slow instanceof Promise);
    assert.equal(((await slow) as { content: { text: string }[] }).content[0]?.text, 'slow');
  });

  test('a deadline still holds around an asynchronous handler (its signal aborted, its answer discarded)', async () => {
    let aborted = false;
    const s = new McpServer({ name: 'fast', version: '1' }, { timeouts: { defaultMs: 20 } });
    s.tool('hang', {}, (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => {
        aborted = true;
      });
      return new Promise<string>((resolve) => setTimeout(() => resolve('late'), 500));
    });
    s.tool('quick', {}, () => 'quick');
    assert.ok(!(dispatch(s, 'quick') instanceof Promise), 'a synchronous handler pays no timer');
    const out = (await dispatch(s, 'hang')) as { isError?: boolean; content: { text: string }[] };
    assert.equal(out.isError, true);
    assert.match(out.content[0]?.text ?? '', /timed out after 20 ms/);
    assert.ok(aborted);
  });
});

describe('jsonLength', () => {
  test('is the length of JSON.stringify for any JSON value, odd strings included', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        fc.array(tie('node')),
        fc.dictionary(text, tie('node')),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        assert.equal(jsonLength(v), JSON.stringify(v)?.length);
      }),
      { numRuns: 2000 },
    );
  });

  test('lone surrogates, control characters, toJSON, class instances, -0 and deep nesting', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { a: [deep] };
    for (const v of [
      '\ud800',
      'a\udc00b',
      '\ud83d\ude00',
      '\u0000\u001f\b\t\n\f\r"\\',
      { when: new Date(0) },
      { n: -0, big: 1e21, small: 1e-7, frac: 0.1 },
      [undefined, () => 1, Symbol('s')],
      { skip: undefined, f: () => 1 },
      new Map([[1, 2]]),
      deep,
    ]) {
      assert.equal(jsonLength(v), JSON.stringify(v)?.length, JSON.stringify(v)?.slice(0, 40));
    }
    assert.equal(jsonLength(undefined), undefined);
  });
});
