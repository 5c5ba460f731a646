import { McpkitError } from '../jsonrpc/errors.js';
import { isJsonObject } from '../jsonrpc/types.js';
import type { ElicitationContent, ElicitationSchema } from './elicitation-types.js';
import type { ValidationResult } from './issues.js';
import { formatPath } from './issues.js';
import { compileJsonSchema, detectJsonSchemaDialect } from './json-schema.js';
import type { JsonSchemaObject } from './tool-schema.js';

type Obj = { [key: string]: unknown };

const ROOT_KEYS = ['$schema', 'type', 'properties', 'required'];
const STRING_KEYS = ['type', 'title', 'description', 'minLength', 'maxLength', 'format', 'default'];
const NUMBER_KEYS = ['type', 'title', 'description', 'minimum', 'maximum', 'default'];
const BOOLEAN_KEYS = ['type', 'title', 'description', 'default'];
const ENUM_KEYS = ['type', 'title', 'description', 'enum', 'enumNames', 'default'];
const ONE_OF_KEYS = ['type', 'title', 'description', 'oneOf', 'default'];
const ARRAY_KEYS = ['type', 'title', 'description', 'minItems', 'maxItems', 'items', 'default'];
const FORMATS = ['email', 'uri', 'date', 'date-time'];

/**
 * Throws McpkitError('INVALID_SCHEMA') unless a form-mode `requestedSchema` has the restricted MCP shape:
 * a flat object whose properties are strings, numbers, booleans or single/multi-select enums.
 * @example checkElicitationSchema({ type: 'object', properties: { name: { type: 'string' } } });
 */
export function checkElicitationSchema(schema: unknown): asserts schema is ElicitationSchema {
  const problems: string[] = [];
  if (!isJsonObject(schema)) {
    problems.push('must be an object');
  } else {
    if (schema.$schema !== undefined) detectJsonSchemaDialect(schema);
    allowOnly(schema, ROOT_KEYS, '(root)', problems);
    if (schema.type !== 'object') problems.push('(root): type must be "object"');
    const properties = schema.properties;
    if (!isJsonObject(properties)) {
      problems.push('(root): properties must be an object');
    } else {
      for (const [name, property] of Object.entries(properties))
        checkProperty(formatPath([name]), property, problems);
    }
    const required = schema.required;
    if (required !== undefined) {
      if (!Array.isArray(required) || !required.every((key) => typeof key === 'string')) {
        problems.push('(root): required must be an array of property names');
      } else if (isJsonObject(properties)) {
        for (const key of required) {
          if (!Object.hasOwn(properties, key))
            problems.push(`(root): required property '${key}' is not defined`);
        }
      }
    }
  }
  if (problems.length > 0) {
    throw new McpkitError('INVALID_SCHEMA', `Invalid elicitation requestedSchema: ${problems.join('; ')}`);
  }
}

/**
 * Returns a copy of `content` with every missing property that has a `default` in the schema filled in.
 * @example applyElicitationDefaults({ type: 'object', properties: { n: { type: 'number', default: 1 } } }, {}) // { n: 1 }
 */
