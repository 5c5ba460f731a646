// Runs every compiled test file (dist/**/*.test.js) with Node's built-in test runner.
// Usage: node scripts/run-tests.mjs [substring-filter...]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
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
  ['--test', '--test-concurrency=2', '--test-timeout=300000', ...files],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
