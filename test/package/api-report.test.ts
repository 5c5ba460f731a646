// The public type surface is pinned: the API report of every entry point (scripts/api-report.ts, committed under
// api/) must match what the build emits, internal members must not ship, and the published .d.ts must type-check
// on their own (a stripped declaration that a public one still names would break users with skipLibCheck off).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { apiReport, ENTRIES, reportPath, UPDATE_COMMAND } from '../../scripts/api-report.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const distSrc = join(root, 'dist/src');

function firstDifference(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const at = a.findIndex((line, i) => line !== b[i]);
  const i = at < 0 ? a.length : at;
  return `line ${i + 1}: committed ${JSON.stringify(a[i] ?? '(end)')}, built ${JSON.stringify(b[i] ?? '(end)')}`;
}

test('the API report of every entry point matches the published .d.ts', () => {
  for (const entry of ENTRIES) {
    const path = reportPath(root, entry);
    const committed = readFileSync(path, 'utf8');
    const built = apiReport(distSrc, entry);
    assert.ok(
      built === committed,
      `The public types of ${entry.specifier} changed (${relative(root, path)}, ${firstDifference(committed, built)}). ` +
        `If the change is intended, run \`${UPDATE_COMMAND}\` and commit api/.`,
    );
  }
});

test('the report follows re-exports, names what is exported (type-only or not) and what the exports reach', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-api-'));
  try {
    writeFileSync(
      join(dir, 'index.d.ts'),
      "export { A, type B as Bee } from './a.js';\nexport type * from './t.js';\nexport { c } from './c.js';\n",
    );
    writeFileSync(
      join(dir, 'a.d.ts'),
      "/** An A. */\nexport declare class A {\n    #private;\n    /** x */\n    x: number;\n}\nexport interface B {\n    s: 'a/*b Hidden';\n    h: Hidden;\n}\ninterface Hidden {\n    n: number;\n}\ninterface Unused {\n}\n",
    );
    writeFileSync(join(dir, 't.d.ts'), 'export type T = {\n    a: import("./a.js").A;\n} | null;\n');
    writeFileSync(join(dir, 'c.d.ts'), 'declare const c: number;\nexport { c };\n');
    const report = apiReport(dir, { specifier: 'fixture', file: 'index.d.ts' });
    assert.equal(
      report.slice(report.indexOf('\n== ')),
      [
        '',
        '== A',
        'class A {',
        '    #private;',
        '    x: number;',
        '}',
        '',
        '== Bee (type only)',
        'interface B {',
        "    s: 'a/*b Hidden';",
        '    h: Hidden;',
        '}',
        '',
        '== T (type only)',
        'type T = {',
        '    a: A;',
        '} | null;',
        '',
        '== c',
        'const c: number;',
        '',
        '== Hidden (not exported, reached from the exports)',
        'interface Hidden {',
        '    n: number;',
        '}',
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.d.ts') && !e.name.endsWith('.test.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

test('no @internal declaration ships in the published .d.ts', () => {
  const files = declarationFiles(distSrc);
  assert.ok(files.length > 50, `found ${files.length} .d.ts files`);
  const leaking = files.filter((f) => readFileSync(f, 'utf8').includes('@internal'));
  assert.deepEqual(
    leaking.map((f) => relative(root, f)),
    [],
  );
});

test('the published .d.ts type-check on their own (skipLibCheck off)', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-dts-'));
  try {
    const config = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        lib: ['ES2023'],
        types: ['node'],
        typeRoots: [join(root, 'node_modules/@types')],
      },
      files: ENTRIES.map((e) => join(distSrc, e.file)),
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const run = await promisify(execFile)(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')]).then(
      () => '',
      (e: { stdout?: string; message: string }) => e.stdout || e.message,
    );
    assert.equal(run, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
