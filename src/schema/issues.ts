import type { ErrorObject } from 'ajv';

/** The outcome of validating a value: the (possibly transformed) value, or readable issues. */
export type ValidationResult<T = unknown> = { ok: true; value: T } | { ok: false; issues: string[] };

/** A path segment as Standard Schema reports it: a bare key or an object carrying the key. */
export type IssuePathSegment = PropertyKey | { readonly key: PropertyKey };

/** Long issue lists help nobody (least of all a model); keep the first ones and count the rest. */
const MAX_ISSUES = 25;
const MAX_LISTED_VALUES = 10;

/** Shown instead of an empty path so every issue reads `<where>: <what>`. */
export const ROOT_PATH = '(root)';

/**
 * Turns a Standard Schema path into a JSON Pointer (`/address/city`), the same form ajv reports.
 * @example formatPath(['items', 0, { key: 'id' }]) // '/items/0/id'
 */
export function formatPath(path: ReadonlyArray<IssuePathSegment> | undefined): string {
  if (path === undefined || path.length === 0) return ROOT_PATH;
  let out = '';
  for (const segment of path) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    out += '/' + escapePointer(String(key));
  }
  return out;
}

/** Formats Standard Schema issues as `path: message` lines, capped. */
export function formatStandardIssues(
  issues: ReadonlyArray<{
    readonly message: string;
    readonly path?: ReadonlyArray<IssuePathSegment> | undefined;
  }>,
): string[] {
  return capIssues(issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`));
}

/** Formats ajv errors as `path: message` lines, naming the offending key or allowed values where ajv leaves them out. */
export function formatAjvErrors(errors: ReadonlyArray<ErrorObject> | null | undefined): string[] {
  if (!errors || errors.length === 0) return [`${ROOT_PATH}: is invalid`];
  return capIssues(errors.map((error) => `${error.instancePath || ROOT_PATH}: ${describeAjvError(error)}`));
}

function describeAjvError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `must NOT have additional property ${quote(params.additionalProperty)}`;
    case 'unevaluatedProperties':
      return `must NOT have unevaluated property ${quote(params.unevaluatedProperty)}`;
    case 'enum':
      return `must be one of ${listValues(params.allowedValues)}`;
    case 'const':
      return `must be equal to ${JSON.stringify(params.allowedValue)}`;
    default:
      return error.message ?? `failed "${error.keyword}"`;
  }
}

function quote(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value);
}

function listValues(values: unknown): string {
  if (!Array.isArray(values)) return 'the allowed values';
  const shown = values.slice(0, MAX_LISTED_VALUES).map((value) => JSON.stringify(value));
  if (values.length > MAX_LISTED_VALUES) shown.push(`… (${values.length - MAX_LISTED_VALUES} more)`);
  return shown.join(', ');
}

function capIssues(lines: string[]): string[] {
  if (lines.length <= MAX_ISSUES) return lines;
  const kept = lines.slice(0, MAX_ISSUES);
  kept.push(`… and ${lines.length - MAX_ISSUES} more issues`);
  return kept;
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
