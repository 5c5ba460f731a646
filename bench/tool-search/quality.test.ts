import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const QUALITY = fileURLToPath(new URL('./quality.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-quality-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The quality bench at 50 tools, one seed, on the tuning half, with `args` added (bounded in time). */
function quality(args: string[]) {
  return spawnSync(
    process.execPath,
    [QUALITY, '--split', 'dev', '--sizes', '50', '--seeds', '1', '--rankers', 'embedding,hybrid', ...args],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
}

test('--embedder measures another model: its vectors rank the tools and are kept in the cache given', () => {
  // A stand-in model: a text's letters counted, one dimension per letter.
  const module = join(dir, 'letters.mjs');
  writeFileSync(
    module,
    `export default (texts) => texts.map((t) => {
      const v = new Array(26).fill(0);
      for (const c of t.toLowerCase()) { const i = c.charCodeAt(0) - 97; if (i >= 0 && i < 26) v[i]++; }
      return v;
    });\n`,
  );
  const cache = join(dir, 'vectors.json');
  const run = quality(['--embedder', module, '--embed-cache', cache]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /\| embedding \| 50 \| 0\.\d{3} \| 0\.\d{3} \|/);
  assert.match(run.stdout, /\| hybrid \| 50 \| 0\.\d{3} \| 0\.\d{3} \|/);
  const kept = JSON.parse(readFileSync(cache, 'utf8')) as [string, number[]][];
  assert.ok(kept.length > 1000, `${kept.length} texts kept`);
  assert.equal(kept[0]?.[1].length, 26);
});

test('--embedder refuses a module whose default export is not an embedder', () => {
  const module = join(dir, 'nothing.mjs');
  writeFileSync(module, 'export const embed = 1;\n');
  const run = quality(['--embedder', module, '--embed-cache', join(dir, 'unused.json')]);
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /--embedder .*nothing\.mjs: its default export is not a function/);
});