export function applyElicitationDefaults(
  schema: JsonSchemaObject,
  content: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...content };
  const properties = schema.properties;
  if (!isJsonObject(properties)) return out;
  for (const [name, property] of Object.entries(properties)) {
    if (!isJsonObject(property) || property.default === undefined) continue;
    if (Object.hasOwn(out, name) && out[name] !== undefined) continue;
    const value = Array.isArray(property.default) ? [...property.default] : property.default;
    // defineProperty, not assignment: a property named "__proto__" must not replace the prototype.
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Validates elicitation content against its `requestedSchema` (compiled once per schema object).
 * Throws McpkitError if the schema's dialect is unsupported or the schema itself is invalid.
 */
export function validateElicitationContent(
  schema: JsonSchemaObject,
  content: unknown,
): ValidationResult<ElicitationContent> | Promise<ValidationResult<ElicitationContent>> {
  return compileJsonSchema<ElicitationContent>(schema).validate(content);
}

function checkProperty(at: string, property: unknown, problems: string[]): void {
  if (!isJsonObject(property)) {
    problems.push(`${at}: must be an object`);
    return;
  }
  checkAnnotations(at, property, problems);
  switch (property.type) {
    case 'string':
      if (property.enum !== undefined) checkStringEnum(at, property, problems);
      else if (property.oneOf !== undefined) checkTitledSingle(at, property, problems);
      else checkString(at, property, problems);
      break;
    case 'number':
    case 'integer':
      allowOnly(property, NUMBER_KEYS, at, problems);
      checkRange(at, property, 'minimum', 'maximum', isFiniteNumber, problems);
      if (property.default !== undefined && !isNumberIn(property, property.default)) {
        problems.push(
          `${at}: default must be ${property.type === 'integer' ? 'an integer' : 'a number'} within range`,
        );
      }
      break;
    case 'boolean':
      allowOnly(property, BOOLEAN_KEYS, at, problems);
      if (property.default !== undefined && typeof property.default !== 'boolean') {
        problems.push(`${at}: default must be a boolean`);
      }
      break;
    case 'array':
      checkMultiSelect(at, property, problems);
      break;
    default:
      problems.push(
        `${at}: type must be "string", "number", "integer", "boolean" or "array" (a flat form field)`,
      );
  }
}

function checkString(at: string, property: Obj, problems: string[]): void {
  allowOnly(property, STRING_KEYS, at, problems);
  checkRange(at, property, 'minLength', 'maxLength', isCount, problems);
  if (property.format !== undefined && !FORMATS.includes(property.format as string)) {
    problems.push(`${at}: format must be one of ${FORMATS.join(', ')}`);
  }
  const value = property.default;
  if (value === undefined) return;
  const tooShort =
    typeof value === 'string' && isCount(property.minLength) && value.length < property.minLength;
  const tooLong =
    typeof value === 'string' && isCount(property.maxLength) && value.length > property.maxLength;
  if (typeof value !== 'string' || tooShort || tooLong)
    problems.push(`${at}: default must be a string of allowed length`);
}

function checkStringEnum(at: string, property: Obj, problems: string[]): void {
  allowOnly(property, ENUM_KEYS, at, problems);
  const values = stringList(property.enum);
  if (values === undefined) {
    problems.push(`${at}: enum must be a non-empty array of strings`);
    return;
  }
  const names = property.enumNames;
  if (names !== undefined && stringList(names)?.length !== values.length) {
    problems.push(`${at}: enumNames must be an array of strings as long as enum`);
  }
  checkChoice(at, property.default, values, problems);
}

function checkTitledSingle(at: string, property: Obj, problems: string[]): void {
  allowOnly(property, ONE_OF_KEYS, at, problems);
  const values = optionValues(property.oneOf);
  if (values === undefined)
    problems.push(`${at}: oneOf must be a non-empty array of { const, title } strings`);
  else checkChoice(at, property.default, values, problems);
}

function checkMultiSelect(at: string, property: Obj, problems: string[]): void {
  allowOnly(property, ARRAY_KEYS, at, problems);
  checkRange(at, property, 'minItems', 'maxItems', isCount, problems);
  const items = property.items;
  let values: string[] | undefined;
  if (isJsonObject(items) && items.anyOf !== undefined) {
    allowOnly(items, ['anyOf'], `${at}/items`, problems);
    values = optionValues(items.anyOf);
  } else if (isJsonObject(items) && items.type === 'string') {
    allowOnly(items, ['type', 'enum'], `${at}/items`, problems);
    values = stringList(items.enum);
  }
  if (values === undefined) {
    problems.push(
      `${at}: items must be { type: "string", enum: [...] } or { anyOf: [{ const, title }, ...] }`,
    );
    return;
  }
  const chosen = property.default;
  if (chosen === undefined) return;
  if (!Array.isArray(chosen)) {
    problems.push(`${at}: default must be an array of allowed values`);
    return;
  }
  for (const value of chosen) checkChoice(at, value, values, problems);
  const tooFew = isCount(property.minItems) && chosen.length < property.minItems;
  const tooMany = isCount(property.maxItems) && chosen.length > property.maxItems;
  if (tooFew || tooMany) problems.push(`${at}: default has too few or too many items`);
}

function checkChoice(at: string, value: unknown, allowed: string[], problems: string[]): void {
  if (value !== undefined && !allowed.includes(value as string)) {
    problems.push(`${at}: default ${JSON.stringify(value)} is not one of the allowed values`);
  }
}

function checkAnnotations(at: string, property: Obj, problems: string[]): void {
  for (const key of ['title', 'description']) {
    if (property[key] !== undefined && typeof property[key] !== 'string')
      problems.push(`${at}: ${key} must be a string`);
  }
}

function checkRange(
  at: string,
  property: Obj,
  low: string,
  high: string,
  valid: (value: unknown) => value is number,
  problems: string[],
): void {
  for (const key of [low, high]) {
    if (property[key] !== undefined && !valid(property[key]))
      problems.push(`${at}: ${key} is not a valid bound`);
  }
  const min = property[low];
  const max = property[high];
  if (valid(min) && valid(max) && min > max) problems.push(`${at}: ${low} is greater than ${high}`);
}

function allowOnly(value: Obj, keys: string[], at: string, problems: string[]): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key))
      problems.push(`${at}: "${key}" is not allowed here (allowed: ${keys.join(', ')})`);
  }
}

function optionValues(options: unknown): string[] | undefined {
  if (!Array.isArray(options) || options.length === 0) return undefined;
  const values: string[] = [];
  for (const option of options) {
    if (!isJsonObject(option) || typeof option.const !== 'string' || typeof option.title !== 'string')
      return undefined;
    if (Object.keys(option).length !== 2) return undefined;
    values.push(option.const);
  }
  return values;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')
    ? value
    : undefined;
}

function isNumberIn(property: Obj, value: unknown): boolean {
  if (!isFiniteNumber(value) || (property.type === 'integer' && !Number.isInteger(value))) return false;
  if (isFiniteNumber(property.minimum) && value < property.minimum) return false;
  return !(isFiniteNumber(property.maximum) && value > property.maximum);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
