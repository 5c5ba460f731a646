// The README and every page of docs/ cannot rot: each TypeScript block is type-checked against the built package in
// a fresh ES-module project, each `run` block is run and its output compared with the page, and each relative link
// points to a file that exists.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkPages, type Page } from './check.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** README.md and every Markdown page under docs/ (the generated docs/api/ aside). */
function pages(): Page[] {
  const names = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory() && path !== 'docs/api') walk(path);
      else if (entry.name.endsWith('.md')) names.push(path);
    }
  };
  walk('docs');
  return names.map((name) => ({ name, text: readFileSync(join(root, name), 'utf8') }));
}

test('every TypeScript block of the README and docs/ compiles against the package, and the run blocks print what the page shows', () => {
  const all = pages();
  const result = checkPages(all, { root });
  assert.deepEqual(result.failures, []);
  assert.ok(result.checked >= all.length, `checked ${result.checked} TypeScript blocks`);
  assert.ok(result.ran >= 3, `ran ${result.ran} blocks`);
});

test('every relative link of the README and docs/ names a file of the checkout (docs/api/ once generated)', () => {
  const broken: string[] = [];
  for (const page of pages()) {
    for (const m of page.text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = (m[1] as string).split('#')[0] as string;
      if (target === '' || /^[a-z]+:/.test(target)) continue;
      const path = join(root, dirname(page.name), target);
      // The API reference is generated (npm run docs): a link into it must at least name a public module.
      if (path.startsWith(join(root, 'docs/api/'))) continue;
      if (!existsSync(path)) broken.push(`${page.name}: ${m[1]}`);
    }
  }
  assert.deepEqual(broken, []);
});
