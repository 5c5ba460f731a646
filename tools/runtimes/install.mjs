// Installs the runtimes (bun, deno, miniflare) into tools/runtimes/node_modules from its own lockfile, once: a stamp
// records the lockfile it installed, so a later run with the same lockfile does nothing. test/runtimes runs it on
// demand, so `npm test` needs nothing more than the root's `npm ci`. `--prefer-offline` takes what the npm cache
// holds without asking the registry again. Usage: node tools/runtimes/install.mjs (exit code: npm's own).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const stampFile = join(here, 'node_modules', '.mcpkit-installed');
const digest = createHash('sha256')
  .update(readFileSync(join(here, 'package.json')))
  .update(readFileSync(join(here, 'package-lock.json')))
  .digest('hex');

let stamp = '';
try {
  stamp = readFileSync(stampFile, 'utf8').trim();
} catch {
  // Not installed yet (or by hand, without the stamp): install.
}
if (stamp !== digest) {
  console.error('installing bun, deno and miniflare into tools/runtimes (npm ci, once) ...');
  const run = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: here,
    stdio: ['ignore', 2, 2],
  });
  if (run.status !== 0) {
    console.error(`npm ci in tools/runtimes failed (${run.error?.message ?? `exit ${run.status}`})`);
    process.exit(run.status || 1);
  }
  writeFileSync(stampFile, `${digest}\n`);
}
