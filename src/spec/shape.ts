import { isJsonObject } from '../jsonrpc/types.js';

/**
 * Small structural checks for what a peer sends. A shape names the first problem of a value (a path and
 * what is wrong: `.contents[0].text must be a string`), or undefined when the value conforms. Its type is
 * inferred from its structure, so `const s: Shape<ReadResourceResult> = object({…})` compiles only when
 * the shape checks every field the type requires. Objects stay open: unknown fields pass through, and
 * optional fields are checked only where a shape names them.
 */
export type Shape<T> = ((value: unknown) => string | undefined) & { readonly type?: T };

/** A shape whose key may be absent from its object. */
type Optional<T> = Shape<T> & { readonly optional: true };

/** The type a shape checks. */
export type Infer<S> = S extends Shape<infer T> ? T : never;

type Props = { readonly [key: string]: Shape<unknown> };
type OptionalKeys<P extends Props> = { [K in keyof P]: P[K] extends Optional<unknown> ? K : never }[keyof P];
type ObjectOf<P extends Props> = { [K in Exclude<keyof P, OptionalKeys<P>>]: Infer<P[K]> } & {
  [K in OptionalKeys<P>]?: Infer<P[K]>;
};

/** A value that passes `test`, described as `what` when it does not. */
export function leaf<T>(test: (value: unknown) => value is T, what: string): Shape<T> {
  const problem = ` must be ${what}`;
  return (value) => (test(value) ? undefined : problem);
}

/** Any string. */
export const string: Shape<string> = leaf((v): v is string => typeof v === 'string', 'a string');
/** Any finite number. */
export const number: Shape<number> = leaf((v): v is number => Number.isFinite(v), 'a number');
/** true or false. */
export const boolean: Shape<boolean> = leaf((v): v is boolean => typeof v === 'boolean', 'a boolean');
/** Any value at all (the field's content is the application's business). */
export const anything: Shape<unknown> = () => undefined;

/** Any JSON object (not an array, not null). */
export const record: Shape<{ [key: string]: unknown }> = leaf(isJsonObject, 'an object');

/** One of the given strings. */
export function oneOf<const V extends readonly string[]>(...values: V): Shape<V[number]> {
  const allowed: ReadonlySet<unknown> = new Set(values);
  return leaf((v): v is V[number] => allowed.has(v), `one of ${values.map((s) => `"${s}"`).join(', ')}`);
}

/** A key that may be absent (or undefined); checked by `shape` when present. */
export function optional<T>(shape: Shape<T>): Optional<T> {
  return Object.assign((v: unknown) => (v === undefined ? undefined : shape(v)), { optional: true as const });
}

/** Either `shape` or null. */
export function nullable<T>(shape: Shape<T>): Shape<T | null> {
  return (v) => (v === null ? undefined : shape(v));
}

/** An array whose every item has `item`'s shape. */
export function array<T>(item: Shape<T>): Shape<T[]> {
  return (v) => {
    if (!Array.isArray(v)) return ' must be an array';
    for (let i = 0; i < v.length; i++) {
      const problem = item(v[i]);
      if (problem !== undefined) return `[${i}]${problem}`;
    }
    return undefined;
  };
}

/** An object whose values all have `value`'s shape. */
export function recordOf<T>(value: Shape<T>): Shape<{ [key: string]: T }> {
  return (v) => {
    if (!isJsonObject(v)) return ' must be an object';
    for (const key in v) {
      const problem = value(v[key]);
      if (problem !== undefined) return `${at(key)}${problem}`;
    }
    return undefined;
  };
}

/** An object with the given fields (others may be present and are not checked). */
export function object<P extends Props>(props: P): Shape<ObjectOf<P>> {
  const entries = Object.entries(props);
  return (v) => {
    if (!isJsonObject(v)) return ' must be an object';
    for (const [key, shape] of entries) {
      const problem = shape(v[key]);
      if (problem !== undefined) return `${at(key)}${problem}`;
    }
    return undefined;
  };
}

/** An object told apart by the string field `key`: each value of it names the shape of the rest. */
export function variant<K extends string, M extends { readonly [tag: string]: Shape<unknown> }>(
  key: K,
  shapes: M,
): Shape<{ [T in keyof M]: { [_ in K]: T } & Infer<M[T]> }[keyof M]> {
  const known = Object.keys(shapes);
  const unknownTag = ` must be one of ${known.map((s) => `"${s}"`).join(', ')}`;
  return (v) => {
    if (!isJsonObject(v)) return ' must be an object';
    const tag = v[key];
    const shape = typeof tag === 'string' && Object.hasOwn(shapes, tag) ? shapes[tag] : undefined;
    return shape === undefined ? `${at(key)}${unknownTag}` : shape(v);
  };
}

/** A value of `shape`, or an array of them. */
export function oneOrMany<T>(shape: Shape<T>): Shape<T | T[]> {
  const many = array(shape);
  return (v) => (Array.isArray(v) ? many(v) : shape(v));
}

/** A value of the first shape or of the second; `what` describes both when it has neither. */
export function either<A, B>(first: Shape<A>, second: Shape<B>, what: string): Shape<A | B> {
  const problem = ` must be ${what}`;
  return (v) => (first(v) === undefined || second(v) === undefined ? undefined : problem);
}

/** The path segment of an object key: `.name`, or `["odd key"]`. */
function at(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** True when `value` has the shape. */
export function conforms<T>(shape: Shape<T>, value: unknown): value is T {
  return shape(value) === undefined;
}

/**
 * `value` when it has the shape; otherwise throws `fail(problem)`.
 *
 * @example
 * const result = check(readResourceResult, raw, (p) => new McpkitError('INVALID_RESULT', `resources/read result${p}`));
 */
export function check<T>(shape: Shape<T>, value: unknown, fail: (problem: string) => Error): T {
  if (conforms(shape, value)) return value;
  throw fail(shape(value) ?? '');
}
