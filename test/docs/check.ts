// The docs check: every TypeScript block of the given Markdown pages is written into a fresh project that uses the
// built package as a user's project would (`import … from 'mcpkit'`, "type": "module", the compiler options of
// `tsc --init` with @types/node: strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, verbatimModuleSyntax),
// type-checked in one tsc run, and each block marked `run` is run with node, its stdout compared with the `text` block
// that follows it. A failure names the page and the line of the page.
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { type CodeBlock, codeBlocks, isTypeScript } from './markdown.js';

/** A Markdown page: its name in messages (`README.md`, `docs/servers.md`) and its text. */
export interface Page {
  name: string;
  text: string;
}

/** What a check found. */
export interface CheckResult {
  /** TypeScript blocks type-checked. */
  checked: number;
  /** Blocks run and compared. */
  ran: number;
  /** One message per problem, each starting `<page>:<line>: `. */
  failures: string[];
}

/** Where the check runs and what it uses. */
export interface CheckOptions {
  /** The package's checkout: its build is what `mcpkit` resolves to; its node_modules give zod, @types/node, tsc. */
  root: string;
  /** Time limit of each run block. */
  runTimeoutMs?: number;
  /** Keep the project when something failed, to look at it (default true). */
  keepOnFailure?: boolean;
}

/** Options of `tsc --init` (TypeScript 7) for a Node project, with the outputs a check does not need turned off. */
const COMPILER_OPTIONS = {
  module: 'nodenext',
  target: 'es2023',
  lib: ['esnext'],
  types: ['node'],
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  noUncheckedSideEffectImports: true,
  moduleDetection: 'force',
  skipLibCheck: true,
};

interface Written {
  page: string;
  block: CodeBlock;
  /** Path relative to the project. */
  path: string;
  /** Lines of preamble written before the block's text. */
  preambleLines: number;
  /** The text block a run block's output is compared with. */
  expected?: CodeBlock;
}

/** Type-checks the TypeScript blocks of `pages` and runs those marked `run` (see the file comment). */
export function checkPages(pages: readonly Page[], options: CheckOptions): CheckResult {
  const failures: string[] = [];
  const written: Written[] = [];
  const project = mkdtempSync(join(tmpdir(), 'mcpkit-docs-'));
  let keep = false;
  try {
    for (const page of pages) {
      const folder = page.name.replace(/\.md$/, '').replace(/[^a-zA-Z0-9_-]+/g, '_');
      mkdirSync(join(project, folder), { recursive: true });
      let blocks: CodeBlock[];
      try {
        blocks = codeBlocks(page.text);
      } catch (e) {
        failures.push(`${page.name}:${(e as Error).message}`);
        continue;
      }
      const names = new Set<string>();
      blocks.forEach((block, i) => {
        const where = `${page.name}:${block.line}`;
        if (block.lang === '') {
          failures.push(`${where}: a code block without a language (\`\`\`ts, \`\`\`sh, \`\`\`text, …)`);
          return;
        }
        if (!isTypeScript(block)) {
          if (block.run) failures.push(`${where}: only TypeScript blocks take "run"`);
          // A data file a block reads (a config file): written beside the page's blocks, not compiled.
          if (block.file !== undefined) {
            if (!/^[a-zA-Z0-9_.-]+$/.test(block.file) || names.has(block.file))
              failures.push(`${where}: file=${block.file} is not a plain name used once on this page`);
            names.add(block.file);
            writeFileSync(join(project, folder, block.file), `${block.text}\n`);
          }
          return;
        }
        const name = block.file ?? `block-${block.line}.ts`;
        if (!/^[a-zA-Z0-9_-]+\.m?ts$/.test(name))
          failures.push(`${where}: file=${name} is not a plain .ts name`);
        if (names.has(name)) failures.push(`${where}: file=${name} is used twice on this page`);
        names.add(name);
        const entry: Written = {
          page: page.name,
          block,
          path: `${folder}/${name}`,
          preambleLines: block.preamble === '' ? 0 : block.preamble.split('\n').length,
        };
        if (block.run) {
          const next = blocks[i + 1];
          if (next?.lang !== 'text')
            failures.push(`${where}: a run block is followed by a \`\`\`text block of its output`);
          else entry.expected = next;
        }
        const text = block.preamble === '' ? block.text : `${block.preamble}\n${block.text}`;
        writeFileSync(join(project, entry.path), `${text}\n`);
        written.push(entry);
      });
    }
    makeProject(project, options.root);
    failures.push(...typeCheck(project, options.root, written));
    let ran = 0;
    for (const entry of written) {
      if (!entry.block.run || entry.expected === undefined) continue;
      ran++;
      const failure = runBlock(project, entry, entry.expected, options.runTimeoutMs ?? 60_000);
      if (failure) failures.push(failure);
    }
    keep = failures.length > 0 && options.keepOnFailure !== false;
    if (keep) failures.push(`(the project is kept for a look: ${project})`);
    return { checked: written.length, ran, failures };
  } finally {
    if (!keep) rmSync(project, { recursive: true, force: true });
  }
}

