import { McpkitError } from '../jsonrpc/errors.js';

/** Longest template string (in UTF-16 code units) that `UriTemplate` accepts. */
export const MAX_TEMPLATE_LENGTH = 1024;

/** Longest URI (in UTF-16 code units) that `UriTemplate.match` will try to match; longer URIs never match. */
export const MAX_URI_LENGTH = 65536;

/** A value to expand: a string, a list, an associative array (level 4), or undefined to omit it. */
export type UriTemplateValue = string | readonly string[] | Readonly<Record<string, string>> | undefined;

/** The variables extracted by `UriTemplate.match`: exploded variables are lists, the others strings. */
export type UriTemplateMatch = Record<string, string | string[]>;

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

interface OperatorSpec {
  readonly first: string;
  readonly sep: string;
  readonly named: boolean;
  readonly ifEmpty: string;
  readonly reserved: boolean;
  /** Characters besides `sep` that a matched value never contains for this operator (expansion encodes them). */
  readonly excluded: string;
}

// RFC 6570 appendix A, plus the structural characters each operator's values cannot contain.
const OPERATORS: Readonly<Record<Operator, OperatorSpec>> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false, excluded: '/?#' },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true, excluded: '' },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true, excluded: '' },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false, excluded: '/?#' },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false, excluded: '?#' },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false, excluded: '/?#' },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false, excluded: '#' },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false, excluded: '#' },
};

interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
  readonly prefix: number | undefined;
}

interface Literal {
  readonly kind: 'literal';
  /** The literal as written, and its URI-safe form when that differs (non-ASCII literals). */
  readonly forms: readonly string[];
}

interface Expression {
  readonly kind: 'expression';
  readonly op: Operator;
  readonly spec: OperatorSpec;
  readonly vars: readonly VarSpec[];
}

type Part = Literal | Expression;

/** How to turn one capture group of the matching RegExp into variables. */
type Extractor =
  | { readonly kind: 'positional'; readonly group: number; readonly variable: VarSpec; readonly sep: string }
  | {
      readonly kind: 'named';
      readonly group: number;
      readonly vars: ReadonlyMap<string, VarSpec>;
      readonly sep: string;
    };

