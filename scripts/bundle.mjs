// Bundles the compiled entry points (dist/src/{index,stdio,node,testing,auth,host,...}.js) into dist/pkg in two
// stages, so that a server's start loads few files (issue 24: each file Node loads costs, beside its bytes):
//
// 1. `core.js`: every module the root entry (`mcpkit`) loads statically, flat in one file (no `node:` import: the root
//    entry stays runtime-neutral), each module's exports under a name of its own (`<module path>$<name>`).
//    `index.js` only re-exports its names from it. `stdio.js` (`mcpkit/stdio`) is the stdio modules in one file,
//    importing the core's from `core.js`: either entry loads two files, both together three.
// 2. The other public entries and the `mcpkit` command, with shared chunks as esbuild splits them, where an import of a
//    core module becomes an import from `./core.js` and one of a stdio module an import from `./stdio.js` (one
//    instance of each module: `instanceof` holds across entries). `core.js` is built last, exporting only the names
//    the other files import, so esbuild drops the code nothing reaches.
//
// ajv stays external: it is loaded lazily anyway; so do jose and oauth4webapi (dependencies of `mcpkit/auth` only).
// The `mcpkit` command (dist/pkg/cli.js, the package's `bin`) is bundled in the second stage, so it shares the chunks;
// each command's code is a chunk of its own, loaded when it runs, and commander stays external (a runtime
// dependency), so do ioredis (the optional peer of `mcpkit/redis`) and `@opentelemetry/*` (`mcpkit/otel`: the API an
// optional peer, the SDK loaded by `--otel` only) and `@energetic-ai/*` (`mcpkit/search-embeddings`: the model,
// optional peers loaded on a ranker's first index).
// `keepNames` keeps classes' and functions' own names (an error is a `JsonRpcError` in a stack trace and in
// `error.constructor.name`, not the bundler's `_JsonRpcError`).
import { chmod, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [
    'ajv',
    'ajv/*',
    'ajv-formats',
    'jose',
    'oauth4webapi',
    'commander',
    'ioredis',
    '@opentelemetry/*',
    '@energetic-ai/*',
  ],
  keepNames: true,
  logLevel: 'warning',
};

// A fresh folder each build: esbuild names chunks by their hash, so an old build's chunks would otherwise stay
// beside the new ones and be published with them.
await rm('dist/pkg', { recursive: true, force: true });

// Which compiled modules each main entry loads statically (the import graph esbuild sees, nothing written).
const probe = await build({
  ...common,
  entryPoints: ['dist/src/index.js', 'dist/src/stdio.js'],
  outdir: 'dist/pkg',
  write: false,
  metafile: true,
});
const closure = (root, without) => {
  const found = new Set();
  const pending = [root];
  while (pending.length > 0) {
    const path = pending.pop();
    if (found.has(path) || without.has(path)) continue;
    found.add(path);
    for (const edge of probe.metafile.inputs[path]?.imports ?? []) {
      if (edge.external) continue;
      // A module of these files loaded lazily would land in them and in the second stage's chunks: two instances.
      if (edge.kind !== 'import-statement') throw new Error(`${path} loads ${edge.path} by ${edge.kind}`);
      pending.push(edge.path);
    }
  }
  return found;
};
const core = closure('dist/src/index.js', new Set());
const stdio = closure('dist/src/stdio.js', core);
const namesOf = async (path) => Object.keys(await import(pathToFileURL(resolve(path)).href));

