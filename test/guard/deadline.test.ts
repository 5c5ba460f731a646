// Deadlines and concurrency caps of tool calls, in both eras: a handler past its deadline has its signal aborted,
// the call answers with an error result at once and the handler's late result is discarded (audited as timeout);
// caps hold calls at once per session and per tool, queue up to maxQueue and refuse beyond it; options given wrong
// are refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import { McpServer, type ServerOptions } from '../../src/server/server.js';
import { codeOf, collect, ERAS, memoryClient } from './helpers.js';

/** Polls until `check` holds (bounded: fails after 5 s). */
async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A gate a test opens by hand. */
function gate(): { wait: Promise<void>; open: () => void } {
  const opener: { open: () => void } = { open: () => undefined };
  const wait = new Promise<void>((resolve) => {
    opener.open = resolve;
  });
  return { wait, open: () => opener.open() };
}

describe('deadlines', { timeout: 60_000 }, () => {
  for (const era of ERAS) {
    test(`${era}: the handler's signal aborts, the call answers with an error, the late result is discarded`, async () => {
      const { records, sink } = collect();
      const release = gate();
      let aborted: unknown;
      let lateReturned = false;
      const s = new McpServer(
        { name: 't', version: '1' },
        { timeouts: { tools: { slow: 50 } }, audit: { sink } },
      );
      s.tool('slow', {}, async (_args, ctx) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = ctx.signal.reason;
        });
        await release.wait;
        lateReturned = true;
        return 'late result';
      });
      s.tool('fast', {}, () => 'fast');
      const client = await memoryClient(s, era);
      try {
        const result = await client.callTool('slow');
        assert.equal(result.isError, true);
        assert.deepEqual(result.content, [{ type: 'text', text: 'Tool slow timed out after 50 ms' }]);
        assert.match(String((aborted as Error).message), /timed out after 50 ms/);
        release.open();
        await new Promise((r) => setTimeout(r, 20));
        assert.equal(lateReturned, true, 'the handler ran on');
        // The session goes on; the late result went nowhere.
        assert.deepEqual((await client.callTool('fast')).content, [{ type: 'text', text: 'fast' }]);
        assert.deepEqual(
          records.map((r) => [r.name, r.outcome]),
          [
            ['slow', 'timeout'],
            ['fast', 'ok'],
          ],
        );
        assert.equal(records[0]?.error?.code, 'REQUEST_TIMEOUT');
      } finally {
        await client.close();
      }
    });
  }

  test('a default deadline applies to every tool without its own; a call within it is untouched', async () => {
    const s = new McpServer(
      { name: 't', version: '1' },
      { timeouts: { defaultMs: 30, tools: { patient: 60_000 } } },
    );
    const never = new Promise<string>(() => undefined);
    s.tool('hang', {}, () => never);
    s.tool('patient', {}, async () => 'patient');
    const client = await memoryClient(s, 'stateless');
    try {
      assert.equal((await client.callTool('hang')).isError, true);
      assert.deepEqual((await client.callTool('patient')).content, [{ type: 'text', text: 'patient' }]);
    } finally {
      await client.close();
    }
  });
});

describe('concurrency caps', { timeout: 60_000 }, () => {
  for (const era of ERAS) {
    test(`${era}: per tool, with a bounded queue: beyond it a call is refused with RateLimited`, async () => {
      const release = gate();
      let running = 0;
      let most = 0;
      const s = new McpServer(
        { name: 't', version: '1' },
        { concurrency: { perTool: { render: 2 }, maxQueue: 1 } },
      );
      s.tool('render', {}, async () => {
        running++;
        most = Math.max(most, running);
        await release.wait;
        running--;
        return 'rendered';
      });
      s.tool('other', {}, () => 'other');
      const client = await memoryClient(s, era);
      try {
        const calls = [client.callTool('render'), client.callTool('render'), client.callTool('render')];
        await until(() => running === 2, 'two calls running');
        // Two run, one waits; a fourth finds the queue full. Other tools are not capped.
        assert.equal(await codeOf(client.callTool('render')), ErrorCode.RateLimited);
        assert.deepEqual((await client.callTool('other')).content, [{ type: 'text', text: 'other' }]);
        release.open();
        const results = await Promise.all(calls);
        assert.ok(results.every((r) => r.isError === undefined));
        assert.equal(most, 2);
      } finally {
        await client.close();
      }
    });
  }

  test('per session: one session at its cap does not hold back another', async () => {
    const release = gate();
    const s = new McpServer({ name: 't', version: '1' }, { concurrency: { perSession: 1 } });
    let running = 0;
    s.tool('wait', {}, async () => {
      running++;
      await release.wait;
      return 'done';
    });
    const first = await memoryClient(s, 'stateful');
    const second = await memoryClient(s, 'stateful');
    try {
      const held = first.callTool('wait');
      await until(() => running === 1, 'the first call running');
      assert.equal(await codeOf(first.callTool('wait')), ErrorCode.RateLimited);
      const other = second.callTool('wait');
      release.open();
      assert.equal((await held).isError, undefined);
      assert.equal((await other).isError, undefined);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('deadline and cap options given wrong', () => {
  const make = (options: ServerOptions) => () => new McpServer({ name: 'x', version: '1' }, options);
  test('refused when the server is made', () => {
    assert.throws(make({ timeouts: { defaultMs: -1 } }), /timeouts\.defaultMs: must be a positive integer/);
    assert.throws(make({ timeouts: { tools: { a: 0 } } }), /timeouts\.tools\["a"\]/);
    assert.throws(make({ concurrency: { perSession: 0 } }), /concurrency\.perSession/);
    assert.throws(make({ concurrency: { perTool: -2 } }), /concurrency\.perTool/);
    assert.throws(make({ concurrency: { perSession: 1, maxQueue: -1 } }), /concurrency\.maxQueue/);
  });
  test('an unknown tool is refused at start', async () => {
    const s = new McpServer({ name: 'x', version: '1' }, { timeouts: { tools: { ghost: 5 } } });
    s.tool('real', {}, () => 'r');
    await assert.rejects(memoryClient(s, 'stateful'), /timeouts\.tools\["ghost"\]: no tool named "ghost"/);
  });
});
