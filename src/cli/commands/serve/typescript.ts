// How `mcpkit serve` loads a TypeScript module. Node 20 cannot strip types: Node's own type stripping is used where
// the running Node has it on (22.18+, 23.6+), else where it has the flag (22.6+: the command runs itself again with
// `--experimental-strip-types`), else esbuild when it is installed (a module hook transforms each .ts file), else a
// clear error saying what to install. In every case `./x.js` in a TypeScript file finds `./x.ts` (tsc's convention).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { CliError, ExitCode } from '../../shared/exit.js';

/** TypeScript file names (`.ts`, `.mts`, `.tsx`; `.cts` is CommonJS, which the hook does not take). */
export const TYPESCRIPT = /\.(?:m?ts|tsx)$/;

/** How this process can load TypeScript. */
export type TypeScriptSupport =
  | { kind: 'native' }
  | { kind: 'flag' }
  | { kind: 'esbuild'; url: string }
  | { kind: 'none'; reason: string };

/** What this Node can do with a TypeScript module at `file` (esbuild is looked up from the file, then from here). */
export function typeScriptSupport(file: string): TypeScriptSupport {
  const features = process.features as { typescript?: string | false };
  if (features.typescript || process.execArgv.includes('--experimental-strip-types'))
    return { kind: 'native' };
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 6)) return { kind: 'flag' };
  for (const from of [file, import.meta.url]) {
    try {
      return { kind: 'esbuild', url: pathToFileURL(createRequire(from).resolve('esbuild')).href };
    } catch {
      // Not installed there: try the next place.
    }
  }
  return {
    kind: 'none',
    reason:
      `${file} is TypeScript, and Node ${process.versions.node} cannot strip types. Use Node 22.6 or newer ` +
      '(type stripping), or install esbuild (npm install --save-dev esbuild), or compile the module to JavaScript.',
  };
}

/** Source of the module hooks: `.js` specifiers that name `.ts` files, and esbuild's transform when given. */
const HOOKS = `
let esbuild;
export async function initialize(data) {
  if (data && data.esbuild) {
    const mod = await import(data.esbuild);
    esbuild = typeof mod.transform === 'function' ? mod : mod.default;
  }
}
const TS = /\\.(?:m?ts|tsx)$/;
const SWAP = [['.js', '.ts'], ['.mjs', '.mts'], ['.jsx', '.tsx']];
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    const parent = context.parentURL ? new URL(context.parentURL).pathname : '';
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !TS.test(parent) || !/^\\.{1,2}\\//.test(specifier)) throw error;
    for (const [from, to] of SWAP) {
      if (!specifier.endsWith(from)) continue;
      try {
        return await next(specifier.slice(0, -from.length) + to, context);
      } catch {}
    }
    throw error;
  }
}
export async function load(url, context, next) {
  if (!esbuild || !url.startsWith('file:') || !TS.test(new URL(url).pathname)) return next(url, context);
  const { readFile } = await import('node:fs/promises');
  const { fileURLToPath } = await import('node:url');
  const path = fileURLToPath(url);
  const out = await esbuild.transform(await readFile(path, 'utf8'), {
    loader: path.endsWith('x') ? 'tsx' : 'ts',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    sourcefile: path,
  });
  return { format: 'module', source: out.code, shortCircuit: true };
}
`;

/**
 * Makes TypeScript modules importable in this process, when it can without starting again (`native`, `esbuild`);
 * throws a usage error when it cannot at all. `flag` is the caller's to handle (run again with the flag).
 */
export async function enableTypeScript(support: TypeScriptSupport): Promise<void> {
  if (support.kind === 'none') throw new CliError(ExitCode.usage, support.reason);
  if (support.kind === 'flag') return;
  const { register } = await import('node:module');
  if (typeof register !== 'function')
    throw new CliError(
      ExitCode.usage,
      `Node ${process.versions.node} has no module hooks (20.6 or newer has them): compile the module to JavaScript`,
    );
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, {
    data: support.kind === 'esbuild' ? { esbuild: support.url } : {},
  });
}
