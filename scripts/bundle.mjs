// Bundles the compiled entry points (dist/src/{index,stdio,node,testing,auth,host}.js) into dist/pkg with shared
// chunks: the package then loads a handful of files instead of ~70 modules, which is most of its
// start-up time. Types stay in dist/src (*.d.ts). ajv stays external: it is loaded lazily anyway; so do jose and
// oauth4webapi (dependencies of `mcpkit/auth` only).
import { build } from 'esbuild';

const entries = ['index', 'stdio', 'node', 'testing', 'auth', 'host'].map((name) => `dist/src/${name}.js`);
await build({
  entryPoints: entries,
  outdir: 'dist/pkg',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['ajv', 'ajv/*', 'ajv-formats', 'jose', 'oauth4webapi'],
  logLevel: 'warning',
});
