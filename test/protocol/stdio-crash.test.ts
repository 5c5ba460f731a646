// A stdio server that dies mid-request: the pending call fails promptly with CONNECTION_CLOSED naming the exit.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, test } from 'node:test';
import { McpkitError } from '../../src/index.js';
import { deadline, eventually } from './helpers.js';
import { connectStdio, killStarted } from './stdio-helpers.js';

const skip = process.platform === 'win32' ? 'stdio process tests run on POSIX' : false;

after(() => killStarted());

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('process.exit(3) inside a tool fails the pending call with CONNECTION_CLOSED mentioning the exit', {
  skip,
}, async () => {
  const closes: (Error | undefined)[] = [];
  const { client, transport } = await connectStdio({ onclose: (e) => closes.push(e), onerror: () => {} });
  const pid = transport.pid;
  assert.ok(pid);
  // A long request timeout: only the crash can end this call in time.
  const call = client.callTool('crash', { code: 3 }, { timeout: 60_000 });
  await deadline(
    assert.rejects(call, (error: unknown) => {
      assert.ok(error instanceof McpkitError, String(error));
      assert.equal(error.code, 'CONNECTION_CLOSED');
      assert.match(error.message, /exit/i);
      assert.match(error.message, /code 3/);
      assert.match(error.message, /crashing with code 3/, 'the stderr tail explains the crash');
      return true;
    }),
    'the pending call to fail after the crash',
    10_000,
  );
  await eventually(() => closes.length === 1, 'onclose');
  assert.ok(closes[0] instanceof McpkitError);
  assert.equal((closes[0] as McpkitError).code, 'PROCESS_EXITED');
  assert.equal(isAlive(pid), false);
  // The client is closed for good.
  await assert.rejects(() => client.ping(), { code: 'NOT_CONNECTED' });
});

test('every pending call fails, not just the one that crashed the server', { skip }, async () => {
  const { client } = await connectStdio({ onerror: () => {} });
  const waiting = client.callTool('wait', {}, { timeout: 60_000 });
  const crashing = client.callTool('crash', { code: 7 }, { timeout: 60_000 });
  for (const call of [waiting, crashing]) {
    await deadline(assert.rejects(call, { code: 'CONNECTION_CLOSED' }), 'the calls to fail', 10_000);
  }
});

test('a server exiting with code 0 mid-request still names the exit', {
  skip,
}, async () => {
  const { client } = await connectStdio({ onerror: () => {} });
  await deadline(
    assert.rejects(client.callTool('crash', { code: 0 }, { timeout: 60_000 }), (error: unknown) => {
      assert.ok(error instanceof McpkitError);
      assert.equal(error.code, 'CONNECTION_CLOSED');
      assert.match(error.message, /exit/i);
      return true;
    }),
    'the pending call to fail',
    10_000,
  );
});
