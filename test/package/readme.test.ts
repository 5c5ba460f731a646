import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

test('the README shows the compiled tour examples verbatim', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  for (const file of [
    'examples/readme/server.ts',
    'examples/readme/client.ts',
    'examples/readme/http.ts',
    'examples/readme/compose.ts',
  ]) {
    assert.ok(readme.includes(readFileSync(join(root, file), 'utf8')), `README.md contains ${file}`);
  }
});

test('the README client tour prints what its comments promise, logs and progress included', () => {
  const run = spawnSync(process.execPath, ['dist/examples/readme/client.js'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(run.stdout.trim().split('\n'), [
    "2026-07-28 [ 'forecast' ]",
    "{ city: 'Oslo', highs: [ 20, 21 ] }",
    "true [ { type: 'text', text: 'No station in Atlantis' } ]",
    "[ 'weather://stations' ]",
    "[ 'Oslo', 'Lima', 'Perth' ]",
    "{ type: 'text', text: 'Plan three days in Lima.' }",
    "[ 'Lima' ]",
  ]);
  // Without a setLoggingLevel() call: the handler alone asks for 'info' and above.
  assert.match(run.stderr, /^\[info\] forecasting Oslo$/m);
  assert.match(run.stderr, /^progress 1\/2$/m);
  assert.match(run.stderr, /^progress 2\/2$/m);
});
