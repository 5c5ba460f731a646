// `key=value` words turned into a tool's arguments by its input schema: a property declared `number` gets a
// number, `boolean` true/false, `array`/`object` parsed JSON, `string` the text as it is. Nothing is guessed from
// the value's look: a key the schema does not type stays a string. A value that does not fit is a usage error
// saying which argument and why.
import { McpkitError } from '../../jsonrpc/errors.js';
import { compileJsonSchema } from '../../schema/json-schema.js';
import { CliError, ExitCode } from './exit.js';
import { nearest } from './nearest.js';

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';

/** Splits `key=value` words (the first `=` separates; a key is never empty). */
export function parsePairs(words: readonly string[], what: string): [string, string][] {
  return words.map((word) => {
    const eq = word.indexOf('=');
    if (eq <= 0) throw new CliError(ExitCode.usage, `${what} are key=value, got "${word}"`);
    return [word.slice(0, eq), word.slice(eq + 1)];
  });
}

/** Parses `--args-json`: a JSON object. */
export function parseArgsJson(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new CliError(
      ExitCode.usage,
      `--args-json is not valid JSON: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CliError(ExitCode.usage, '--args-json must be a JSON object');
  return value as Record<string, unknown>;
}

/**
 * The arguments of a call to a tool with `schema`: `--args-json` first, then each `key=value` coerced to the
 * type its property declares. A name the schema does not list is a usage error with the nearest listed one (most
 * schemas omit `additionalProperties: false`, so a typo would otherwise reach the server and be ignored there),
 * unless `allowUnknown` (`--allow-unknown-args`) or the schema itself welcomes other names; missing required
 * arguments are usage errors too.
 */
export function toolArguments(
  tool: string,
  schema: unknown,
  pairs: readonly [string, string][],
  base: Record<string, unknown>,
  options: { allowUnknown?: boolean } = {},
): Record<string, unknown> {
  const s = isObject(schema) ? schema : {};
  const properties = isObject(s.properties) ? s.properties : {};
  const args: Record<string, unknown> = { ...base };
  for (const [key, text] of pairs)
    args[key] = coerce(key, text, Object.hasOwn(properties, key) ? properties[key] : undefined);
  if (options.allowUnknown !== true) refuseUnknown(tool, s, Object.keys(args));
  const required = Array.isArray(s.required)
    ? s.required.filter((r): r is string => typeof r === 'string')
    : [];
  const missing = required.filter((r) => !Object.hasOwn(args, r));
  if (missing.length > 0)
    throw new CliError(
      ExitCode.usage,
      `tool "${tool}" needs ${missing.map((m) => `${m}=…`).join(' ')} (missing required argument${missing.length > 1 ? 's' : ''})`,
    );
  return args;
}

/** Refuses the first of `keys` that `schema` neither lists nor lets in, naming the nearest listed name. */
function refuseUnknown(tool: string, schema: Record<string, unknown>, keys: readonly string[]): void {
  const known = argumentNames(schema);
  if (known === 'open') return;
  const unknown = keys.find((k) => !known.includes(k));
  if (unknown === undefined) return;
  const close = nearest(unknown, known);
  throw new CliError(
    ExitCode.usage,
    `tool "${tool}" has no argument "${unknown}"${close === undefined ? '' : ` (did you mean "${close}"?)`}; its arguments: ${known.join(', ') || '(none)'} (to send it anyway: --allow-unknown-args)`,
    { argument: unknown, ...(close === undefined ? {} : { suggestion: close }), arguments: known },
  );
}

/**
 * The argument names an input schema lists (its `properties`, and those of its `allOf`/`anyOf`/`oneOf` branches), or
 * `open` when it lets other names in itself: `additionalProperties` given as `true` or a schema,
 * `patternProperties`, or a `$ref` whose properties are elsewhere.
 */
function argumentNames(schema: Record<string, unknown>): string[] | 'open' {
  const extra = schema.additionalProperties;
  if (
    extra === true ||
    isObject(extra) ||
    schema.patternProperties !== undefined ||
    schema.$ref !== undefined
  )
    return 'open';
  const names = new Set(Object.keys(isObject(schema.properties) ? schema.properties : {}));
  for (const branches of [schema.allOf, schema.anyOf, schema.oneOf]) {
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (!isObject(branch)) continue;
      const inner = argumentNames(branch);
      if (inner === 'open') return 'open';
      for (const name of inner) names.add(name);
    }
  }
  return [...names];
}

/**
 * Checks assembled arguments against the tool's whole input schema (ajv, as the library validates): a value the
 * server would refuse is a usage error (exit 1) naming what is wrong, before anything is sent. A schema that
 * cannot be compiled is left to the server to judge.
 */
export async function checkArguments(
  tool: string,
  schema: unknown,
  args: Record<string, unknown>,
): Promise<void> {
  if (!isObject(schema)) return;
  let result: Awaited<ReturnType<ReturnType<typeof compileJsonSchema>['validate']>>;
  try {
    result = await compileJsonSchema(schema).validate(args);
  } catch (e) {
    if (e instanceof McpkitError) return;
    throw e;
  }
  if (!result.ok)
    throw new CliError(
      ExitCode.usage,
      `the arguments do not fit tool "${tool}": ${result.issues.join('; ')}`,
      {
        issues: result.issues,
      },
    );
}

/** A decimal number (digits, an optional fraction and exponent; no hex, binary, spaces, `+` or `Infinity`). */
const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** One value coerced to the type(s) its schema declares. */
export function coerce(key: string, text: string, schema: unknown): unknown {
  const types = typesOf(schema);
  if (types.length === 0) return text;
  const problems: string[] = [];
  // A string-typed property takes the text as it is, whatever it looks like.
  const textAllowed = types.includes('string');
  for (const type of orderForText(types)) {
    const got = asType(text, type);
    // With a string allowed too, a number that would not read back as the same text (`007`, `1.0`, a long id)
    // stays the text.
    if (got.ok && textAllowed && typeof got.value === 'number' && String(got.value) !== text) continue;
    if (!got.ok) problems.push(got.problem);
    else {
      const allowed = enumOf(schema);
      if (allowed === undefined || allowed.some((a) => JSON.stringify(a) === JSON.stringify(got.value)))
        return got.value;
      problems.push(`must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
    }
  }
  throw new CliError(ExitCode.usage, `argument "${key}": ${problems.join('; ')}, got "${text}"`);
}

