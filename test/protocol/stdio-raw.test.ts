// The fixture spawned raw: stdout carries nothing but JSON-RPC, and bad input written as raw lines is answered
// (oversized messages included) without stopping the server.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, test } from 'node:test';
import { parseMessage } from '../../src/jsonrpc/parse.js';
import type { JsonRpcResponse } from '../../src/jsonrpc/types.js';
import { errorOf, resultOf } from './helpers.js';
import { killStarted, RawProcess } from './stdio-helpers.js';

const skip = process.platform === 'win32' ? 'stdio process tests run on POSIX' : false;

after(() => killStarted());

async function pingOk(raw: RawProcess): Promise<void> {
  assert.deepEqual(resultOf(await raw.request('ping')), {});
}

test('stdout carries nothing but protocol messages, whatever the server does', { skip }, async () => {
  const raw = new RawProcess();
  try {
    await raw.initialize('2025-11-25', { sampling: {}, roots: {} });
    await raw.request('tools/list');
    await raw.request('tools/list', { cursor: 'bad' });
    await raw.request('tools/call', { name: 'noise' });
    await raw.request('tools/call', { name: 'echo', arguments: { text: 'line\nbreak "quoted" \u2028 ✓' } });
    await raw.request('tools/call', { name: 'content' });
    await raw.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } });
    await raw.request('tools/call', { name: 'add', arguments: { a: 'x' } });
    await raw.request('tools/call', {
      name: 'progress',
      arguments: { steps: 2 },
      _meta: { progressToken: 'p' },
    });
    await raw.request('tools/call', { name: 'log', arguments: { level: 'error', data: 'to the client' } });
    await raw.request('resources/list');
    await raw.request('resources/read', { uri: 'test://blob' });
    await raw.request('resources/read', { uri: 'test://broken' });
    await raw.request('resources/read', { uri: 'test://missing' });
    await raw.request('resources/templates/list');
    await raw.request('prompts/get', { name: 'greet', arguments: { name: 'Bob' } });
    await raw.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'B' },
    });
    raw.writeLine('this is not json');
    raw.writeLine('{"jsonrpc":"2.0","id":"x1"}');
    await pingOk(raw);
    const code = await raw.stop();
    assert.equal(code, 0, 'the server exits cleanly when stdin closes');
    assert.equal(raw.partial, '', 'no unterminated output');
    assert.ok(raw.lines.length >= 20);
    for (const line of raw.lines) {
      const parsed = parseMessage(line);
      assert.equal(parsed.kind, 'message', `not a JSON-RPC message on stdout: ${line}`);
    }
    assert.match(raw.stderr, /noise on stderr/, 'diagnostics go to stderr');
    // The escaped text came back intact on one line.
    const echo = raw.messages.find((m) => 'result' in m && JSON.stringify(m.result).includes('echo: line')) as
      | JsonRpcResponse
      | undefined;
    assert.ok(echo);
    assert.deepEqual(resultOf(echo).content, [{ type: 'text', text: 'echo: line\nbreak "quoted" \u2028 ✓' }]);
  } finally {
    await raw.stop().catch(() => {});
  }
});

test('bad input over stdio: each gets its error and the next message is still answered', {
  skip,
}, async () => {
  const raw = new RawProcess();
  try {
    await raw.initialize();
    const cases: [string, number, string | number | null][] = [
      ['{"jsonrpc":', -32700, null],
      ['{"jsonrpc":"1.0","id":1,"method":"ping"}', -32600, 1],
      ['{"jsonrpc":"2.0","id":2}', -32600, 2],
      ['{"jsonrpc":"2.0","id":3,"method":"nope/nope"}', -32601, 3],
      ['{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}', -32602, 4],
      ['[{"jsonrpc":"2.0","id":5,"method":"ping"}]', -32600, null],
    ];
    for (const [line, code, id] of cases) {
      const from = raw.lines.length;
      raw.writeLine(line);
      const answer = (await raw.waitFor(() => true, `the answer to ${line}`, from)) as JsonRpcResponse;
      assert.equal(answer.id, id, line);
      assert.equal(errorOf(answer).code, code, line);
      await pingOk(raw);
    }
    // A response to an id the server never used is ignored.
    const from = raw.lines.length;
    raw.writeLine('{"jsonrpc":"2.0","id":"never-sent","result":{}}');
    await pingOk(raw);
    assert.equal(raw.lines.length, from + 1);
    // An internal error does not leak.
    const broken = await raw.request('resources/read', { uri: 'test://broken' });
    assert.deepEqual(errorOf(broken), { code: -32603, message: 'Internal error' });
    assert.doesNotMatch(raw.lines.join('\n'), /secret internal detail/);
  } finally {
    await raw.stop();
  }
});

