import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

test('package-lock.json records every optional dependency, so npm ci accepts it on every platform', () => {
  // npm ci refuses a lockfile that leaves out an optional package (another platform's binary) that a package in it
  // declares; `node scripts/complete-lockfile.mjs` adds what a registry that lacks them made npm leave out.
  const run = spawnSync(process.execPath, ['scripts/complete-lockfile.mjs', '--check'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(
    run.status,
    0,
    `${run.stderr}run \`node scripts/complete-lockfile.mjs\` and commit package-lock.json`,
  );
});
