import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpkitError } from '../../jsonrpc/errors.js';
import { checkToolTaskConfig, MAX_TASK_RERUNS } from './tool-options.js';

test('tool task options are checked at registration', () => {
  checkToolTaskConfig('t', 'optional');
  checkToolTaskConfig('t', { mode: 'required', ttlMs: null, pollIntervalMs: 5 });
  checkToolTaskConfig('t', { reruns: 0 });
  checkToolTaskConfig('t', { reruns: MAX_TASK_RERUNS });
  for (const bad of [
    { reruns: MAX_TASK_RERUNS + 1 },
    { reruns: -1 },
    { reruns: 1.5 },
    { reruns: '1' },
    'always',
    { mode: 'sometimes' },
    { ttlMs: -1 },
    { ttlMs: 1.5 },
    { pollIntervalMs: 0 },
  ]) {
    assert.throws(
      () => checkToolTaskConfig('t', bad as never),
      (e: unknown) => e instanceof McpkitError && e.code === 'INVALID_DEFINITION',
      JSON.stringify(bad),
    );
  }
});
