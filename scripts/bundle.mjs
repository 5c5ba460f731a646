// Bundles the compiled entry points (dist/src/{index,stdio,node,testing,auth,host}.js) into dist/pkg with shared
// chunks: the package then loads a handful of files instead of ~70 modules, which is most of its
// start-up time. Types stay in dist/src (*.d.ts). ajv stays external: it is loaded lazily anyway; so do jose and
// oauth4webapi (dependencies of `mcpkit/auth` only). The `mcpkit` command (dist/pkg/cli.js, the package's `bin`) is
// bundled in the same run, so it shares the chunks; each command's code is a chunk of its own, loaded when it runs,
// and commander stays external (a runtime dependency), so do ioredis (the optional peer of `mcpkit/redis`) and
// `@opentelemetry/*` (`mcpkit/otel`: the API an optional peer, the SDK loaded by `--otel` only) and `@energetic-ai/*`
// (`mcpkit/search-embeddings`: the model, optional peers loaded on a ranker's first index).
// `keepNames` keeps classes' and functions' own names (an error is a `JsonRpcError` in a stack trace and in `error.constructor.name`, not the bundler's `_JsonRpcError`).
import { chmod, rm } from 'node:fs/promises';
import { build } from 'esbuild';

// A fresh folder each build: esbuild names chunks by their hash, so an old build's chunks would otherwise stay
// beside the new ones and be published with them.
await rm('dist/pkg', { recursive: true, force: true });

const entries = Object.fromEntries(
  ['index', 'stdio', 'node', 'testing', 'auth', 'host', 'redis', 'otel', 'search-embeddings'].map((name) => [
    name,
    `dist/src/${name}.js`,
  ]),
);
entries.cli = 'dist/src/cli/main.js';
await build({
  entryPoints: entries,
  outdir: 'dist/pkg',
  bundle: true,
  splitting: true,
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
