// The CI slice of `npm run soak`: every scenario at small scale, with the same checks (leaks by the heap, load shed
// with 503 and recovered from, admitted requests answered within the soak's bound, a client served while others
// stall). The soak script gives the verdict; this test only runs it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

test('soak scenarios at CI scale', { timeout: 240_000 }, () => {
  const script = fileURLToPath(new URL('../../scripts/soak.js', import.meta.url));
  const run = spawnSync(process.execPath, [script, '--scale', 'ci'], { encoding: 'utf8', timeout: 230_000 });
  process.stdout.write(run.stdout.replace(/^/gm, '# '));
  assert.equal(run.status, 0, `soak failed:\n${run.stdout}\n${run.stderr}`);
});
