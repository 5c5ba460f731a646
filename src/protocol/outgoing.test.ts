import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpkitError } from '../jsonrpc/errors.js';
import { OutgoingRequests } from './outgoing.js';

const timeoutMessage = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof McpkitError);
    assert.equal(error.code, 'REQUEST_TIMEOUT');
    return error.message;
  }
  assert.fail('the request settled');
};

// Timers run on the event loop's cached clock, so a timer may fire before `Date.now()` shows its full delay.
// Mocking only setTimeout makes that skew total: the timers fire at once while the wall clock barely moves.
test('a timer armed for the total ceiling reports the ceiling, whatever the wall clock reads', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const cancelled: string[] = [];
  const outgoing = new OutgoingRequests((_id, reason) => cancelled.push(reason));
  const { promise } = outgoing.begin('tools/call', {
    timeout: 600,
    maxTotalTimeout: 400,
    onprogress: () => {},
  });
  const message = timeoutMessage(promise);
  t.mock.timers.tick(400);
  assert.equal(await message, 'Request exceeded the maximum total timeout of 400 ms');
  assert.deepEqual(cancelled, [await message]);
});

test('a timer re-armed by progress names the idle timeout while the ceiling is still far away', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const outgoing = new OutgoingRequests(() => {});
  const { id, promise } = outgoing.begin('tools/call', {
    timeout: 100,
    maxTotalTimeout: 10_000,
    onprogress: () => {},
  });
  const message = timeoutMessage(promise);
  assert.equal(outgoing.progress({ progressToken: id, progress: 1 }), true);
  t.mock.timers.tick(100);
  assert.equal(await message, 'Request timed out after 100 ms');
});

test('progress that brings the ceiling closer than the idle timeout arms the ceiling', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const now = t.mock.method(Date, 'now', () => 1_000);
  const outgoing = new OutgoingRequests(() => {});
  const { id, promise } = outgoing.begin('tools/call', {
    timeout: 300,
    maxTotalTimeout: 400,
    onprogress: () => {},
  });
  const message = timeoutMessage(promise);
  now.mock.mockImplementation(() => 1_250); // 150 ms of the ceiling left, less than the 300 ms idle timeout
  assert.equal(outgoing.progress({ progressToken: id, progress: 1 }), true);
  now.mock.mockImplementation(() => 1_260); // the timer fires on its own clock, "early" by the wall clock
  t.mock.timers.tick(150);
  assert.equal(await message, 'Request exceeded the maximum total timeout of 400 ms');
});