test('a batch on a 2025-03-26 stdio session is answered with an array', { skip }, async () => {
  const raw = new RawProcess();
  try {
    await raw.initialize('2025-03-26');
    const from = raw.lines.length;
    raw.writeLine(
      '[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]',
    );
    const batchLine = await raw.waitForLine((l) => l.startsWith('['), 'a batch answer line', from);
    await pingOk(raw);
    const answers = JSON.parse(batchLine) as { id: string }[];
    assert.deepEqual(answers.map((a) => a.id).sort(), ['b1', 'b2']);
  } finally {
    await raw.stop();
  }
});

test('an oversized message gets an error and the next message is still answered', { skip }, async () => {
  const raw = new RawProcess({ MCPKIT_FIXTURE_MAX_MESSAGE_BYTES: '1024' });
  try {
    await raw.initialize();
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 'huge',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x'.repeat(5000) } },
    });
    const from = raw.lines.length;
    raw.writeLine(huge);
    const answer = (await raw.waitFor(() => true, 'the oversize error', from)) as JsonRpcResponse;
    const error = errorOf(answer);
    assert.equal(error.code, -32600);
    assert.match(error.message, /1024/);
    assert.equal(answer.id, null);
    // The echo inside the oversized line never ran.
    await pingOk(raw);
    assert.equal(raw.messages.filter((m) => !('method' in m) && m.id === 'huge').length, 0);
    // A message just under the limit is fine; the stream is in sync again.
    const ok = await raw.request('tools/call', { name: 'echo', arguments: { text: 'y'.repeat(500) } });
    assert.equal((resultOf(ok).content as { text: string }[])[0]?.text, `echo: ${'y'.repeat(500)}`);
    // Split across writes, an oversized message is still caught.
    const from2 = raw.lines.length;
    raw.child.stdin!.write(huge.slice(0, 600));
    raw.child.stdin!.write(huge.slice(600, 1800));
    raw.child.stdin!.write(`${huge.slice(1800)}\n`);
    const again = (await raw.waitFor(() => true, 'the second oversize error', from2)) as JsonRpcResponse;
    assert.equal(errorOf(again).code, -32600);
    await pingOk(raw);
  } finally {
    await raw.stop();
  }
});

test('stdin closing does not lose answers: calls in flight are answered, then the server exits 0', {
  skip,
}, async () => {
  const raw = new RawProcess();
  await raw.initialize('2025-11-25', { sampling: {} });
  raw.writeLine(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 200 } },
    }),
  );
  // This one asks the client for a sample, which can no longer arrive once stdin is closed.
  raw.writeLine(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 'sample',
      method: 'tools/call',
      params: { name: 'sample', arguments: { prompt: 'hi' } },
    }),
  );
  await raw.waitFor((m) => 'method' in m && m.method === 'sampling/createMessage', 'the sampling request');
  raw.child.stdin!.end();
  assert.equal(await raw.exited, 0, `exit code (stderr: ${raw.stderr})`);
  const slow = raw.messages.find((m) => !('method' in m) && m.id === 'slow') as JsonRpcResponse | undefined;
  assert.ok(slow, 'the slow call was answered after stdin closed');
  assert.deepEqual(resultOf(slow), { content: [{ type: 'text', text: 'slow: 200' }] });
  const sample = raw.messages.find((m) => !('method' in m) && m.id === 'sample') as
    | JsonRpcResponse
    | undefined;
  assert.ok(sample, 'the call waiting on the client was answered too');
  const result = resultOf(sample) as { isError?: boolean; content: { text: string }[] };
  assert.equal(result.isError, true);
  assert.match(result.content[0]?.text ?? '', /closed/);
});
