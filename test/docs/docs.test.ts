// The README and every page of docs/ cannot rot: each TypeScript block is type-checked against the built package in
// a fresh ES-module project, each `run` block is run and its output compared with the page, and each relative link
// points to a file that exists.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ExitCode, exitKind } from '../../src/cli/shared/exit.js';
import { checkPages, type Page } from './check.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** README.md and every Markdown page under docs/ (the generated docs/api/ aside). */
function pages(): Page[] {
  const names = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory() && path !== 'docs/api') walk(path);
      else if (entry.name.endsWith('.md')) names.push(path);
    }
  };
  walk('docs');
  return names.map((name) => ({ name, text: readFileSync(join(root, name), 'utf8') }));
}

test('every TypeScript block of the README and docs/ compiles against the package, and the run blocks print what the page shows', () => {
  const all = pages();
  const result = checkPages(all, { root });
  assert.deepEqual(result.failures, []);
  assert.ok(result.checked >= all.length, `checked ${result.checked} TypeScript blocks`);
  assert.ok(result.ran >= 3, `ran ${result.ran} blocks`);
});

test('every relative link of the README and docs/ names a file of the checkout (docs/api/ where generated)', () => {
  const broken: string[] = [];
  for (const page of pages()) {
    for (const m of page.text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = (m[1] as string).split('#')[0] as string;
      if (target === '' || /^[a-z]+:/.test(target)) continue;
      const path = join(root, dirname(page.name), target);
      // The API reference is generated (npm run docs): its links are checked where it has been generated.
      if (path.startsWith(join(root, 'docs/api/')) && !existsSync(join(root, 'docs/api/index.html')))
        continue;
      if (!existsSync(path)) broken.push(`${page.name}: ${m[1]}`);
    }
  }
  assert.deepEqual(broken, []);
});

/** The `--help` text of `mcpkit` with `args` (the built command). */
function help(args: string[]): string {
  const r = spawnSync(process.execPath, [join(root, 'dist/pkg/cli.js'), ...args, '--help'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** The command names a help text lists under "Commands:" (help itself aside). */
function commandsOf(text: string): string[] {
  const section = text.split(/^Commands:$/m)[1]?.split(/^\S/m)[0] ?? '';
  return [...section.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1] as string).filter((c) => c !== 'help');
}

test('docs/cli.md covers every command, every flag of `mcpkit --help` and each command, and every exit code', () => {
  const page = readFileSync(join(root, 'docs/cli.md'), 'utf8');
  const headings = page.split('\n').filter((l) => l.startsWith('### '));
  const missing: string[] = [];
  const top = help([]);
  for (const command of commandsOf(top)) {
    if (!headings.some((h) => new RegExp(`\\b${command}\\b`).test(h))) missing.push(`### ${command}`);
    const own = help([command]);
    const subcommands = commandsOf(own);
    for (const text of [own, ...subcommands.map((sub) => help([command, sub]))]) {
      for (const m of text.matchAll(/(?:^|[\s,[])(--[a-z][a-z-]*)/g)) {
        const flag = m[1] as string;
        if (flag !== '--help' && !page.includes(`\`${flag}`) && !page.includes(` ${flag} `))
          missing.push(`${command}: ${flag}`);
      }
    }
    for (const sub of subcommands)
      if (!page.includes(`mcpkit ${command} ${sub}`) && !page.includes(`${command} ${sub}`))
        missing.push(`${command} ${sub}`);
  }
  for (const code of Object.values(ExitCode))
    if (!new RegExp(`^\\|\\s+${code} \\| \`${exitKind(code)}\``, 'm').test(page))
      missing.push(`exit code ${code}`);
  assert.deepEqual(missing, []);
});