function orderForText(types: JsonType[]): JsonType[] {
  // Try the types that must parse first; a string (which takes anything) last.
  return [...types.filter((t) => t !== 'string'), ...types.filter((t) => t === 'string')];
}

type Attempt = { ok: true; value: unknown } | { ok: false; problem: string };

function asType(text: string, type: JsonType): Attempt {
  switch (type) {
    case 'string':
      return { ok: true, value: text };
    case 'number':
    case 'integer': {
      const n = DECIMAL.test(text) ? Number(text) : Number.NaN;
      if (!Number.isFinite(n))
        return { ok: false, problem: `expected ${type === 'integer' ? 'an integer' : 'a number'}` };
      if (type === 'integer' && !Number.isInteger(n)) return { ok: false, problem: 'expected an integer' };
      return { ok: true, value: n };
    }
    case 'boolean':
      if (text === 'true') return { ok: true, value: true };
      if (text === 'false') return { ok: true, value: false };
      return { ok: false, problem: 'expected true or false' };
    case 'null':
      return text === 'null' ? { ok: true, value: null } : { ok: false, problem: 'expected null' };
    case 'array':
    case 'object': {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return { ok: false, problem: `expected a JSON ${type}` };
      }
      const fits = type === 'array' ? Array.isArray(value) : isObject(value);
      return fits ? { ok: true, value } : { ok: false, problem: `expected a JSON ${type}` };
    }
  }
}

/** The values a property is limited to (`enum`, or `const`), if any. */
function enumOf(schema: unknown): unknown[] | undefined {
  if (!isObject(schema)) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum;
  return 'const' in schema ? [schema.const] : undefined;
}

/** The JSON types a property allows: `type` (one or many), or those of its `anyOf`/`oneOf` branches. */
function typesOf(schema: unknown): JsonType[] {
  if (!isObject(schema)) return [];
  const out = new Set<JsonType>();
  const add = (t: unknown) => {
    if (
      t === 'string' ||
      t === 'number' ||
      t === 'integer' ||
      t === 'boolean' ||
      t === 'array' ||
      t === 'object' ||
      t === 'null'
    )
      out.add(t);
  };
  if (Array.isArray(schema.type)) schema.type.forEach(add);
  else add(schema.type);
  for (const branch of [schema.anyOf, schema.oneOf]) {
    if (Array.isArray(branch)) for (const b of branch) for (const t of typesOf(b)) out.add(t);
  }
  if (out.size === 0 && Array.isArray(schema.enum)) {
    for (const v of schema.enum) add(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  }
  return [...out];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
