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

/**
 * The rooms inside folders as src/README.md states them, ground floor first: rows of a table naming `<folder>/<room>/`
 * (a sub-folder) or `<folder>/*.ts` (the folder's own files), grouped by the folder they divide (`server`,
 * `server/http`, ...).
 */
function statedRooms(readme: string): Map<string, string[]> {
  const rooms = new Map<string, string[]>();
  for (const m of readme.matchAll(/^ *\| `((?:[a-z-]+\/)+)([a-z-]+\/|\*\.ts)`\s*\|/gm)) {
    const folder = (m[1] as string).slice(0, -1);
    const list = rooms.get(folder) ?? [];
    list.push(m[2] as string);
    rooms.set(folder, list);
  }
  return rooms;
}

/** The folders src/README.md says never import each other (lines "`a/` and `b/` are siblings"). */
function statedSiblings(readme: string): [string, string][] {
  return [...readme.matchAll(/^`([a-z-]+)\/` and `([a-z-]+)\/` are siblings/gm)].map(
    (m) => [m[1] as string, m[2] as string] as [string, string],
  );
}

/** The room of `file` inside `folder` (`x/` for a file in its sub-folder x, `*.ts` for its own), or undefined. */
function roomOf(folder: string, file: string): string | undefined {
  if (!file.startsWith(`${folder}/`)) return undefined;
  const rest = file.slice(folder.length + 1).split('/');
  return rest.length === 1 ? '*.ts' : `${rest[0]}/`;
}

/**
 * Imports against the stated rooms and siblings among `files`: a file in a room not stated, an import of a later room
 * of the same folder (type-only imports included), an import between siblings.
 */
function roomViolations(
  files: ReadonlyMap<string, string>,
  rooms: ReadonlyMap<string, readonly string[]>,
  siblings: readonly (readonly [string, string])[],
): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    for (const [folder, order] of rooms) {
      const room = roomOf(folder, file);
      if (room !== undefined && !order.includes(room))
        found.push(`${file}: room ${folder}/${room} is not in the order of src/README.md`);
    }
    for (const spec of specifiers(text)) {
      const target = join(dirname(file), spec).split(sep).join('/').replace(/\.js$/, '.ts');
      for (const [folder, order] of rooms) {
        const from = roomOf(folder, file);
        const to = roomOf(folder, target);
        if (from === undefined || to === undefined || from === to) continue;
        if (order.indexOf(to) > order.indexOf(from))
          found.push(`${file} (${folder}/${from}) imports ${spec} (${folder}/${to}, a later room)`);
      }
      for (const [a, b] of siblings) {
        const [mine, theirs] = file.startsWith(`${a}/`) ? [a, b] : file.startsWith(`${b}/`) ? [b, a] : [];
        if (theirs !== undefined && target.startsWith(`${theirs}/`))
          found.push(`${file} (${mine}/) imports ${spec} (${theirs}/, its sibling)`);
      }
    }
  }
  return found;
}

const readme = readFileSync(join(src, 'README.md'), 'utf8');
const order = statedOrder(readme);
const rooms = statedRooms(readme);
const siblings = statedSiblings(readme);

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

test('src/README.md states the rooms of server/, server/http/ and transport/, and the client and server are siblings', () => {
  assert.deepEqual(Object.fromEntries(rooms), {
    transport: ['*.ts', 'http-client/'],
    server: ['handler/', 'definitions/', 'dispatch/', 'guard/', 'tasks/', 'mount/', '*.ts', 'http/'],
    'server/http': ['core/', 'cluster/', 'streamable/', 'legacy-sse/', 'adapters/'],
  });
  assert.deepEqual(siblings, [['client', 'server']]);
});

test('no room imports a later room of its folder, and siblings never import each other (type-only included)', () => {
  const files = new Map<string, string>();
  for (const path of tsFiles(src))
    files.set(relative(src, path).split(sep).join('/'), readFileSync(path, 'utf8'));
  assert.deepEqual(roomViolations(files, rooms, siblings), []);
});

test('the room check finds each kind of violation (it can fail)', () => {
  const files = new Map<string, string>([
    ['server/handler/context.ts', "import type { ServerSession } from '../dispatch/session.js';"],
    ['server/dispatch/session.ts', "import type { RequestContext } from '../handler/context.js';"],
    ['server/server.ts', "import { serve } from './http/adapters/node-serve.js';"],
    [
      'server/http/core/http.ts',
      "import { x } from '../streamable/handler.js';\nimport { y } from '../../server.js';",
    ],
    ['server/extra/w.ts', ''],
    ['client/y.ts', "import type { McpServer } from '../server/server.js';"],
    ['server/z.ts', "import type { Client } from '../client/client.js';"],
  ]);
  assert.deepEqual(roomViolations(files, rooms, siblings), [
    'server/handler/context.ts (server/handler/) imports ../dispatch/session.js (server/dispatch/, a later room)',
    'server/server.ts (server/*.ts) imports ./http/adapters/node-serve.js (server/http/, a later room)',
    'server/http/core/http.ts (server/http/core/) imports ../streamable/handler.js (server/http/streamable/, a later room)',
    'server/extra/w.ts: room server/extra/ is not in the order of src/README.md',
    'client/y.ts (client/) imports ../server/server.js (server/, its sibling)',
    'server/z.ts (server/) imports ../client/client.js (client/, its sibling)',
  ]);
});