// Each core module's exports under names of their own (compiled modules have no side effects: importing them here
// only lists their names).
const exported = new Map();
const taken = new Set();
for (const path of [...core].sort()) {
  const prefix = path
    .replace(/^dist\/src\//, '')
    .replace(/\.js$/, '')
    .replace(/[^A-Za-z0-9]/g, '_');
  if (taken.has(prefix)) throw new Error(`two core modules named ${prefix}`);
  taken.add(prefix);
  exported.set(
    path,
    (await namesOf(path)).map((name) => [name, `${prefix}$${name}`]),
  );
}
const list = (pairs, from) =>
  `export { ${pairs.map(([a, b]) => `${a} as ${b}`).join(', ')} } from '${from}';\n`;
// The stdio modules' exports that other entries may import: the public ones of `mcpkit/stdio`, under their names.
const stdioNames = new Set(await namesOf('dist/src/stdio.js'));
for (const path of stdio) {
  const names = (await namesOf(path)).filter((name) => stdioNames.has(name));
  exported.set(
    path,
    names.map((name) => [name, name]),
  );
}

// From here on an import of a core module (relative, from a module outside the core or from an entry) reads the
// names core.js gives it, and one of a stdio module the names of stdio.js, through a module of its own per importer
// (one shared by several importers would be a chunk file of its own).
const layered = (layers) => ({
  name: 'layered',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      if (args.namespace === 'layer') return { path: args.path, external: true };
      const path = relative(process.cwd(), resolve(args.resolveDir, args.path)).replaceAll('\\', '/');
      const file = layers.find(([modules]) => modules.has(path))?.[1];
      return file === undefined
        ? undefined
        : { path: `${path}?${args.importer}`, namespace: 'layer', pluginData: file };
    });
    b.onLoad({ filter: /.*/, namespace: 'layer' }, (args) => {
      const pairs = exported.get(args.path.slice(0, args.path.indexOf('?'))) ?? [];
      const contents =
        pairs.length > 0
          ? list(
              pairs.map(([a, b]) => [b, a]),
              args.pluginData,
            )
          : '';
      return { contents, loader: 'js' };
    });
  },
});
// `mcpkit/stdio`: its own modules in one file, the core's from core.js.
await build({
  ...common,
  entryPoints: { stdio: 'dist/src/stdio.js' },
  outdir: 'dist/pkg',
  plugins: [layered([[core, './core.js']])],
});
const entries = Object.fromEntries(
  ['node', 'testing', 'auth', 'host', 'redis', 'otel', 'search-embeddings'].map((name) => [
    name,
    `dist/src/${name}.js`,
  ]),
);
entries.cli = 'dist/src/cli/main.js';
await build({
  ...common,
  entryPoints: entries,
  outdir: 'dist/pkg',
  splitting: true,
  plugins: [
    layered([
      [core, './core.js'],
      [stdio, './stdio.js'],
    ]),
  ],
});
// `mcpkit` is a core module: its file only gives core.js's names back their own.
await writeFile(
  'dist/pkg/index.js',
  list(
    (exported.get('dist/src/index.js') ?? []).map(([a, b]) => [b, a]),
    './core.js',
  ),
);
// core.js last, exporting only the names the other files import from it, so esbuild drops the code none reaches.
const used = new Set();
for (const file of await readdir('dist/pkg')) {
  if (!file.endsWith('.js')) continue;
  const text = await readFile(`dist/pkg/${file}`, 'utf8');
  for (const [, names] of text.matchAll(/(?:import|export)\s*\{([^}]*)\}\s*from\s*["']\.\/core\.js["']/g)) {
    for (const name of names.split(',')) used.add(name.trim().split(/\s+as\s+/)[0]);
  }
}
let coreEntry = '';
for (const [path, pairs] of exported) {
  const needed = core.has(path) ? pairs.filter(([, b]) => used.has(b)) : [];
  if (needed.length > 0) coreEntry += list(needed, `./${path}`);
}
await build({
  ...common,
  stdin: { contents: coreEntry, resolveDir: process.cwd(), sourcefile: 'core.js' },
  outfile: 'dist/pkg/core.js',
});
// The command's file keeps its `#!/usr/bin/env node` line; executable for running it from a checkout.
await chmod('dist/pkg/cli.js', 0o755);

// The web inspector's page (src/inspector/ui, preact): one minified script and one stylesheet, served as static
// files by the inspector's server (src/inspector/assets.ts reads them from dist/pkg/inspector).
await build({
  entryPoints: { app: 'src/inspector/ui/main.tsx' },
  outdir: 'dist/pkg/inspector',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
