// Audit records and spans in both eras: every tool call, resource read, prompt get, sampling and elicitation
// request with time, principal, session, client, name, argument digest or redacted arguments, outcome, duration and
// sizes; W3C trace context from `_meta` reaches the tracing hook and the records; the JSONL file sink rotates; the
// example server's --rate-limit and --audit flags over stdio in both eras.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { Client } from '../../src/client/client.js';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { jsonlAuditSink } from '../../src/node.js';
import type { Transport } from '../../src/protocol/transport.js';
import { type AuditRecord, digest, isoTime } from '../../src/server/guard/audit.js';
import type { SpanEnd, SpanStart, Tracer } from '../../src/server/guard/trace-context.js';
import { McpServer, type ServerOptions } from '../../src/server/server.js';
import { createLinkedTransports } from '../../src/transport/memory.js';
import { StdioClientTransport } from '../../src/transport/stdio-client.js';
import { handlers } from '../tasks/fixture.js';
import { addAskTool, authOf, codeOf, collect, ERAS, type Era, memoryClient, principal } from './helpers.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

function server(options: ServerOptions): McpServer {
  const s = new McpServer({ name: 'audited', version: '1' }, options);
  s.tool('login', {}, (args: Record<string, unknown>) => `hello ${String(args.user)}`);
  s.tool('boom', {}, () => {
    throw new Error('database password rejected at db.internal:5432');
  });
  addAskTool(s);
  s.resource('mem://a', { name: 'a' }, () => 'a');
  s.prompt('greet', {}, () => 'hi');
  return s;
}

/** A client whose tools/call requests carry the `_meta` given for their `user` argument (as a traced client's would). */
async function tracingClient(s: McpServer, era: Era, metas: Record<string, JsonObject>): Promise<Client> {
  const [clientSide, serverSide] = createLinkedTransports({ serialize: true });
  await s.connect(serverSide);
  const transport: Transport = {
    start: (receiver) => clientSide.start(receiver),
    close: () => clientSide.close(),
    send: (message, options) => {
      if (
        !Array.isArray(message) &&
        'method' in message &&
        message.method === 'tools/call' &&
        message.params
      ) {
        const user = (message.params.arguments as { user?: string } | undefined)?.user ?? '';
        const extra = metas[user];
        if (extra) message.params._meta = { ...(message.params._meta as JsonObject | undefined), ...extra };
      }
      return clientSide.send(message, options);
    },
  };
  const client = new Client({ name: 'traced', version: '1' }, { era });
  await client.connect(transport);
  return client;
}

