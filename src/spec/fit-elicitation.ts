import { McpkitError } from '../jsonrpc/errors.js';
import { isJsonObject } from '../jsonrpc/types.js';

type Obj = { [key: string]: unknown };

/**
 * Fits the params of a form-mode `elicitation/create` to a revision before 2025-11-25 (the revision that brought
 * modes, `$schema`, defaults on strings, numbers and enums, titled single-select enums as `oneOf: [{ const, title }]`
 * and multi-select arrays):
 * - `mode: "form"` is dropped (form was the only kind);
 * - `$schema` is dropped from `requestedSchema`, and `default` from every field but a boolean (which had it);
 * - a titled single-select becomes `enum` with `enumNames`, its older spelling;
 * - a multi-select has no older equivalent: refused with McpkitError('INVALID_SCHEMA') before anything is sent.
 * URL mode has no older equivalent either; it is refused by the session before fitting (`elicitationModes`), and
 * here too, should it come this far. Objects are copied only where something changes.
 */
export function fitElicitationParams(params: Obj, revision: string): Obj {
  const mode = params.mode;
  if (mode === 'url') {
    throw new McpkitError(
      'CAPABILITY_MISSING',
      `Protocol revision ${revision} has no URL-mode elicitation (it came with 2025-11-25)`,
    );
  }
  const schema = params.requestedSchema;
  const fitted = isJsonObject(schema) ? fitRequestedSchema(schema, revision) : schema;
  if (mode === undefined && fitted === schema) return params;
  const out = without(params, MODE);
  if (fitted !== undefined) out.requestedSchema = fitted;
  return out;
}

function fitRequestedSchema(schema: Obj, revision: string): Obj {
  const properties = schema.properties;
  let fittedProperties = properties;
  if (isJsonObject(properties)) {
    let copy: Obj | undefined;
    for (const name of Object.keys(properties)) {
      const property = properties[name];
      const fitted = isJsonObject(property) ? fitField(name, property, revision) : property;
      if (fitted === property) continue;
      copy ??= { ...properties };
      copy[name] = fitted;
    }
    if (copy) fittedProperties = copy;
  }
  if (fittedProperties === properties && !('$schema' in schema)) return schema;
  const out = without(schema, DIALECT);
  out.properties = fittedProperties;
  return out;
}

/** One form field: converted to its older spelling, stripped of `default` where the revision has none. */
function fitField(name: string, field: Obj, revision: string): Obj {
  switch (field.type) {
    case 'boolean':
      return field;
    case 'array':
      throw new McpkitError(
        'INVALID_SCHEMA',
        `Invalid elicitation requestedSchema for protocol revision ${revision}: "${name}" is a multi-select ` +
          '(type "array"), which the revision does not have (it came with 2025-11-25)',
      );
    case 'string':
      if (field.oneOf !== undefined) return titledAsEnum(name, field, revision);
      return withoutDefault(field);
    case 'number':
    case 'integer':
      return withoutDefault(field);
    default:
      // Not a form field the revision knows; left for the client to refuse (the server checks `ctx.elicit` schemas).
      return field;
  }
}

/** A titled single-select (`oneOf: [{ const, title }]`) as `enum` plus `enumNames`. */
function titledAsEnum(name: string, field: Obj, revision: string): Obj {
  const options = field.oneOf;
  const values: string[] = [];
  const names: string[] = [];
  if (Array.isArray(options)) {
    for (const option of options) {
      if (!isJsonObject(option) || typeof option.const !== 'string' || typeof option.title !== 'string')
        break;
      values.push(option.const);
      names.push(option.title);
    }
  }
  if (!Array.isArray(options) || options.length === 0 || values.length !== options.length) {
    throw new McpkitError(
      'INVALID_SCHEMA',
      `Invalid elicitation requestedSchema for protocol revision ${revision}: "${name}" has a oneOf that is not ` +
        'a list of { const, title } strings, so it has no enum equivalent',
    );
  }
  const out = without(field, ONE_OF_DEFAULT);
  out.enum = values;
  out.enumNames = names;
  return out;
}

function withoutDefault(field: Obj): Obj {
  return 'default' in field ? without(field, DEFAULT) : field;
}

const MODE = ['mode'];
const DIALECT = ['$schema'];
const DEFAULT = ['default'];
const ONE_OF_DEFAULT = ['oneOf', 'default'];

/** A copy of `obj` without `keys`. */
function without(obj: Obj, keys: readonly string[]): Obj {
  const out: Obj = {};
  for (const key of Object.keys(obj)) if (!keys.includes(key)) out[key] = obj[key];
  return out;
}
