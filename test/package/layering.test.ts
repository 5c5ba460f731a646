// The layering of src/README.md, checked: folders are pipeline stages and a folder imports only from itself and
// the folders listed above it (type-only imports included). The order is read from the README's table, so the
// document and the code cannot drift apart; entry points (src/*.ts) may import anything, folders never import them.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const src = join(root, 'src');

/** The folder order of src/README.md's table (`| \`jsonrpc/\` | ...` rows, top to bottom). */
function statedOrder(readme: string): string[] {
  return [...readme.matchAll(/^\| `([a-z-]+)\/`\s*\|/gm)].map((m) => m[1] as string);
}

/** Relative specifiers of every import and re-export, type-only and dynamic ones included. */
function specifiers(text: string): string[] {
  const pattern =
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  const out: string[] = [];
  for (const m of text.matchAll(pattern)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec?.startsWith('.')) out.push(spec);
  }
  return out;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The layering violations among `files` (path relative to src → source text): an import of a later folder, of an
 * entry point, or (outside tests) of anything beyond src/.
 */
function violations(files: ReadonlyMap<string, string>, order: readonly string[]): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    const parts = file.split('/');
    if (parts.length < 2) continue; // an entry point: it may import any folder
    const folder = parts[0] as string;
    const rank = order.indexOf(folder);
    if (rank < 0) {
      found.push(`${file}: folder ${folder}/ is not in the order of src/README.md`);
      continue;
    }
    for (const spec of specifiers(text)) {
      const target = join(dirname(file), spec).split(sep).join('/');
      if (target.startsWith('../')) {
        if (!file.endsWith('.test.ts')) found.push(`${file} imports ${spec}, outside src/`);
        continue;
      }
      const targetParts = target.split('/');
      if (targetParts.length < 2) {
        found.push(`${file} imports the entry point ${spec}`);
        continue;
      }
      const to = targetParts[0] as string;
      if (order.indexOf(to) > rank)
        found.push(`${file} (${folder}/) imports ${spec} (${to}/, a later folder)`);
    }
  }
  return found;
}

const readme = readFileSync(join(src, 'README.md'), 'utf8');
const order = statedOrder(readme);

test('src/README.md states the folder order, and every folder of src/ is in it', () => {
  assert.deepEqual(order, [
    'jsonrpc',
    'framing',
    'spec',
    'protocol',
    'schema',
    'store',
    'redis',
    'transport',
    'server',
    'client',
    'auth',
    'compose',
    'host',
    'inspector',
    'cli',
  ]);
  const folders = readdirSync(src, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  assert.deepEqual(folders, [...order].sort());
});

test('no folder imports from a folder below it, nor an entry point (type-only imports included)', () => {
  const files = new Map<string, string>();
  for (const path of tsFiles(src))
    files.set(relative(src, path).split(sep).join('/'), readFileSync(path, 'utf8'));
  assert.ok(files.size > 100, `read ${files.size} files`);
  assert.deepEqual(violations(files, order), []);
});

test('the check finds each kind of violation (it can fail)', () => {
  const files = new Map<string, string>([
    ['protocol/peer.ts', "import type { Transport } from '../transport/transport.js';"],
    ['spec/x.ts', "import {\n  a,\n  b,\n} from '../server/server.js';"],
    ['client/y.ts', "export * from '../index.js';"],
    ['server/z.ts', "const m = await import('../../test/helper.js');"],
    ['server/z.test.ts', "import { cases } from '../../test/fixtures/cases.js';"],
    ['jsonrpc/ok.ts', "// import { x } from '../transport/x.js';\nimport { y } from './y.js';"],
    ['extra/w.ts', ''],
    ['index.ts', "export * from './transport/memory.js';"],
  ]);
  assert.deepEqual(violations(files, order), [
    'protocol/peer.ts (protocol/) imports ../transport/transport.js (transport/, a later folder)',
    'spec/x.ts (spec/) imports ../server/server.js (server/, a later folder)',
    'client/y.ts imports the entry point ../index.js',
    'server/z.ts imports ../../test/helper.js, outside src/',
    'extra/w.ts: folder extra/ is not in the order of src/README.md',
  ]);
});
