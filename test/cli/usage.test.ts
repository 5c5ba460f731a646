// The command line itself: help, unknown commands and flags (exit 1 with the nearest name), usage errors as JSON.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { MCPKIT, mcpkit, ROOT } from './helpers.js';

describe('mcpkit: the command line', { timeout: 120_000 }, () => {
  test('--help lists every command and the exit codes, exit 0', async () => {
    const run = await mcpkit(['--help']);
    assert.equal(run.code, 0, run.stderr);
    for (const name of [
      'tools',
      'resources',
      'templates',
      'prompts',
      'call',
      'read',
      'prompt',
      'complete',
      'ping',
      'discover',
      'auth',
    ])
      assert.match(run.stdout, new RegExp(`^  ${name} `, 'm'), name);
    assert.match(
      run.stdout,
      /Exit codes: 0 ok, 1 usage, 2 server failed to start, 3 authorization required, 4 unreachable,\s+5 the tool returned isError, 6 the server answered with an error, 7 timed out/,
    );
    assert.match(
      run.stdout,
      /0 and 1 as the official Inspector CLI, which exits only 0 or 1; 2-7 are mcpkit's\s+refinements/,
    );
    assert.doesNotMatch(run.stdout, /compatible with/i);
  });

  test('the bin is the bundled file with a node shebang', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { bin: Record<string, string> };
    assert.equal(`${ROOT}${pkg.bin.mcpkit}`, MCPKIT);
    assert.ok(readFileSync(MCPKIT, 'utf8').startsWith('#!/usr/bin/env node\n'));
  });

  test('an unknown command: exit 1 naming the nearest one', async () => {
    const run = await mcpkit(['tols']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /unknown command 'tols'/);
    assert.match(run.stderr, /Did you mean tools\?/);
  });

  test('an unknown flag: exit 1 naming the nearest one', async () => {
    const run = await mcpkit(['tools', '--formt', 'json']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /unknown option '--formt'/);
    assert.match(run.stderr, /Did you mean --format\?/);
  });

  test('a usage error under --format json is one JSON object on stderr', async () => {
    const run = await mcpkit(['tools', '--format', 'json', '--bogus']);
    assert.equal(run.code, 1);
    const error = JSON.parse(run.stderr) as { error: { kind: string; exitCode: number; message: string } };
    assert.equal(error.error.kind, 'usage');
    assert.equal(error.error.exitCode, 1);
    assert.match(error.error.message, /--bogus/);
    assert.equal(run.stdout, '');
  });

  test('no target at all: exit 1 saying how to name one', async () => {
    const run = await mcpkit(['tools']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no target: give a URL, a configured server name, or a command after --/);
  });

  test('a target and a command after -- together: exit 1', async () => {
    const run = await mcpkit(['tools', 'http://127.0.0.1:1/mcp', '--', 'node', 'x.js']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /either a target .* or a command after --, not both/);
  });

  test('bad -e and --header values: exit 1', async () => {
    const env = await mcpkit(['tools', '-e', 'NOEQUALS', '--', 'node', 'x.js']);
    assert.equal(env.code, 1);
    assert.match(env.stderr, /-e needs NAME=value, got "NOEQUALS"/);
    const header = await mcpkit(['tools', 'http://127.0.0.1:1/mcp', '--header', 'no colon']);
    assert.equal(header.code, 1);
    assert.match(header.stderr, /--header needs "Name: value"/);
    const era = await mcpkit(['tools', '--era', 'newest', '--', 'node', 'x.js']);
    assert.equal(era.code, 1);
    assert.match(era.stderr, /--era must be "legacy", "modern" or "auto"/);
  });
});
