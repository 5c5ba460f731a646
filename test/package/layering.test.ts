// The layering of src/README.md, checked: folders are pipeline stages and a folder imports only from itself and
// the folders listed above it (type-only imports included). The order is read from the README's table, and the
// rules between siblings from its sentences ("`client/` never imports `server/`", "the folders of `cli/commands/`
// never import each other"), so the document and the code cannot drift apart; entry points (src/*.ts) may import
// anything, folders never import them. No two files import each other, directly or around a circle.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const src = join(root, 'src');

/** The folder order of src/README.md's table (`| \`jsonrpc/\` | ...` rows, top to bottom). */
function statedOrder(readme: string): string[] {
  return [...readme.matchAll(/^\| `([a-z-]+)\/`\s*\|/gm)].map((m) => m[1] as string);
}

/** A rule between siblings: files under `from` never import files under `to` (paths relative to src/, ending in /). */
interface Never {
  kind: 'never';
  from: string;
  to: string;
}

/** A rule among siblings: a file in one folder of `parent` never imports a file in another folder of it. */
interface Apart {
  kind: 'apart';
  parent: string;
}

type Rule = Never | Apart;

/**
 * The rules src/README.md states in its own words: "`X/` never imports `Y/`" (and "… nor `Z/`") and "the folders of
 * `X/` never import each other", paths relative to src/.
 */
function statedRules(readme: string): Rule[] {
  const rules: Rule[] = [];
  for (const m of readme.matchAll(/`([a-z/-]+\/)` never imports ((?:`[a-z/-]+\/`(?:,\s*|\s+nor\s+)?)+)/g))
    for (const to of (m[2] as string).matchAll(/`([a-z/-]+\/)`/g))
      rules.push({ kind: 'never', from: m[1] as string, to: to[1] as string });
  for (const m of readme.matchAll(/[Tt]he folders of `([a-z/-]+\/)` never import each other/g))
    rules.push({ kind: 'apart', parent: m[1] as string });
  return rules;
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
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

/** Where `spec`, imported by `file`, points (relative to src/, with `..` resolved; `../x` is beyond src/). */
function targetOf(file: string, spec: string): string {
  return posix.normalize(posix.join(posix.dirname(file), spec));
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
      const target = targetOf(file, spec);
      if (target.startsWith('../')) {
        if (!isTest(file)) found.push(`${file} imports ${spec}, outside src/`);
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

/** The imports among `files` that break one of `rules` (tests included: a test is in its folder's room too). */
function ruleBreaks(files: ReadonlyMap<string, string>, rules: readonly Rule[]): string[] {
  const found: string[] = [];
  for (const [file, text] of files)
    for (const spec of specifiers(text)) {
      const target = targetOf(file, spec);
      for (const rule of rules) {
        if (rule.kind === 'never') {
          if (file.startsWith(rule.from) && target.startsWith(rule.to))
            found.push(`${file} imports ${spec}: ${rule.from} never imports ${rule.to}`);
        } else if (file.startsWith(rule.parent) && target.startsWith(rule.parent)) {
          const own = file.slice(rule.parent.length).split('/');
          const other = target.slice(rule.parent.length).split('/');
          // Files directly in the parent folder belong to no one folder of it.
          if (own.length > 1 && other.length > 1 && own[0] !== other[0])
            found.push(
              `${file} imports ${spec}: the folders of ${rule.parent} never import each other (${own[0]}/, ${other[0]}/)`,
            );
        }
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

/** The room of `file` inside `folder` (`x/` for a file in its sub-folder x, `*.ts` for its own), or undefined. */
function roomOf(folder: string, file: string): string | undefined {
  if (!file.startsWith(`${folder}/`)) return undefined;
  const rest = file.slice(folder.length + 1).split('/');
  return rest.length === 1 ? '*.ts' : `${rest[0]}/`;
}

/**
 * Imports against the stated rooms among `files`: a file in a room not stated, an import of a later room of the same
 * folder (type-only imports included).
 */
function roomViolations(
  files: ReadonlyMap<string, string>,
  rooms: ReadonlyMap<string, readonly string[]>,
): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    for (const [folder, order] of rooms) {
      const room = roomOf(folder, file);
      if (room !== undefined && !order.includes(room))
        found.push(`${file}: room ${folder}/${room} is not in the order of src/README.md`);
    }
    for (const spec of specifiers(text)) {
      const target = targetOf(file, spec).replace(/\.js$/, '.ts');
      for (const [folder, order] of rooms) {
        const from = roomOf(folder, file);
        const to = roomOf(folder, target);
        if (from === undefined || to === undefined || from === to) continue;
        if (order.indexOf(to) > order.indexOf(from))
          found.push(`${file} (${folder}/${from}) imports ${spec} (${folder}/${to}, a later room)`);
      }
    }
  }
  return found;
}

/** Each file's imports among `files` (tests left out), relative to src/; a `.js` specifier is its `.ts`/`.tsx` source. */
function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    if (isTest(file)) continue;
    const edges = new Set<string>();
    for (const spec of specifiers(text)) {
      const target = targetOf(file, spec).replace(/\.js$/, '');
      const found = [`${target}.ts`, `${target}.tsx`].find((t) => files.has(t) && !isTest(t));
      if (found !== undefined) edges.add(found);
    }
    graph.set(file, [...edges].sort());
  }
  return graph;
}

/** A circle of imports: the files of one strongly connected component (sorted), and one shortest circle through the first. */
interface Circle {
  files: string[];
  path: string[];
}

/** Every circle of `graph`: each set of files that reach each other through imports (a file importing itself too). */
function circles(graph: ReadonlyMap<string, readonly string[]>): Circle[] {
  // Tarjan's strongly connected components, without recursion.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: [string, number][] = [[start, 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1] as [string, number];
      const [node, i] = top;
      const edges = graph.get(node) ?? [];
      if (i < edges.length) {
        top[1] = i + 1;
        const to = edges[i] as string;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push([to, 0]);
        } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent[0], Math.min(low.get(parent[0]) as number, low.get(node) as number));
      if (low.get(node) === index.get(node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1 || graph.get(node)?.includes(node)) components.push(component.sort());
      }
    }
  }
  return components
    .map((files) => ({ files, path: shortestCircle(graph, files) }))
    .sort((a, b) => (a.files[0] as string).localeCompare(b.files[0] as string));
}

