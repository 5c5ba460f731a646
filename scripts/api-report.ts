/**
 * The API report: for each package entry point, every exported name with its declaration as the published
 * .d.ts shows it (re-exports followed to the declaring file), then the declarations those reach without being
 * exported (a user meets them through the exported types), one text file per entry under `api/`. A change of
 * the public type surface is then a diff to review, and `test/package/api-report.test.ts` fails on it.
 *
 *   npm run api:update            regenerate api/*.api.txt after an intended change (builds first)
 *   node dist/scripts/api-report.js --check   compare only; exit 1 on a difference
 *
 * The .d.ts files are read as text: tsc emits one top-level statement per line group (continuation lines are
 * indented or start with a closing bracket), which is all this needs. Comments are left out (docs may change
 * freely), `export`/`declare` are dropped, and `import("…").` qualifiers are removed so moving a declaration
 * to another file does not change the report.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package entry points: import specifier, and its .d.ts under dist/src. */
export const ENTRIES: readonly { specifier: string; file: string }[] = [
  { specifier: 'mcpkit', file: 'index.d.ts' },
  { specifier: 'mcpkit/stdio', file: 'stdio.d.ts' },
  { specifier: 'mcpkit/node', file: 'node.d.ts' },
  { specifier: 'mcpkit/testing', file: 'testing.d.ts' },
  { specifier: 'mcpkit/auth', file: 'auth.d.ts' },
  { specifier: 'mcpkit/host', file: 'host.d.ts' },
  { specifier: 'mcpkit/redis', file: 'redis.d.ts' },
  { specifier: 'mcpkit/otel', file: 'otel.d.ts' },
  { specifier: 'mcpkit/search-embeddings', file: 'search-embeddings.d.ts' },
];

/** The command that regenerates the reports. */
export const UPDATE_COMMAND = 'npm run api:update';

type Binding = { from: string | undefined; name: string; typeOnly: boolean };

interface DtsModule {
  /** Declarations by name (several for overloads and merged declarations), normalised. */
  declarations: Map<string, string[]>;
  /** Names bound by imports. */
  imports: Map<string, { from: string; name: string }>;
  /** Exported names: a local name (`from` undefined) or a name of another module. */
  exports: Map<string, Binding>;
  /** `export * from` targets, and whether they are `export type *`. */
  stars: { from: string; typeOnly: boolean }[];
}

const DECLARATION =
  /^(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(class|interface|type|function|const|let|var|enum|namespace)\s+([A-Za-z_$][\w$]*)/;

/** Removes comments (outside string literals), keeping line breaks. */
function stripComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Top-level statements: a statement starts on a line beginning with a letter. */
function statements(text: string): string[] {
  const out: string[] = [];
  for (const line of stripComments(text).split('\n')) {
    if (line.trim() === '') continue;
    if (/^[A-Za-z]/.test(line) || out.length === 0) out.push(line.trimEnd());
    else out[out.length - 1] += `\n${line.trimEnd()}`;
  }
  return out;
}

/** Names of an `{ a, type b, c as d }` list: [local or source name, exported name, type-only]. */
function names(list: string): [string, string, boolean][] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const typeOnly = s.startsWith('type ');
      const [inner, outer] = (typeOnly ? s.slice(5) : s).split(/\s+as\s+/) as [string, string | undefined];
      return [inner.trim(), (outer ?? inner).trim(), typeOnly];
    });
}

function normalise(statement: string): string {
  return statement
    .replace(/^export\s+/, '')
    .replace(/^declare\s+/, '')
    .replace(/import\("[^"]+"\)\./g, '');
}

function parse(file: string): DtsModule {
  const mod: DtsModule = { declarations: new Map(), imports: new Map(), exports: new Map(), stars: [] };
  const dir = dirname(file);
  const target = (spec: string) =>
    spec.startsWith('.') ? resolve(dir, spec.replace(/\.js$/, '.d.ts')) : spec;
  for (const s of statements(readFileSync(file, 'utf8'))) {
    const flat = s.replace(/\s+/g, ' ');
    let m = /^import (?:type )?\{([^}]*)\} from ['"]([^'"]+)['"]/.exec(flat);
    if (m) {
      for (const [name, local] of names(m[1] as string))
        mod.imports.set(local, { from: target(m[2] as string), name });
      continue;
    }
    m = /^export (type )?\* from ['"]([^'"]+)['"]/.exec(flat);
    if (m) {
      mod.stars.push({ from: target(m[2] as string), typeOnly: m[1] !== undefined });
      continue;
    }
    m = /^export (type )?\{([^}]*)\}(?: from ['"]([^'"]+)['"])?/.exec(flat);
    if (m) {
      const from = m[3] === undefined ? undefined : target(m[3]);
      for (const [name, exported, typeOnly] of names(m[2] as string))
        mod.exports.set(exported, { from, name, typeOnly: typeOnly || m[1] !== undefined });
      continue;
    }
    m = DECLARATION.exec(flat);
    if (m) {
      const name = m[2] as string;
      mod.declarations.set(name, [...(mod.declarations.get(name) ?? []), normalise(s)]);
      if (flat.startsWith('export ')) mod.exports.set(name, { from: undefined, name, typeOnly: false });
      continue;
    }
    if (flat.startsWith('export '))
      throw new Error(`${file}: an export the API report does not understand: ${flat}`);
  }
  return mod;
}