const VARSPEC =
  /^((?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*)(?:(\*)|:([1-9][0-9]{0,3}))?$/;
// Characters RFC 6570 section 2.1 forbids in literals: controls, space, and " ' < > \ ^ ` { | }.
const BAD_LITERAL = /[^\u0021-\u007e\u00a0-\uffff]|["'<>\\^`{|}]/;
const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;
const RESERVED_RUN = /%[0-9A-Fa-f]{2}|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+|%/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const PCT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
// Longest part of a following literal a value checks for before it stops (bounds the matcher's cost).
const LOOKAHEAD_CAP = 64;
const utf8 = new TextDecoder();

function invalid(template: string, reason: string): McpkitError {
  return new McpkitError('INVALID_DEFINITION', `Invalid URI template ${JSON.stringify(template)}: ${reason}`);
}

/** Percent-encodes everything but unreserved characters (and, when `reserved`, reserved ones and existing triplets). */
function encode(value: string, reserved: boolean): string {
  if (UNRESERVED.test(value)) return value;
  const wellFormed = value.replace(LONE_SURROGATE, '\uFFFD');
  if (!reserved) return encodeStrict(wellFormed);
  return wellFormed.replace(RESERVED_RUN, (run) =>
    run.length === 3 && run[0] === '%' ? run : encodeStrict(run),
  );
}

function encodeStrict(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Decodes percent-encoded UTF-8; malformed bytes become U+FFFD and stray `%` signs stay as they are. */
function decode(value: string): string {
  if (!value.includes('%')) return value;
  return value.replace(PCT_RUN, (run) => {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    return utf8.decode(bytes);
  });
}

function truncate(value: string, length: number | undefined): string {
  if (length === undefined || value.length <= length) return value;
  let out = '';
  let count = 0;
  for (const char of value) {
    if (count++ === length) break;
    out += char;
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function escapeClass(chars: Iterable<string>): string {
  let out = '';
  for (const c of chars) out += `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return out;
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const end = open === -1 ? template.length : open;
    if (end > i) parts.push(parseLiteral(template, template.slice(i, end)));
    if (open === -1) break;
    const close = template.indexOf('}', open + 1);
    if (close === -1) throw invalid(template, `unclosed "{" at offset ${open}`);
    const body = template.slice(open + 1, close);
    if (body.includes('{')) throw invalid(template, `nested "{" inside the expression at offset ${open}`);
    parts.push(parseExpression(template, body));
    i = close + 1;
  }
  return parts;
}

function parseLiteral(template: string, text: string): Literal {
  if (text.includes('}')) throw invalid(template, `unmatched "}" in ${JSON.stringify(text)}`);
  if (BAD_LITERAL.test(text))
    throw invalid(template, `character not allowed in a literal in ${JSON.stringify(text)}`);
  if (/%(?![0-9A-Fa-f]{2})/.test(text))
    throw invalid(template, `malformed percent-encoding in ${JSON.stringify(text)}`);
  const encoded = encode(text, true);
  return { kind: 'literal', forms: encoded === text ? [text] : [text, encoded] };
}

function parseExpression(template: string, body: string): Expression {
  if (body === '') throw invalid(template, 'empty expression "{}"');
  let op: Operator = '';
  const c = body[0]!;
  if (c === '+' || c === '#' || c === '.' || c === '/' || c === ';' || c === '?' || c === '&') op = c;
  else if ('=,!@|'.includes(c)) throw invalid(template, `reserved operator "${c}" in "{${body}}"`);
  const vars = body
    .slice(op.length)
    .split(',')
    .map((text): VarSpec => {
      const m = VARSPEC.exec(text);
      if (m === null)
        throw invalid(template, `bad variable specification ${JSON.stringify(text)} in "{${body}}"`);
      return { name: m[1]!, explode: m[2] === '*', prefix: m[3] === undefined ? undefined : Number(m[3]) };
    });
  return { kind: 'expression', op, spec: OPERATORS[op], vars };
}

function expandExpression(
  expression: Expression,
  variables: Readonly<Record<string, UriTemplateValue>>,
): string {
  const { spec } = expression;
  let out = '';
  for (const variable of expression.vars) {
    const value = variables[variable.name];
    if (value == null) continue;
    const text = expandValue(spec, variable, value);
    if (text !== undefined) out += out === '' ? spec.first + text : spec.sep + text;
  }
  return out;
}

/** Expands one defined variable (RFC 6570 appendix A); undefined for an empty list or map. */
function expandValue(
  spec: OperatorSpec,
  variable: VarSpec,
  value: NonNullable<UriTemplateValue>,
): string | undefined {
  const { name, explode } = variable;
  const enc = (text: string) => encode(text, spec.reserved);
  const named = (key: string, text: string) => (text === '' ? key + spec.ifEmpty : `${key}=${enc(text)}`);
  if (typeof value === 'string') {
    const text = truncate(value, variable.prefix);
    return spec.named ? named(name, text) : enc(text);
  }
  // Prefix modifiers do not apply to composite values (RFC 6570 section 2.4.1), so they are ignored here.
  if (Array.isArray(value)) {
    const list = value as readonly string[];
    if (list.length === 0) return undefined;
    if (explode) return list.map((item) => (spec.named ? named(name, item) : enc(item))).join(spec.sep);
    const joined = list.map(enc).join(',');
    return spec.named ? `${name}=${joined}` : joined;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return undefined;
  if (explode)
    return entries.map(([k, v]) => (spec.named ? named(enc(k), v) : `${enc(k)}=${enc(v)}`)).join(spec.sep);
  const joined = entries.map(([k, v]) => `${enc(k)},${enc(v)}`).join(',');
  return spec.named ? `${name}=${joined}` : joined;
}

interface Follow {
  /** Single characters that may start whatever follows (prefixes of optional expressions). */
  readonly chars: Set<string>;
  /** Forms of the first literal that follows, if any. */
  readonly literal: readonly string[];
}

/** The ways the text after unit `index` can begin, used to decide where a value must stop. */
function followOf(units: readonly Part[], index: number): Follow {
  const chars = new Set<string>();
  for (let j = index + 1; j < units.length; j++) {
    const unit = units[j]!;
    if (unit.kind === 'literal') return { chars, literal: unit.forms };
    if (unit.spec.first === '') break;
    chars.add(unit.spec.first);
  }
  return { chars, literal: [] };
}

/** A pattern for one value: never contains an excluded character nor the start of the following literal. */
function valuePattern(excluded: Set<string>, literal: readonly string[]): string {
  const stop = new Set(excluded);
  const guarded = new Map<string, string[]>();
  for (const form of literal) {
    const head = form[0]!;
    if (excluded.has(head)) continue;
    stop.add(head);
    if (form.length > 1) guarded.set(head, [...(guarded.get(head) ?? []), form.slice(1, 1 + LOOKAHEAD_CAP)]);
  }
  const cls = stop.size === 0 ? '[\\s\\S]' : `[^${escapeClass(stop)}]`;
  if (guarded.size === 0) return `${cls}*`;
  const alternatives = [...guarded].map(
    ([head, rests]) => `${escapeRegExp(head)}(?!${rests.map(escapeRegExp).join('|')})`,
  );
  return `(?:${cls}|${alternatives.join('|')})*`;
}

function literalPattern(forms: readonly string[]): string {
  return forms.length === 1 ? escapeRegExp(forms[0]!) : `(?:${forms.map(escapeRegExp).join('|')})`;
}

/** Merges `{;a}{;b}` and `{?a}{&b}` runs so one capture holds every pair of a parameter list. */
function mergeNamed(parts: readonly Part[]): Part[] {
  const units: Part[] = [];
  for (const part of parts) {
    const prev = units[units.length - 1];
    if (
      part.kind === 'expression' &&
      prev?.kind === 'expression' &&
      ((part.op === ';' && prev.op === ';') || (part.op === '&' && (prev.op === '?' || prev.op === '&')))
    ) {
      units[units.length - 1] = { ...prev, vars: [...prev.vars, ...part.vars] };
    } else {
      units.push(part);
    }
  }
  return units;
}

/**
 * Compiles the matcher. Every expression sits in an atomic group (`(?=(...))\N`) and every value stops at the
 * first character that can follow it, so the RegExp never backtracks and runs in linear time.
 */
function compile(parts: readonly Part[]): { regexp: RegExp; extractors: Extractor[] } {
  const units = mergeNamed(parts);
  const extractors: Extractor[] = [];
  let source = '^';
  let group = 0;
  units.forEach((unit, index) => {
    if (unit.kind === 'literal') {
      source += literalPattern(unit.forms);
      return;
    }
    const { spec } = unit;
    const follow = followOf(units, index);
    const excluded = new Set([...spec.excluded, ...follow.chars]);
    const atomic = ++group;
    let inner: string;
    if (spec.named) {
      inner = `(${valuePattern(excluded, follow.literal)})`;
      extractors.push({
        kind: 'named',
        group: ++group,
        vars: new Map(unit.vars.map((v) => [v.name, v])),
        sep: spec.sep,
      });
    } else {
      inner = '';
      unit.vars.forEach((variable, i) => {
        const last = i === unit.vars.length - 1;
        const own = new Set(excluded);
        if (!last || (!variable.explode && spec.sep !== ',')) own.add(spec.sep);
        const sep = i === 0 ? '' : escapeRegExp(spec.sep);
        inner += `${i === 0 ? '' : '(?:'}${sep}(${valuePattern(own, follow.literal)})`;
        extractors.push({ kind: 'positional', group: ++group, variable, sep: spec.sep });
      });
      inner += ')?'.repeat(unit.vars.length - 1);
    }
    if (spec.first !== '') {
      const clash = follow.literal.filter((form) => form.startsWith(spec.first));
      const guard =
        clash.length === 0
          ? ''
          : `(?!${clash.map((f) => escapeRegExp(f.slice(0, LOOKAHEAD_CAP))).join('|')})`;
      inner = `(?:${guard}${escapeRegExp(spec.first)}${inner})?`;
    }
    source += `(?=(${inner}))(?:\\${atomic})`;
  });
  return { regexp: new RegExp(`${source}$`), extractors };
}

function sameValue(a: string | string[], b: string | string[]): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/**
 * An RFC 6570 URI template (levels 1–4), parsed and compiled once: expands variables into a URI and matches
 * URIs back into variables.
 * @example new UriTemplate('test://items/{id}{?fields*}').match('test://items/7?fields=a&fields=b') // { id: '7', fields: ['a', 'b'] }
 */
export class UriTemplate {
  /** Names of the template's variables, each once, in order of first appearance. */
  readonly variableNames: readonly string[];
  readonly #template: string;
  readonly #parts: readonly Part[];
  readonly #regexp: RegExp;
  readonly #extractors: readonly Extractor[];

  /** Parses and compiles `template`; throws McpkitError('INVALID_DEFINITION') when it is malformed or too long. */
  constructor(template: string) {
    if (template.length > MAX_TEMPLATE_LENGTH) {
      throw new McpkitError(
        'INVALID_DEFINITION',
        `URI template is ${template.length} characters long; the limit is ${MAX_TEMPLATE_LENGTH}`,
      );
    }
    this.#template = template;
    this.#parts = parse(template);
    const names = new Set<string>();
    for (const part of this.#parts)
      if (part.kind === 'expression') for (const v of part.vars) names.add(v.name);
    this.variableNames = Object.freeze([...names]);
    const { regexp, extractors } = compile(this.#parts);
    this.#regexp = regexp;
    this.#extractors = extractors;
  }

  /** Expands the template with `variables`; undefined values, empty lists and empty maps are omitted. */
  expand(variables: Readonly<Record<string, UriTemplateValue>>): string {
    let out = '';
    for (const part of this.#parts) {
      out += part.kind === 'literal' ? part.forms[part.forms.length - 1]! : expandExpression(part, variables);
    }
    return out;
  }

  /**
   * Matches `uri` against the template and returns its percent-decoded variables (exploded ones as lists), or
   * undefined when it does not match or is longer than MAX_URI_LENGTH.
   */
  match(uri: string): UriTemplateMatch | undefined {
    if (uri.length > MAX_URI_LENGTH) return undefined;
    const m = this.#regexp.exec(uri);
    if (m === null) return undefined;
    const result: UriTemplateMatch = {};
    const assign = (name: string, value: string | string[]): boolean => {
      const existing = result[name];
      if (existing !== undefined && !sameValue(existing, value)) return false;
      result[name] = value;
      return true;
    };
    for (const extractor of this.#extractors) {
      const raw = m[extractor.group];
      if (raw === undefined) continue;
      if (extractor.kind === 'positional') {
        const { variable, sep } = extractor;
        if (!assign(variable.name, variable.explode ? raw.split(sep).map(decode) : decode(raw)))
          return undefined;
        continue;
      }
      const found = new Map<string, string | string[]>();
      for (const pair of raw.split(extractor.sep)) {
        const eq = pair.indexOf('=');
        const variable = extractor.vars.get(eq === -1 ? pair : pair.slice(0, eq));
        if (variable === undefined) continue; // parameters the template does not name are ignored
        const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
        const previous = found.get(variable.name);
        if (variable.explode)
          found.set(variable.name, [...((previous as string[] | undefined) ?? []), value]);
        else if (previous === undefined) found.set(variable.name, value);
      }
      for (const [name, value] of found) if (!assign(name, value)) return undefined;
    }
    return result;
  }

  /** The template exactly as given to the constructor. */
  toString(): string {
    return this.#template;
  }
}
