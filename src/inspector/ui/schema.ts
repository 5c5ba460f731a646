// JSON Schema as the generated forms read it: $ref resolution, the kind of field a schema calls for, and the
// initial value its defaults make.

/** A JSON Schema node (only what the forms read). */
export interface Schema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  format?: string;
  minimum?: number;
  maximum?: number;
  $ref?: string;
  $defs?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
  enumNames?: string[];
}

/** The kinds of field a form can show. */
export type FieldKind =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'multi'
  | 'array'
  | 'object'
  | 'json';

/** A choice of an enum field: its value and label. */
export interface Choice {
  value: unknown;
  label: string;
}

/** `schema` with a local `$ref` (`#/$defs/x`, `#/definitions/x`) followed, up to a few hops. */
export function resolve(schema: Schema | undefined, root: Schema): Schema {
  let node: Schema = schema ?? {};
  for (let hops = 0; node.$ref !== undefined && hops < 8; hops++) {
    const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(node.$ref);
    const target = m
      ? root[m[1] as '$defs' | 'definitions']?.[decodeURIComponent(m[2] as string)]
      : undefined;
    if (!target) return { description: `unresolved $ref ${node.$ref}` };
    const { $ref: _ref, ...rest } = node;
    node = { ...target, ...rest };
  }
  return node;
}

/** The type a schema names, ignoring `null` in a type list. */
export function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  return schema.type;
}

/** The choices of an enum-like schema (`enum`, or `oneOf`/`anyOf` of `const`s), or undefined. */
export function choicesOf(schema: Schema): Choice[] | undefined {
  if (Array.isArray(schema.enum))
    return schema.enum.map((value, i) => ({ value, label: schema.enumNames?.[i] ?? String(value) }));
  const options = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(options) && options.length > 0 && options.every((o) => o && 'const' in o))
    return options.map((o) => ({ value: o.const, label: o.title ?? String(o.const) }));
  return undefined;
}

/** Which field `schema` calls for. */
export function kindOf(schema: Schema, root: Schema): FieldKind {
  if (choicesOf(schema)) return 'enum';
  const type = typeOf(schema);
  if (type === 'array') {
    const items = resolve(schema.items, root);
    return choicesOf(items) ? 'multi' : 'array';
  }
  if (type === 'object' || (type === undefined && schema.properties)) return 'object';
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return type;
  return 'json';
}

/** The value a fresh form starts with: defaults, and required nested objects filled in. */
export function initialValue(schema: Schema, root: Schema, depth = 0): unknown {
  if (schema.default !== undefined) return structuredClone(schema.default);
  if (depth > 8 || kindOf(schema, root) !== 'object') return undefined;
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, raw] of Object.entries(schema.properties ?? {})) {
    const child = resolve(raw, root);
    const value =
      child.default !== undefined || (required.has(name) && kindOf(child, root) === 'object')
        ? initialValue(child, root, depth + 1)
        : undefined;
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The required properties `value` leaves out, as dotted paths (`address.city`), through the nested objects it has:
 * what the form asks for before anything is sent.
 */
export function missingRequired(schema: Schema, root: Schema, value: unknown, path = ''): string[] {
  const node = resolve(schema, root);
  if (kindOf(node, root) !== 'object' || node.properties === undefined) return [];
  const record = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const missing: string[] = [];
  for (const [name, child] of Object.entries(node.properties)) {
    const at = path === '' ? name : `${path}.${name}`;
    const present = (record as Record<string, unknown>)[name];
    if (present === undefined) {
      if (node.required?.includes(name)) missing.push(at);
    } else missing.push(...missingRequired(child, root, present, at));
  }
  return missing;
}