/** package.json, tsconfig.json and a node_modules where `mcpkit` is the checkout's build and the rest its deps. */
function makeProject(project: string, root: string): void {
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'docs-check', private: true, type: 'module' }, null, 2)}\n`,
  );
  writeFileSync(
    join(project, 'tsconfig.json'),
    `${JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include: ['**/*.ts'] }, null, 2)}\n`,
  );
  const modules = join(project, 'node_modules');
  const bin = join(modules, '.bin');
  mkdirSync(bin, { recursive: true });
  const rootModules = join(root, 'node_modules');
  for (const entry of readdirSync(rootModules)) {
    if (entry === '.bin' || entry.startsWith('.') || entry === 'mcpkit') continue;
    symlinkSync(realpathSync(join(rootModules, entry)), join(modules, entry));
  }
  for (const entry of readdirSync(join(rootModules, '.bin')))
    symlinkSync(realpathSync(join(rootModules, '.bin', entry)), join(bin, entry));
  symlinkSync(root, join(modules, 'mcpkit'));
  symlinkSync(join(root, 'dist/pkg/cli.js'), join(bin, 'mcpkit'));
}

const TSC_ERROR = /^(.+?)\((\d+),(\d+)\): (error TS\d+: .*)$/;

/** Runs tsc once over the project; each error is mapped to its page and line. */
function typeCheck(project: string, root: string, written: readonly Written[]): string[] {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
    cwd: project,
    encoding: 'utf8',
    timeout: 240_000,
  });
  if (tsc.error) return [`tsc did not run: ${tsc.error.message}`];
  if (tsc.status === 0) return [];
  const byPath = new Map(written.map((w) => [w.path, w]));
  const out: string[] = [];
  for (const line of `${tsc.stdout}${tsc.stderr}`.split('\n')) {
    const m = TSC_ERROR.exec(line);
    if (!m) {
      if (line.trim() !== '' && out.length > 0) out[out.length - 1] += `\n${line}`;
      else if (line.trim() !== '') out.push(`tsc: ${line}`);
      continue;
    }
    const [, path = '', row = '0', col = '0', message = ''] = m;
    const entry = byPath.get(path.replace(/\\/g, '/'));
    if (!entry) {
      out.push(`${path}(${row},${col}): ${message}`);
      continue;
    }
    const n = Number(row) - entry.preambleLines;
    const where =
      n >= 1
        ? `${entry.page}:${entry.block.line + n - 1}:${col}`
        : `${entry.page}:${entry.block.line}: (in the preamble, line ${row})`;
    out.push(`${where}: ${message}`);
  }
  if (out.length === 0) out.push(`tsc exited ${tsc.status}:\n${tsc.stdout}${tsc.stderr}`);
  return out;
}

/** Runs one compiled block from its page's folder; a message when its stdout differs from `expected`. */
function runBlock(
  project: string,
  entry: Written,
  expected: CodeBlock,
  timeoutMs: number,
): string | undefined {
  const [folder = '', file = ''] = entry.path.split('/');
  const run = spawnSync(process.execPath, [file.replace(/\.(m?)ts$/, '.$1js')], {
    cwd: join(project, folder),
    encoding: 'utf8',
    timeout: timeoutMs,
    env: {
      ...process.env,
      npm_config_offline: 'true',
      // The node that runs the test is the one a command started by name (npx, a shebang) runs, as for a user.
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    },
  });
  const where = `${entry.page}:${entry.block.line}`;
  if (run.error) return `${where}: the block did not finish: ${run.error.message}\n${run.stderr}`;
  const got = normalize(run.stdout);
  const want = normalize(expected.text);
  if (run.status !== 0) return `${where}: the block exited ${run.status}\n${run.stderr}\nstdout:\n${got}`;
  if (got !== want)
    return `${where}: the output differs from the text block at ${entry.page}:${expected.line}\n--- expected\n${want}\n--- got\n${got}\n--- stderr\n${run.stderr}`;
  return undefined;
}

/** Output as compared: trailing spaces and blank lines at the end do not count. */
export function normalize(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}
