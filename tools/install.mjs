// Installs one of the tools kept out of the root install (tools/runtimes: Bun, Deno, miniflare for test/runtimes;
// tools/bench: the official Inspector CLI that bench/cli.ts compares with; tools/embeddings: the model of
// mcpkit/search-embeddings, for its test and bench/tool-search) into its node_modules from its own
// lockfile, once: a stamp records the lockfile it installed, so a later run with the same lockfile does nothing.
// Their users run it on demand, so `npm test` needs nothing more than the root's `npm ci`. `--prefer-offline` takes
// what the npm cache holds without asking the registry again.
// Usage: node tools/install.mjs runtimes|bench|embeddings (exit code: npm's own; 2 for another name).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = ['runtimes', 'bench', 'embeddings'];
const name = process.argv[2] ?? '';
if (!TOOLS.includes(name)) {
  console.error(`usage: node tools/install.mjs ${TOOLS.join('|')}`);
  process.exit(2);
}
const here = join(dirname(fileURLToPath(import.meta.url)), name);
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
  console.error(`installing tools/${name} (npm ci, once) ...`);
  const run = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: here,
    stdio: ['ignore', 2, 2],
  });
  if (run.status !== 0) {
    console.error(`npm ci in tools/${name} failed (${run.error?.message ?? `exit ${run.status}`})`);
    process.exit(run.status || 1);
  }
  writeFileSync(stampFile, `${digest}\n`);
}
