// `mcpkit call` refuses argument names the tool's input schema does not list, with the nearest listed name, though
// the schema omits `additionalProperties: false` (the reference server's do): `durration=1` ran a 10 s operation and
// `echo message=hi extra=1` exited 0. `--allow-unknown-args` sends them anyway.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mcpkit, OFFICIAL_STDIO } from './helpers.js';

describe('mcpkit call: argument names the schema does not list', { timeout: 300_000 }, () => {
  test('a misspelt name: exit 1 naming it and the nearest name; nothing is run', async () => {
    const run = await mcpkit(['call', 'trigger-long-running-operation', 'durration=1', ...OFFICIAL_STDIO]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      /error: tool "trigger-long-running-operation" has no argument "durration" \(did you mean "duration"\?\); its arguments: duration, steps \(to send it anyway: --allow-unknown-args\)/,
    );
    assert.doesNotMatch(run.stderr, /progress/);
    assert.equal(run.stdout, '');
  });

  test('an extra name, in key=value or --args-json: exit 1, also as JSON', async () => {
    const run = await mcpkit(['call', 'echo', 'message=hi', 'extra=1', ...OFFICIAL_STDIO]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /tool "echo" has no argument "extra"; its arguments: message/);
    const fromJson = await mcpkit([
      'call',
      'echo',
      '--args-json',
      '{"mesage":"hi"}',
      '--format',
      'json',
      ...OFFICIAL_STDIO,
    ]);
    assert.equal(fromJson.code, 1, fromJson.stderr);
    const error = JSON.parse(fromJson.stderr).error as Record<string, unknown>;
    assert.deepEqual([error.kind, error.argument, error.suggestion], ['usage', 'mesage', 'message']);
  });

  test('--allow-unknown-args sends them: the server takes the call', async () => {
    const run = await mcpkit([
      'call',
      'echo',
      'message=hi',
      'extra=1',
      '--allow-unknown-args',
      ...OFFICIAL_STDIO,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Echo: hi/);
  });
});