describe('audit', { timeout: 60_000 }, () => {
  for (const era of ERAS) {
    test(`${era}: a record of every tool call, read, prompt get, sampling and elicitation`, async () => {
      const { records, sink } = collect();
      const s = server({ audit: { sink } });
      const seen = { elicitations: 0, samplings: 0 };
      const client = await memoryClient(s, era, authOf('ann'), handlers(seen));
      try {
        await client.callTool('login', { user: 'ann', password: 'hunter2' });
        await client.callTool('boom');
        await client.readResource('mem://a');
        await client.getPrompt('greet');
        await client.callTool('ask');
        const byKind = (kind: AuditRecord['kind']) => records.filter((r) => r.kind === kind);
        const login = byKind('tool')[0] as AuditRecord;
        assert.equal(login.name, 'login');
        assert.equal(login.outcome, 'ok');
        assert.equal(login.principal, principal('ann'));
        assert.equal(login.client, 'oauth:https://issuer.test|app-ann');
        assert.equal(login.protocolVersion, era === 'stateless' ? '2026-07-28' : '2025-11-25');
        assert.equal(
          era === 'stateful' ? typeof login.session : login.session,
          era === 'stateful' ? 'string' : undefined,
        );
        assert.match(login.argumentsDigest ?? '', /^[0-9a-f]{14}$/);
        assert.equal(login.arguments, undefined, 'digest only by default');
        assert.equal(login.argumentsSize, JSON.stringify({ user: 'ann', password: 'hunter2' }).length);
        assert.ok((login.resultSize ?? 0) > 0);
        assert.ok(login.durationMs >= 0);
        assert.ok(!Number.isNaN(Date.parse(login.time)));
        const boom = byKind('tool')[1] as AuditRecord;
        assert.equal(boom.outcome, 'error');
        assert.match(boom.error?.message ?? '', /database password rejected/);
        assert.match(boom.error?.stack ?? '', /audit\.test/);
        assert.equal(byKind('resource')[0]?.name, 'mem://a');
        assert.equal(byKind('prompt')[0]?.name, 'greet');
        // Both eras: sampling and elicitation are recorded (the stateless era asks in input rounds).
        assert.ok(byKind('sampling').some((r) => r.outcome === 'ok'));
        assert.ok(byKind('elicitation').some((r) => r.outcome === 'ok'));
        assert.equal(byKind('tool').at(-1)?.outcome, 'ok');
      } finally {
        await client.close();
      }
    });
  }

  test('redacted arguments hide secret-looking values; the digest is the same for the same arguments', async () => {
    const { records, sink } = collect();
    const client = await memoryClient(server({ audit: { sink, arguments: 'redacted' } }), 'stateless');
    try {
      await client.callTool('login', { user: 'ann', password: 'hunter2', nested: { apiKey: 'k' } });
      assert.deepEqual(records[0]?.arguments, {
        user: 'ann',
        password: '[redacted]',
        nested: { apiKey: '[redacted]' },
      });
      assert.equal(records[0]?.argumentsDigest, undefined);
    } finally {
      await client.close();
    }
  });

  for (const era of ERAS) {
    test(`${era}: trace context from _meta reaches the tracer and the record; spans end with the outcome`, async () => {
      const { records, sink } = collect();
      const started: SpanStart[] = [];
      const ended: SpanEnd[] = [];
      const tracer: Tracer = {
        startSpan: (start) => {
          started.push(start);
          return { end: (end) => ended.push(end) };
        },
      };
      const client = await tracingClient(server({ audit: { sink, tracer } }), era, {
        x: { traceparent: TRACEPARENT, tracestate: 'vendor=1' },
        y: { traceparent: 'garbage' },
      });
      try {
        await client.callTool('login', { user: 'x' });
        await client.callTool('login', { user: 'y' });
        assert.equal(started[0]?.name, 'tools/call login');
        assert.equal(started[0]?.kind, 'server');
        assert.equal(started[0]?.attributes['gen_ai.tool.name'], 'login');
        assert.equal(started[0]?.attributes['mcp.method.name'], 'tools/call');
        assert.equal(started[0]?.parent?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
        assert.equal(started[0]?.parent?.parentSpanId, '00f067aa0ba902b7');
        assert.equal(started[0]?.parent?.tracestate, 'vendor=1');
        assert.equal(started[0]?.parent?.sampled, true);
        assert.equal(started[1]?.parent, undefined, 'a malformed traceparent is ignored');
        assert.deepEqual(
          ended.map((e) => e.outcome),
          ['ok', 'ok'],
        );
        assert.equal(records[0]?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
        assert.equal(records[1]?.traceId, undefined);
      } finally {
        await client.close();
      }
    });
  }

  test('a sink or tracer that throws is reported, and the call goes on', async () => {
    const reported: Error[] = [];
    const s = server({
      audit: {
        sink: () => {
          throw new Error('sink down');
        },
        tracer: {
          startSpan: () => {
            throw new Error('tracer down');
          },
        },
      },
      onerror: (e) => reported.push(e),
    });
    const client = await memoryClient(s, 'stateful');
    try {
      assert.deepEqual((await client.callTool('login', { user: 'z' })).content, [
        { type: 'text', text: 'hello z' },
      ]);
      assert.deepEqual(reported.map((e) => e.message).sort(), ['sink down', 'tracer down']);
    } finally {
      await client.close();
    }
  });

  test('the JSONL sink appends records and rotates by size', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-audit-'));
    try {
      const path = join(dir, 'audit.jsonl');
      const sink = jsonlAuditSink({ path, maxBytes: 2_000, keep: 2 });
      const client = await memoryClient(server({ audit: { sink } }), 'stateless');
      try {
        for (let i = 0; i < 30; i++) {
          await client.callTool('login', { user: `u${i}` });
          await sink.flush();
        }
      } finally {
        await client.close();
      }
      await sink.flush();
      const files = readdirSync(dir).sort();
      assert.deepEqual(files, ['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2']);
      for (const f of files) {
        const text = readFileSync(join(dir, f), 'utf8');
        assert.ok(text.length <= 2_000, `${f} is ${text.length} bytes`);
        for (const line of text.trim().split('\n'))
          assert.equal((JSON.parse(line) as AuditRecord).kind, 'tool');
      }
      const last = readFileSync(path, 'utf8').trim().split('\n').at(-1) as string;
      assert.match(last, /"argumentsDigest"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('audit options given wrong are refused', () => {
    const make = (audit: unknown) => () =>
      new McpServer({ name: 'x', version: '1' }, { audit: audit as never });
    assert.throws(make({}), /audit: needs a sink or a tracer/);
    assert.throws(make({ sink: 'file.jsonl' }), /audit\.sink/);
    assert.throws(make({ sink: () => undefined, arguments: 'all' }), /audit\.arguments/);
    assert.throws(() => jsonlAuditSink({ path: 'x', maxBytes: -1 }), /maxBytes/);
  });
});

describe('the example server: --rate-limit and --audit over stdio', { timeout: 60_000 }, () => {
  const serverPath = fileURLToPath(new URL('../../examples/everything/server.js', import.meta.url));
  for (const era of ERAS) {
    test(`${era}: tool calls limited per client, every call (the refused ones too) in the audit file`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mcpkit-example-audit-'));
      const file = join(dir, 'audit.jsonl');
      const client = new Client({ name: 'flags', version: '1' }, { era });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [serverPath, '--rate-limit', '3/h', '--audit', file],
          stderr: 'pipe',
        }),
      );
      try {
        const codes = [];
        for (let i = 0; i < 5; i++) codes.push(await codeOf(client.callTool('test_simple_text')));
        assert.deepEqual(codes, [
          undefined,
          undefined,
          undefined,
          ErrorCode.RateLimited,
          ErrorCode.RateLimited,
        ]);
      } finally {
        await client.close();
      }
      try {
        let lines: AuditRecord[] = [];
        const end = Date.now() + 5_000;
        while (lines.length < 5 && Date.now() < end) {
          await new Promise((r) => setTimeout(r, 20));
          try {
            lines = readFileSync(file, 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as AuditRecord);
          } catch {
            lines = [];
          }
        }
        assert.deepEqual(
          lines.map((r) => r.outcome),
          ['ok', 'ok', 'ok', 'rate_limited', 'rate_limited'],
        );
        assert.ok(lines.every((r) => r.name === 'test_simple_text' && r.kind === 'tool'));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('a bad --rate-limit is refused with exit code 2', () => {
    const run = spawnSync(process.execPath, [serverPath, '--rate-limit', '-5/s'], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /--rate-limit/);
  });
});

/** cyrb53 as published (53 bits as a number, then hex): what `digest` must equal, however it writes the hex. */
function cyrb53Hex(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

describe('argument digest', () => {
  test('is cyrb53 of the text as 14 lower-case hex digits, for any text', () => {
    assert.equal(digest(''), cyrb53Hex(''));
    assert.equal(digest('{"text":"hello world"}'), cyrb53Hex('{"text":"hello world"}'));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' })), (text) => {
        const d = digest(text);
        assert.match(d, /^[0-9a-f]{14}$/);
        assert.equal(d, cyrb53Hex(text));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('audit time', () => {
  test('is the ISO 8601 text of the millisecond, in any order of times (seconds, years and 1970 crossed)', () => {
    const ms = fc.oneof(
      fc.integer({ min: -62_000_000_000_000, max: 253_000_000_000_000 }),
      fc.integer({ min: 1_700_000_000_000, max: 1_700_000_005_000 }),
      fc.integer({ min: -3_000, max: 3_000 }),
    );
    fc.assert(
      fc.property(fc.array(ms, { minLength: 1, maxLength: 50 }), (times) => {
        for (const t of times) assert.equal(isoTime(t), new Date(t).toISOString(), String(t));
      }),
      { numRuns: 2000 },
    );
    for (let t = 1_700_000_000_990; t < 1_700_000_001_010; t++)
      assert.equal(isoTime(t), new Date(t).toISOString());
  });
});
