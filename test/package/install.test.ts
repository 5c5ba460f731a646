// What a newcomer's `npm ci` installs (issue 25): nothing that only the runtime tests need (Bun, Deno and workerd,
// some 330 MB of binaries, are in tools/runtimes with their own lockfile, installed by those tests on demand) or only
// a benchmark runs (the official Inspector CLI, whose rxjs was a quarter of the files, in tools/bench), and
// no install script left unreviewed: each one is allowed or denied in `allowScripts`, so npm prints no warning.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

interface Manifest {
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}
interface Lock {
  packages: Record<string, { hasInstallScript?: boolean; optional?: boolean; os?: string[] }>;
}

const read = <T>(path: string): T => JSON.parse(readFileSync(join(root, path), 'utf8')) as T;

test('the root install leaves out the runtimes the runtime tests install on their own', () => {
  const manifest = read<Manifest>('package.json');
  const lock = read<Lock>('package-lock.json');
  for (const name of [
    'bun',
    'deno',
    'miniflare',
    'workerd',
    'sharp',
    '@modelcontextprotocol/inspector-cli',
    'rxjs',
  ]) {
    assert.equal(manifest.devDependencies?.[name], undefined, `${name} in the root devDependencies`);
    assert.equal(lock.packages[`node_modules/${name}`], undefined, `${name} in the root lockfile`);
  }
  const runtimes = read<Manifest>('tools/runtimes/package.json');
  for (const name of ['bun', 'deno', 'miniflare'])
    assert.ok(runtimes.devDependencies?.[name], `${name} missing from tools/runtimes/package.json`);
  const bench = read<Manifest>('tools/bench/package.json');
  assert.ok(
    bench.devDependencies?.['@modelcontextprotocol/inspector-cli'],
    'the Inspector CLI missing from tools/bench',
  );
});

test('every package with an install script is allowed or denied in allowScripts', () => {
  for (const dir of ['', 'tools/runtimes/', 'tools/bench/', 'tools/docs/']) {
    const allow = read<Manifest>(`${dir}package.json`).allowScripts ?? {};
    const lock = read<Lock>(`${dir}package-lock.json`);
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (!entry.hasInstallScript) continue;
      const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
      assert.equal(
        typeof allow[name],
        'boolean',
        `${dir}package.json: allowScripts does not decide ${name}'s install script`,
      );
    }
  }
});