/** The shortest circle from the first of `files` back to it, through `files` only (breadth first). */
function shortestCircle(graph: ReadonlyMap<string, readonly string[]>, files: readonly string[]): string[] {
  const start = files[0] as string;
  const inside = new Set(files);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] as string;
    for (const to of graph.get(node) ?? []) {
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = cameFrom.get(at))
          path.splice(1, 0, at);
        return [...path, start];
      }
      if (inside.has(to) && !cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** A circle as a person reads it: the shortest way round, then every file of it when there are more. */
function describe(circle: Circle): string {
  const way = circle.path.join(' → ');
  return circle.path.length - 1 === circle.files.length
    ? way
    : `${way} (one way round the ${circle.files.length} files ${circle.files.join(', ')})`;
}

/** Every file of src/ (path relative to src → source text), tests included. */
function sources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const path of tsFiles(src))
    files.set(relative(src, path).split(sep).join('/'), readFileSync(path, 'utf8'));
  return files;
}

const readme = readFileSync(join(src, 'README.md'), 'utf8');
const order = statedOrder(readme);
const rules = statedRules(readme);
const rooms = statedRooms(readme);
const files = sources();

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
    'otel',
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
  assert.ok(files.size > 100, `read ${files.size} files`);
  assert.deepEqual(violations(files, order), []);
});

test('src/README.md states the rules between siblings, and every folder they name exists', () => {
  assert.deepEqual(rules, [
    { kind: 'never', from: 'client/', to: 'server/' },
    { kind: 'never', from: 'server/', to: 'client/' },
    { kind: 'never', from: 'cli/shared/', to: 'cli/commands/' },
    { kind: 'apart', parent: 'cli/commands/' },
  ]);
  const named = rules.flatMap((r) => (r.kind === 'never' ? [r.from, r.to] : [r.parent]));
  for (const folder of named)
    assert.ok(
      [...files.keys()].some((f) => f.startsWith(folder)),
      `${folder} of src/README.md has files`,
    );
});

test('no file imports what the rules between siblings forbid (type-only and dynamic imports included)', () => {
  assert.deepEqual(ruleBreaks(files, rules), []);
});

