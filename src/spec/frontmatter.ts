import { McpkitError } from '../jsonrpc/errors.js';

/** A parsed frontmatter value: the YAML subset a `SKILL.md` header uses, rendered as JSON. */
export type FrontmatterValue =
  | string
  | number
  | boolean
  | null
  | FrontmatterValue[]
  | { [key: string]: FrontmatterValue };

/** A `SKILL.md` split into its YAML frontmatter (as JSON) and the markdown body after it. */
export interface ParsedSkillMarkdown {
  frontmatter: { [key: string]: FrontmatterValue };
  body: string;
}

interface Line {
  indent: number;
  text: string;
  no: number;
}

/**
 * Splits a `SKILL.md` into frontmatter and body. The frontmatter is read with a small YAML subset (maps by
 * indentation, `- ` lists, plain, quoted, `|` and `>` scalars; plain scalars typed as YAML's core schema);
 * anything outside it is an INVALID_DEFINITION naming the line, never a guess.
 */
export function parseSkillMarkdown(text: string): ParsedSkillMarkdown {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = src.split(/\r?\n/);
  if (lines[0]?.trim() !== '---') fail(1, 'a SKILL.md must begin with a "---" frontmatter line');
  const end = lines.findIndex((l, i) => i > 0 && (l.trim() === '---' || l.trim() === '...'));
  if (end < 0) fail(1, 'the frontmatter has no closing "---" line');
  const header: Line[] = [];
  for (let i = 1; i < end; i++) {
    const raw = lines[i] as string;
    if (raw.includes('\t') && /^\s*\t/.test(raw)) fail(i + 1, 'tabs may not indent YAML');
    const text = raw.trimEnd();
    if (text.trim() === '' || text.trim().startsWith('#')) {
      header.push({ indent: -1, text: '', no: i + 1 });
      continue;
    }
    header.push({ indent: text.length - text.trimStart().length, text: text.trimStart(), no: i + 1 });
  }
  const reader = { lines: header, at: 0 };
  const value = readBlock(reader, 0);
  if (value === undefined) return { frontmatter: {}, body: lines.slice(end + 1).join('\n') };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(2, 'the frontmatter must be a map of fields');
  return { frontmatter: value, body: lines.slice(end + 1).join('\n') };
}

function fail(line: number, why: string): never {
  throw new McpkitError('INVALID_DEFINITION', `SKILL.md frontmatter, line ${line}: ${why}`);
}

function skipBlank(r: { lines: Line[]; at: number }): Line | undefined {
  while (r.at < r.lines.length && (r.lines[r.at] as Line).indent < 0) r.at++;
  return r.lines[r.at];
}

/** A map or a list whose lines are indented exactly `indent`. */
function readBlock(r: { lines: Line[]; at: number }, indent: number): FrontmatterValue | undefined {
  const first = skipBlank(r);
  if (!first || first.indent < indent) return undefined;
  if (first.text === '-' || first.text.startsWith('- ')) return readList(r, first.indent);
  return readMap(r, first.indent);
}

