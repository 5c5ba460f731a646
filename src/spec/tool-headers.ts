// The `x-mcp-header` rule of 2026-07-28 (streamable-http "Custom Headers from Tool Parameters"), in one place:
// clients drop a listed tool that breaks it, servers refuse to register one, and both read the same paths.
import { isJsonObject } from '../jsonrpc/types.js';

/** One `x-mcp-header` annotation: the header suffix (`Mcp-Param-{header}`) and the property path it mirrors. */
export interface ParamHeader {
  /** The annotation's value, as declared (header names compare case-insensitively). */
  readonly header: string;
  /** The chain of `properties` keys from the schema root to the annotated property. */
  readonly path: readonly string[];
}

/** The annotations of a tool's input schema, or why the tool definition is invalid. */
export type ParamHeadersResult =
  | { readonly ok: true; readonly headers: readonly ParamHeader[] }
  | { readonly ok: false; readonly property: string; readonly reason: string };

/** RFC 9110 `token` (1*tchar): no empty value, no control characters, no separators. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TYPES: ReadonlySet<unknown> = new Set(['string', 'integer', 'boolean']);
/** Keywords whose values are data, not subschemas: an `x-mcp-header` key inside them annotates nothing. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(['const', 'default', 'enum', 'examples']);
/** Keywords whose values map names to subschemas. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
]);
/** Deeper schemas are refused rather than walked (a bound against hostile input; no real tool nests this far). */
const MAX_DEPTH = 64;

const NO_HEADERS: ParamHeadersResult = { ok: true, headers: [] };
const KEY = 'x-mcp-header';

type Schema = { readonly [key: string]: unknown };

class Invalid {
  constructor(
    readonly property: string,
    readonly reason: string,
  ) {}
}

/**
 * Reads and checks the `x-mcp-header` annotations of a tool's input schema. Valid annotations are RFC 9110
 * tokens, unique case-insensitively, on `string`, `integer` or `boolean` properties reached from the root
 * through `properties` keys only (nested objects allowed; never through `items`, `anyOf`/`oneOf`/`allOf`/`not`,
 * `if`/`then`/`else` or `$ref`). One invalid annotation makes the whole tool invalid.
 *
 * @example
 * readParamHeaders({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } });
 * // { ok: true, headers: [{ header: 'Region', path: ['region'] }] }
 */
export function readParamHeaders(inputSchema: unknown): ParamHeadersResult {
  if (!isJsonObject(inputSchema)) return NO_HEADERS;
  const headers: ParamHeader[] = [];
  try {
    walk(inputSchema, [], '', headers, 0);
  } catch (e) {
    if (e instanceof Invalid) return { ok: false, property: e.property, reason: e.reason };
    throw e;
  }
  if (headers.length === 0) return NO_HEADERS;
  const seen = new Map<string, string>();
  for (const { header, path } of headers) {
    const key = header.toLowerCase();
    const other = seen.get(key);
    if (other !== undefined) {
      return {
        ok: false,
        property: path.join('.'),
        reason: `repeats the header name ${JSON.stringify(header)} of "${other}" (names compare case-insensitively)`,
      };
    }
    seen.set(key, path.join('.'));
  }
  return { ok: true, headers };
}

/** The argument at an annotation's property path (undefined when any step is missing or not an object). */
export function valueAtPath(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (!isJsonObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** A value for an error message (never throws: a schema object built in code may hold a bigint). */
function describe(value: unknown): string {
  if (value === undefined) return 'none';
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/**
 * Walks one schema. `path` is its property path while it is reachable through `properties` keys only, and
 * undefined below any other keyword (where an annotation is invalid); `at` names the place for messages.
 */
function walk(
  schema: Schema,
  path: string[] | undefined,
  at: string,
  out: ParamHeader[],
  depth: number,
): void {
  if (depth > MAX_DEPTH) throw new Invalid(at, `is nested deeper than ${MAX_DEPTH} schema levels`);
  if (Object.hasOwn(schema, KEY)) {
    if (path === undefined || path.length === 0) {
      throw new Invalid(
        at || '(the schema root)',
        'is not on a property reached through "properties" keys only (never through items, anyOf/oneOf/allOf/not, if/then/else or $ref, nor on the root)',
      );
    }
    const header = schema[KEY];
    if (typeof header !== 'string' || !TOKEN.test(header)) {
      throw new Invalid(
        at,
        `must be a non-empty RFC 9110 token (letters, digits and !#$%&'*+-.^_\`|~), not ${describe(header)}`,
      );
    }
    if (!TYPES.has(schema.type)) {
      throw new Invalid(
        at,
        `is only allowed on a property of type "string", "integer" or "boolean", not of type ${describe(schema.type)}`,
      );
    }
    out.push({ header, path: [...path] });
  }
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === KEY || DATA_KEYWORDS.has(keyword)) continue;
    const here = at ? `${at}.${keyword}` : keyword;
    if (SCHEMA_MAPS.has(keyword)) {
      if (!isJsonObject(value)) continue;
      const reachable = keyword === 'properties' && path !== undefined;
      for (const [name, sub] of Object.entries(value)) {
        if (!isJsonObject(sub)) continue;
        if (reachable) walk(sub, [...path, name], at ? `${at}.${name}` : name, out, depth + 1);
        else walk(sub, undefined, `${here}.${name}`, out, depth + 1);
      }
    } else if (Array.isArray(value)) {
      value.forEach((sub, i) => {
        if (isJsonObject(sub)) walk(sub, undefined, `${here}[${i}]`, out, depth + 1);
      });
    } else if (isJsonObject(value)) {
      walk(value, undefined, here, out, depth + 1);
    }
  }
}