test('no circular imports between files of src/ (type-only and dynamic imports included; tests left out)', () => {
  assert.deepEqual(
    circles(importGraph(files)).map(describe),
    [],
    'circles of imports: a circle means a type or a helper lives in the wrong file',
  );
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

test('the rules are read from sentences, and each kind of break is found (it can fail)', () => {
  assert.deepEqual(
    statedRules(
      'Sides: `client/` never imports `server/` nor `auth/server/`, and the folders of `cli/commands/` never import each other.',
    ),
    [
      { kind: 'never', from: 'client/', to: 'server/' },
      { kind: 'never', from: 'client/', to: 'auth/server/' },
      { kind: 'apart', parent: 'cli/commands/' },
    ],
  );
  const files = new Map<string, string>([
    ['client/a.ts', "import type { McpServer } from '../server/server.js';"],
    ['client/b.test.ts', "const s = await import('../server/server.js');"],
    ['client/ok.ts', "import { x } from '../spec/x.js';\nimport { y } from './y.js';"],
    ['cli/shared/c.ts', "import type { CallFlags } from '../commands/call/flags.js';"],
    ['cli/commands/bridge/run.ts', "import { parsePort } from '../serve/run.js';"],
    ['cli/commands/call/run.ts', "import type { CallFlags } from './flags.js';\nimport '../../shared/c.js';"],
    ['cli/main.ts', "import { register } from './commands/call/command.js';"],
  ]);
  assert.deepEqual(
    ruleBreaks(files, [
      { kind: 'never', from: 'client/', to: 'server/' },
      { kind: 'never', from: 'cli/shared/', to: 'cli/commands/' },
      { kind: 'apart', parent: 'cli/commands/' },
    ]),
    [
      'client/a.ts imports ../server/server.js: client/ never imports server/',
      'client/b.test.ts imports ../server/server.js: client/ never imports server/',
      'cli/shared/c.ts imports ../commands/call/flags.js: cli/shared/ never imports cli/commands/',
      'cli/commands/bridge/run.ts imports ../serve/run.js: the folders of cli/commands/ never import each other (bridge/, serve/)',
    ],
  );
});

test('the circle check finds circles of any length, type-only and dynamic imports too (it can fail)', () => {
  const files = new Map<string, string>([
    ['cli/a.ts', "import type { B } from './b.js';"],
    ['cli/b.ts', "const a = await import('./a.js');"],
    ['server/x.ts', "import { y } from './y.js';"],
    ['server/y.ts', "export { z } from './sub/z.js';"],
    ['server/sub/z.ts', "import { x } from '../x.js';\nimport { w } from '../w.js';"],
    ['server/w.ts', "import { x } from './x.js';"],
    ['ui/self.tsx', "import { me } from './self.js';"],
    ['ui/ok.tsx', "import { a } from '../cli/a.js';"],
    ['cli/t.test.ts', "import { t } from './t2.js';"],
    ['cli/t2.ts', "import { t } from './t.test.js';"],
  ]);
  assert.deepEqual(circles(importGraph(files)).map(describe), [
    'cli/a.ts → cli/b.ts → cli/a.ts',
    'server/sub/z.ts → server/x.ts → server/y.ts → server/sub/z.ts (one way round the 4 files server/sub/z.ts, server/w.ts, server/x.ts, server/y.ts)',
    'ui/self.tsx → ui/self.tsx',
  ]);
});

test('src/README.md states the rooms of server/, server/http/ and transport/', () => {
  assert.deepEqual(Object.fromEntries(rooms), {
    transport: ['*.ts', 'http-client/'],
    server: [
      'handler/',
      'definitions/',
      'dispatch/',
      'guard/',
      'tasks/',
      'skills/',
      'mount/',
      '*.ts',
      'http/',
    ],
    'server/http': ['core/', 'cluster/', 'streamable/', 'legacy-sse/', 'adapters/'],
  });
});

test('no room imports a later room of its folder (type-only included)', () => {
  assert.deepEqual(roomViolations(files, rooms), []);
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
  ]);
  assert.deepEqual(roomViolations(files, rooms), [
    'server/handler/context.ts (server/handler/) imports ../dispatch/session.js (server/dispatch/, a later room)',
    'server/server.ts (server/*.ts) imports ./http/adapters/node-serve.js (server/http/, a later room)',
    'server/http/core/http.ts (server/http/core/) imports ../streamable/handler.js (server/http/streamable/, a later room)',
    'server/extra/w.ts: room server/extra/ is not in the order of src/README.md',
  ]);
});
