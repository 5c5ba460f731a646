// Secrets on the command line never reach mcpkit's output: a URL's query values and a stdio server's secret-looking
// arguments are redacted in messages and in --format json; a URL with a password is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort, mcpkit } from './helpers.js';

test('a stdio server that fails: its --token value is not printed (text and json)', async () => {
  for (const format of ['text', 'json']) {
    const run = await mcpkit([
      'tools',
      '--format',
      format,
      '--',
      process.execPath,
      '-e',
      'process.exit(3)',
      '--',
      '--token=SECRET-ONE',
      '--api-key',
      'SECRET-TWO',
    ]);
    assert.equal(run.code, 2, run.stderr);
    assert.doesNotMatch(run.stdout + run.stderr, /SECRET/);
    assert.match(run.stderr, /--token=\[redacted\] --api-key \[redacted\]/);
  }
});

test('an unreachable URL: its ?api_key value is not printed (text and json)', async () => {
  const port = await freePort();
  for (const format of ['text', 'json']) {
    const run = await mcpkit([
      'tools',
      `http://127.0.0.1:${port}/mcp?api_key=SECRET-THREE`,
      '--format',
      format,
    ]);
    assert.equal(run.code, 4, run.stderr);
    assert.doesNotMatch(run.stdout + run.stderr, /SECRET/);
    assert.match(run.stderr, /\/mcp\?api_key=\[redacted\]/);
  }
});

test('a URL with a user name and password: exit 1, the password not echoed', async () => {
  const run = await mcpkit(['tools', 'http://me:SECRET-FOUR@127.0.0.1:1/mcp']);
  assert.equal(run.code, 1);
  assert.doesNotMatch(run.stdout + run.stderr, /SECRET/);
  assert.match(run.stderr, /Authorization/);
});
