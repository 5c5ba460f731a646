// The shape of src/ at a git revision (issue 23), measured the same way before and after a restructure; no timing:
//   node dist/bench/structure.js [revision ...]   (default HEAD; e.g. `main HEAD`)
// Read from git (`git ls-tree`, `git show`), so any revision can be measured from one checkout. Imports are the
// relative specifiers of import/export/import() (type-only and dynamic included), as test/package/layering.test.ts
// reads them; tests (*.test.ts) are left out of the import graph.
// - files of transport/ importing server/;
// - file circles (strongly connected sets of files of src/);
// - server/ and transport/ drawn alone: floors (the longest chain of imports between their files, circles counted as
//   one) and imports running back up (imports between files of one circle: no floor order can put them downwards);
// - the largest file and the number over 400 lines (tests left out).
import { execFileSync } from 'node:child_process';
import { posix } from 'node:path';
import { parseArgs } from 'node:util';

const { positionals } = parseArgs({ allowPositionals: true });
const revisions = positionals.length > 0 ? positionals : ['HEAD'];

const git = (args: readonly string[]) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 28 });
const isTest = (file: string) => /\.test\.tsx?$/.test(file);
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The .ts/.tsx files of src/ at `rev`, relative to src/, with their text. */
function sources(rev: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const path of git(['ls-tree', '-r', '--name-only', rev, 'src']).split('\n'))
    if (/\.tsx?$/.test(path)) files.set(path.slice('src/'.length), git(['show', `${rev}:${path}`]));
  return files;
}

/** Each non-test file's imports of other non-test files. */
function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    if (isTest(file)) continue;
    const edges = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (!spec?.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '');
      const found = [`${target}.ts`, `${target}.tsx`].find((t) => files.has(t) && !isTest(t));
      if (found !== undefined) edges.add(found);
    }
    graph.set(file, [...edges]);
  }
  return graph;
}

/** The strongly connected components of `graph` (Tarjan's, without recursion), each file mapped to its component. */
function components(graph: ReadonlyMap<string, readonly string[]>): Map<string, number> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const component = new Map<string, number>();
  const stack: string[] = [];
  let next = 0;
  let count = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: [string, number][] = [[start, 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
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
          work.push([to, 0]);
        } else if (!component.has(to))
          low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent[0], Math.min(low.get(parent[0]) as number, low.get(node) as number));
      if (low.get(node) === index.get(node)) {
        let member: string;
        do {
          member = stack.pop() as string;
          component.set(member, count);
        } while (member !== node);
        count++;
      }
    }
  }
  return component;
}

/** The files of `graph` in circles, as sets of two or more files (or one importing itself). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const byComponent = new Map<number, string[]>();
  for (const [file, c] of components(graph)) byComponent.set(c, [...(byComponent.get(c) ?? []), file]);
  return [...byComponent.values()]
    .filter((files) => files.length > 1 || graph.get(files[0] as string)?.includes(files[0] as string))
    .map((files) => files.sort());
}

/** `folder/` drawn alone: its floors (longest chain, a circle counted as one) and its imports inside circles. */
function drawn(
  graph: ReadonlyMap<string, readonly string[]>,
  folder: string,
): { floors: number; backUp: number } {
  const inside = new Map<string, string[]>();
  for (const [file, edges] of graph)
    if (file.startsWith(folder))
      inside.set(
        file,
        [...edges].filter((t) => t.startsWith(folder)),
      );
  const component = components(inside);
  let backUp = 0;
  const below = new Map<number, Set<number>>();
  for (const [file, edges] of inside)
    for (const to of edges) {
      const [a, b] = [component.get(file) as number, component.get(to) as number];
      if (a === b) backUp++;
      else below.set(a, (below.get(a) ?? new Set()).add(b));
    }
  const depth = new Map<number, number>();
  const floorOf = (c: number): number => {
    const known = depth.get(c);
    if (known !== undefined) return known;
    let d = 1;
    for (const b of below.get(c) ?? []) d = Math.max(d, 1 + floorOf(b));
    depth.set(c, d);
    return d;
  };
  let floors = 0;
  for (const c of new Set(component.values())) floors = Math.max(floors, floorOf(c));
  return { floors, backUp };
}

for (const rev of revisions) {
  const files = sources(rev);
  const graph = importGraph(files);
  const transportToServer = [...graph].filter(
    ([file, edges]) => file.startsWith('transport/') && edges.some((t) => t.startsWith('server/')),
  ).length;
  const sizes = [...files]
    .filter(([file]) => !isTest(file))
    .map(([file, text]) => ({ file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) }))
    .sort((a, b) => b.lines - a.lines);
  const found = circles(graph);
  const lines = [
    `${rev} (${git(['rev-parse', '--short', rev]).trim()})`,
    `  files of transport/ importing server/: ${transportToServer}`,
    `  file circles: ${found.length}${found.map((c) => `\n    ${c.join(' ')}`).join('')}`,
  ];
  for (const folder of ['server/', 'transport/']) {
    const { floors, backUp } = drawn(graph, folder);
    lines.push(
      `  ${folder} drawn alone: ${floors} floors, ${backUp} imports running back up (inside its circles)`,
    );
  }
  const largest = sizes[0];
  if (largest !== undefined)
    lines.push(
      `  largest file: ${largest.file} (${largest.lines} lines); over 400 lines: ${sizes.filter((s) => s.lines > 400).length}`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}
