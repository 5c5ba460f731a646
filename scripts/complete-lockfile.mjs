// Records in package-lock.json the other platforms' optional packages that npm left out, so `npm ci` accepts the
// lockfile on every machine. Usage: node scripts/complete-lockfile.mjs [--check] [lockfile...] (by default the
// project's five: the root's and those of tools/runtimes, tools/bench, tools/docs and tools/embeddings, each installed
// on its own)
//
// Packages such as @biomejs/biome and deno ship their native binary as one optional dependency per platform
// (`@biomejs/cli-darwin-arm64`, `@deno/win32-x64`, ...). npm records every one of them when it can resolve them all;
// a registry that serves only this machine's platforms (as the one here does) makes npm leave the others out, and
// `npm ci` then refuses the lockfile ("Missing: @biomejs/cli-darwin-arm64@ from lock file"). The missing entries are
// added with the exact version their parent pins and the platform (os, cpu, libc) that their name spells, so npm
// skips them on every other platform without fetching anything, and fetches the right one on its own platform.
// Run it after any `npm install` that changes the lockfile; `--check` only reports (test/package/lockfile.test.ts
// runs the same check).
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const OS = new Set([
  'aix',
  'android',
  'darwin',
  'freebsd',
  'linux',
  'netbsd',
  'openbsd',
  'openharmony',
  'sunos',
  'win32',
]);
const CPU = new Set(['arm', 'arm64', 'ia32', 'loong64', 'mips64el', 'ppc64', 'riscv64', 's390x', 'x64']);
const LIBC = new Set(['glibc', 'musl']);
/** The project's lockfiles: the root's, and those of the tools installed on their own. */
const LOCKFILES = [
  'package-lock.json',
  'tools/runtimes/package-lock.json',
  'tools/bench/package-lock.json',
  'tools/docs/package-lock.json',
  'tools/embeddings/package-lock.json',
];

/** Where npm would find `name` for the package at `from` (its node_modules, then each parent's), or undefined. */
function resolveIn(packages, from, name) {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const i = base.lastIndexOf('/node_modules/');
    base = i < 0 ? '' : base.slice(0, i);
  }
}

/** The platform a package's name spells (`cli-linux-x64-musl` → linux, x64, musl), or undefined. */
export function platformOf(name) {
  const words = name.slice(name.lastIndexOf('/') + 1).split('-');
  const os = words.find((w) => OS.has(w));
  const cpu = words.find((w) => CPU.has(w));
  if (os === undefined || cpu === undefined) return undefined;
  const libc = words.find((w) => LIBC.has(w));
  return { os: [os], cpu: [cpu], ...(libc === undefined ? {} : { libc: [libc] }) };
}

/** The optional dependencies the lockfile does not record: `{ parent, name, spec }` each. */
export function missingOptional(lock) {
  const missing = [];
  for (const [path, meta] of Object.entries(lock.packages)) {
    for (const [name, spec] of Object.entries(meta.optionalDependencies ?? {})) {
      if (resolveIn(lock.packages, path, name) === undefined)
        missing.push({ parent: path, name, spec, meta });
    }
  }
  return missing;
}

/** Adds an entry for each missing optional dependency; throws when one cannot be spelled out exactly. */
export function complete(lock) {
  const added = [];
  for (const { parent, name, spec, meta } of missingOptional(lock)) {
    const platform = platformOf(name);
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec) || platform === undefined) {
      throw new Error(
        `${parent} needs ${name}@${spec}: not an exact version and a platform package; add it by hand`,
      );
    }
    // Beside its parent, as npm places them (the parent is at the top level for every case this project has).
    const at = `${parent === '' ? '' : `${parent.slice(0, parent.lastIndexOf('node_modules/'))}`}node_modules/${name}`;
    lock.packages[at] = {
      version: spec,
      ...(platform.cpu ? { cpu: platform.cpu } : {}),
      ...(meta.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: platform.libc } : {}),
      optional: true,
      os: platform.os,
    };
    added.push(`${at}@${spec}`);
  }
  lock.packages = Object.fromEntries(
    // npm's own order (the root first, then by locale), so the next npm run moves nothing.
    Object.entries(lock.packages).sort(([a], [b]) =>
      a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'),
    ),
  );
  return added;
}

// Run as a script (not imported): compared as real paths, so a symlinked folder or a space in the path still counts.
if (
  process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
) {
  const named = process.argv.slice(2).filter((a) => a !== '--check');
  const files = named.length > 0 ? named : LOCKFILES;
  let incomplete = 0;
  for (const file of files) {
    const lock = JSON.parse(readFileSync(file, 'utf8'));
    if (process.argv.includes('--check')) {
      const missing = missingOptional(lock);
      for (const m of missing)
        console.error(`missing from ${file}: ${m.name}@${m.spec} (optional of ${m.parent})`);
      incomplete += missing.length;
      continue;
    }
    const added = complete(lock);
    writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
    console.error(added.length === 0 ? `${file} is complete` : `${file}: added ${added.join(', ')}`);
  }
  process.exit(incomplete === 0 ? 0 : 1);
}
