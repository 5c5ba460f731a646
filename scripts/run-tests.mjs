// Runs every compiled test file (dist/**/*.test.js) with Node's built-in test runner.
// Usage: node scripts/run-tests.mjs [--tap] [substring-filter...]
// The output is concise by default (scripts/test-reporter.mjs: the failures and the counts); `--tap` or
// MCPKIT_TEST_REPORTER=tap gives the full TAP stream (or any reporter of node --test: spec, dot, ...). The exit code
// is node --test's own: non-zero when anything failed.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const reporter = args.includes('--tap') ? 'tap' : (process.env.MCPKIT_TEST_REPORTER ?? 'concise');
const filters = args.filter((a) => a !== '--tap');
const files = walk('dist', [])
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// A hung test fails after 5 minutes (the timeout covers each test file as a whole) instead of holding CI to its limit.
const result = spawnSync(
  process.execPath,
  [
    '--test',
    '--test-concurrency=2',
    '--test-timeout=300000',
    `--test-reporter=${reporter === 'concise' ? fileURLToPath(new URL('test-reporter.mjs', import.meta.url)) : reporter}`,
    '--test-reporter-destination=stdout',
    ...files,
  ],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