function readList(r: { lines: Line[]; at: number }, indent: number): FrontmatterValue[] {
  const out: FrontmatterValue[] = [];
  for (let line = skipBlank(r); line && line.indent === indent; line = skipBlank(r)) {
    if (!(line.text === '-' || line.text.startsWith('- '))) fail(line.no, 'expected a "- " list item');
    const rest = line.text.slice(1).trim();
    r.at++;
    if (rest === '') out.push(readBlock(r, indent + 1) ?? null);
    else if (/^[^'"[{][^:]*:(\s|$)/.test(rest)) fail(line.no, 'maps inside list items are not supported');
    else out.push(scalar(rest, line.no));
  }
  return out;
}

function readMap(r: { lines: Line[]; at: number }, indent: number): { [key: string]: FrontmatterValue } {
  const out: { [key: string]: FrontmatterValue } = {};
  for (let line = skipBlank(r); line && line.indent >= indent; line = skipBlank(r)) {
    if (line.indent > indent) fail(line.no, 'unexpected indentation');
    const match = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:#'"][^:]*?)\s*:(?:\s+(.*))?$/.exec(line.text);
    if (!match) fail(line.no, 'expected "key: value"');
    const key = unquoteKey(match[1] as string, line.no);
    if (Object.hasOwn(out, key)) fail(line.no, `the key "${key}" appears twice`);
    const rest = (match[2] ?? '').trim();
    r.at++;
    let value: FrontmatterValue;
    if (rest === '' || rest.startsWith('#')) value = readBlock(r, indent + 1) ?? null;
    else if (/^[|>][+-]?$/.test(rest)) value = readBlockScalar(r, indent, rest);
    else value = scalar(rest, line.no);
    // Defined as an own data property: "__proto__" is an ordinary key here.
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function unquoteKey(raw: string, no: number): string {
  if (raw.startsWith('"') || raw.startsWith("'")) {
    const v = scalar(raw, no);
    return String(v);
  }
  return raw.trim();
}

/** A `|` (lines kept) or `>` (lines folded) block scalar under a key at `indent`. */
function readBlockScalar(r: { lines: Line[]; at: number }, indent: number, style: string): string {
  const parts: string[] = [];
  let inner = -1;
  while (r.at < r.lines.length) {
    const line = r.lines[r.at] as Line;
    if (line.indent >= 0 && line.indent <= indent) break;
    if (line.indent >= 0 && inner < 0) inner = line.indent;
    parts.push(line.indent < 0 ? '' : ' '.repeat(line.indent - inner) + line.text);
    r.at++;
  }
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  const chomp = style[1];
  let text = style[0] === '|' ? parts.join('\n') : fold(parts);
  if (chomp !== '-' && text !== '') text += '\n';
  return text;
}

function fold(parts: string[]): string {
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as string;
    if (i === 0) out = p;
    else if (p === '') out += '\n';
    else out += out.endsWith('\n') || out === '' ? p : ` ${p}`;
  }
  return out;
}

function scalar(raw: string, no: number): FrontmatterValue {
  if (raw.startsWith('"')) {
    const m = /^"((?:[^"\\]|\\.)*)"\s*(#.*)?$/.exec(raw);
    if (!m) fail(no, 'unterminated double-quoted string');
    try {
      return JSON.parse(`"${m[1] as string}"`) as string;
    } catch {
      fail(no, 'an escape in a double-quoted string is not supported');
    }
  }
  if (raw.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'\s*(#.*)?$/.exec(raw);
    if (!m) fail(no, 'unterminated single-quoted string');
    return (m[1] as string).replace(/''/g, "'");
  }
  if (raw.startsWith('[') || raw.startsWith('{')) return flow(raw, no);
  if (/^[&*!%@`]/.test(raw)) fail(no, 'anchors, aliases, tags and reserved indicators are not supported');
  const text = raw.replace(/\s+#.*$/, '');
  if (/^(null|Null|NULL|~)$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?[0-9]+$/.test(text)) return Number(text);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  return text;
}

/** A one-line flow list or map of scalars (`[a, b]`, `{k: v}`). */
function flow(raw: string, no: number): FrontmatterValue {
  const text = raw.replace(/\s+#.*$/, '').trim();
  const list = text.startsWith('[');
  if (!text.endsWith(list ? ']' : '}')) fail(no, 'a flow collection must close on its line');
  const inner = text.slice(1, -1).trim();
  if (/[[\]{}]/.test(inner)) fail(no, 'nested flow collections are not supported');
  const items = inner === '' ? [] : inner.split(',').map((s) => s.trim());
  if (list) return items.map((s) => scalar(s, no));
  const out: { [key: string]: FrontmatterValue } = {};
  for (const item of items) {
    const i = item.indexOf(':');
    if (i < 1) fail(no, 'expected "key: value" in a flow map');
    Object.defineProperty(out, item.slice(0, i).trim(), {
      value: scalar(item.slice(i + 1).trim(), no),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