/** Reads and caches the .d.ts modules of one report. */
class Modules {
  readonly #cache = new Map<string, DtsModule>();

  get(file: string): DtsModule {
    let mod = this.#cache.get(file);
    if (!mod) {
      if (!existsSync(file)) throw new Error(`${file} is missing: build first (npm run build)`);
      mod = parse(file);
      this.#cache.set(file, mod);
    }
    return mod;
  }

  /** Every name `file` exports, with the binding that provides it. */
  exported(file: string, seen = new Set<string>()): Map<string, Binding & { file: string }> {
    const out = new Map<string, Binding & { file: string }>();
    if (seen.has(file)) return out;
    seen.add(file);
    const mod = this.get(file);
    for (const star of mod.stars) {
      for (const [name, binding] of this.exported(star.from, seen)) {
        if (name !== 'default' && !out.has(name))
          out.set(name, { ...binding, typeOnly: binding.typeOnly || star.typeOnly });
      }
    }
    for (const [name, binding] of mod.exports) out.set(name, { ...binding, file });
    return out;
  }

  /** The declarations a binding ends at (following imports and re-exports), with the file declaring them. */
  declarations(binding: Binding & { file: string }): Found {
    if (binding.from !== undefined) {
      if (!binding.from.startsWith('/'))
        return { file: binding.from, name: binding.name, texts: [`(re-exported from ${binding.from})`] };
      const next = this.exported(binding.from).get(binding.name);
      if (!next) throw new Error(`${binding.from} does not export ${binding.name}`);
      return this.declarations(next);
    }
    const found = this.resolve(binding.file, binding.name);
    if (!found) throw new Error(`${binding.file}: ${binding.name} is exported but not declared`);
    return found;
  }

  /** What `name` means inside `file`: its own declaration, or an import from another .d.ts of the package. */
  resolve(file: string, name: string): Found | undefined {
    const mod = this.get(file);
    const texts = mod.declarations.get(name);
    if (texts) return { file, name, texts };
    const imported = mod.imports.get(name);
    if (!imported?.from.startsWith('/')) return undefined;
    const next = this.exported(imported.from).get(imported.name);
    if (!next) throw new Error(`${imported.from} does not export ${imported.name}`);
    return this.declarations(next);
  }
}

/** A declaration found: the file and name it has there, and its text (several for overloads and merges). */
interface Found {
  file: string;
  name: string;
  texts: string[];
}

/** The identifiers a declaration mentions as types or values (not string literals, not `name:` keys and parameters). */
function identifiers(texts: string[]): Set<string> {
  const out = new Set<string>();
  for (const text of texts) {
    const code = text.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
    for (const m of code.matchAll(/[A-Za-z_$][\w$]*(?![\w$]|\??:)/g)) out.add(m[0]);
  }
  return out;
}

/** Orders reached declarations by name, then text (two files may declare the same name). */
function byName(a: Found, b: Found): number {
  const [x, y] = [`${a.name}\n${a.texts.join('\n')}`, `${b.name}\n${b.texts.join('\n')}`];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The report of one entry point, from the .d.ts files under `distSrc`: every exported name, then every
 * declaration those reach without being exported themselves (a user sees them through the exports' types).
 */
export function apiReport(distSrc: string, entry: { specifier: string; file: string }): string {
  const modules = new Modules();
  const exported = [...modules.exported(join(distSrc, entry.file))].map(([name, binding]) => ({
    name,
    typeOnly: binding.typeOnly,
    found: modules.declarations(binding),
  }));
  const key = (f: Found) => `${f.file}#${f.name}`;
  const seen = new Set(exported.map((e) => key(e.found)));
  const reached: Found[] = [];
  const queue = exported.map((e) => e.found);
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const id of identifiers(next.texts)) {
      const found = modules.resolve(next.file, id);
      if (!found || seen.has(key(found))) continue;
      seen.add(key(found));
      reached.push(found);
      queue.push(found);
    }
  }
  let out = `API report of ${entry.specifier} (${entry.file}), generated by \`${UPDATE_COMMAND}\`: do not edit.\n`;
  out +=
    'Every exported name with its declaration as the published .d.ts shows it (comments left out), then the\n';
  out += 'declarations the exported ones reach without being exported themselves.\n';
  for (const e of exported.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    out += `\n== ${e.name}${e.typeOnly ? ' (type only)' : ''}\n`;
    for (const text of e.found.texts) out += `${text}\n`;
  }
  for (const r of reached.sort(byName)) {
    out += `\n== ${r.name} (not exported, reached from the exports)\n`;
    for (const text of r.texts) out += `${text}\n`;
  }
  return out;
}

/** Where an entry's committed report lives. */
export function reportPath(root: string, entry: { specifier: string }): string {
  return join(root, 'api', `${entry.specifier.replace('/', '-')}.api.txt`);
}

function main(): void {
  // dist/scripts/api-report.js → the repository root.
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const entry of ENTRIES) {
    const report = apiReport(join(root, 'dist/src'), entry);
    const path = reportPath(root, entry);
    const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (current === report) continue;
    if (check) {
      stale++;
      console.error(`${relative(root, path)} is out of date`);
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, report);
      console.error(`wrote ${relative(root, path)}`);
    }
  }
  if (stale > 0) {
    console.error(
      `The public type surface changed: run \`${UPDATE_COMMAND}\` and commit api/ if that is intended.`,
    );
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
