import { errorMessage, McpkitError } from '../jsonrpc/errors.js';
import type { ValidationResult } from './issues.js';
import { formatStandardIssues } from './issues.js';
import { compileJsonSchema, detectJsonSchemaDialect } from './json-schema.js';
import type {
  InferInput,
  InferOutput,
  StandardJsonSchemaV1,
  StandardResult,
  StandardSchemaV1,
  StandardTypedV1,
  StandardTypedV1Props,
} from './standard-schema.js';
import { isStandardSchema } from './standard-schema.js';

/** A raw JSON Schema object (any dialect this package supports; 2020-12 when `$schema` is absent). */
export type JsonSchemaObject = { [key: string]: unknown };

/** What a tool accepts as input or output schema: a Standard Schema (zod, valibot, arktype, ...) or raw JSON Schema. */
export type SchemaArg = StandardSchemaV1 | StandardJsonSchemaV1 | JsonSchemaObject;

/** Which side of a schema: what it accepts (`input`) or what validation produces (`output`). */
export type SchemaSide = 'input' | 'output';

/**
 * The value type a schema argument stands for: the Standard schema's inferred type, or a plain object for raw JSON Schema.
 * A tool handler receives `InferArgs<I>` (the output of input validation) and returns `InferArgs<O, 'input'>`.
 */
export type InferArgs<S, Side extends SchemaSide = 'output'> = S extends StandardTypedV1
  ? Side extends 'input'
    ? InferInput<S>
    : InferOutput<S>
  : { [key: string]: unknown };

/** A schema ready for a tool: its JSON Schema (made once) and a validator (sync whenever the schema allows). */
export interface ToolSchema<T = unknown> {
  /** The JSON Schema to advertise, e.g. as a tool's `inputSchema` or `outputSchema`. */
  readonly jsonSchema: JsonSchemaObject;
  /** Validates a value; returns a promise only when the underlying Standard Schema validates asynchronously. */
  validate(value: unknown): ValidationResult<T> | Promise<ValidationResult<T>>;
}

/**
 * Turns a Standard Schema or a raw JSON Schema into a ToolSchema; JSON Schema (2020-12) is generated here, once.
 * `io` picks the side to describe: `input` for input schemas (what clients send), `output` for output schemas.
 * @example const input = toToolSchema(z.object({ city: z.string() }), 'input'); // input.jsonSchema.type === 'object'
 */
export function toToolSchema<S extends SchemaArg>(schema: S, io: SchemaSide): ToolSchema<InferArgs<S>> {
  if (isStandardSchema(schema)) return fromStandard<InferArgs<S>>(schema, io);
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new McpkitError('INVALID_DEFINITION', 'A schema must be a Standard Schema or a JSON Schema object');
  }
  const validator = compileJsonSchema<InferArgs<S>>(schema);
  return { jsonSchema: schema, validate: (value) => validator.validate(value) };
}

/**
 * Tells whether a JSON Schema's root describes an object (`type: "object"`), as MCP requires of tool input
 * schemas (and, before 2026-07-28, of output schemas).
 */
export function hasObjectRoot(jsonSchema: JsonSchemaObject): boolean {
  return jsonSchema.type === 'object';
}

type StandardProps = StandardTypedV1Props & {
  readonly validate?: StandardSchemaV1['~standard']['validate'];
  readonly jsonSchema?: Partial<StandardJsonSchemaV1['~standard']['jsonSchema']>;
};

function fromStandard<T>(schema: StandardTypedV1, io: SchemaSide): ToolSchema<T> {
  // Read `~standard` once: some libraries (arktype) build a fresh object on every access.
  const std = schema['~standard'] as StandardProps;
  const vendor = typeof std.vendor === 'string' ? std.vendor : 'unknown';
  if (std.version !== 1) {
    throw new McpkitError(
      'INVALID_DEFINITION',
      `Unsupported Standard Schema version ${String(std.version)} (${vendor})`,
    );
  }
  const jsonSchema = generateJsonSchema(std, vendor, io);
  const validate = std.validate;
  if (typeof validate !== 'function') {
    // A Standard JSON Schema without a validator: validate against the JSON Schema it produced.
    const validator = compileJsonSchema<T>(jsonSchema);
    return { jsonSchema, validate: (value) => validator.validate(value) };
  }
  return {
    jsonSchema,
    validate(value) {
      const result = validate(value);
      return isPromiseLike(result)
        ? Promise.resolve(result).then(toValidationResult<T>)
        : toValidationResult<T>(result);
    },
  };
}

function generateJsonSchema(std: StandardProps, vendor: string, io: SchemaSide): JsonSchemaObject {
  const convert = std.jsonSchema?.[io];
  if (typeof convert !== 'function') {
    throw new McpkitError(
      'INVALID_DEFINITION',
      `A ${vendor} schema cannot be used as a tool's ${io}Schema: it implements Standard Schema but not ` +
        'Standard JSON Schema (~standard.jsonSchema), so there is no JSON Schema to advertise. Pass a schema that ' +
        'converts itself (zod 4, arktype 2; for valibot wrap it with toStandardJsonSchema() from ' +
        '@valibot/to-json-schema), or pass a JSON Schema object.',
    );
  }
  let jsonSchema: unknown;
  try {
    jsonSchema = convert({ target: 'draft-2020-12' });
  } catch (error) {
    const reason = errorMessage(error);
    throw new McpkitError(
      'INVALID_DEFINITION',
      `Cannot convert the ${vendor} ${io} schema to JSON Schema 2020-12: ${reason}`,
      { cause: error },
    );
  }
  if (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema)) {
    throw new McpkitError('INVALID_DEFINITION', `The ${vendor} schema produced no JSON Schema object`);
  }
  detectJsonSchemaDialect(jsonSchema);
  return jsonSchema as JsonSchemaObject;
}

function toValidationResult<T>(result: StandardResult<unknown>): ValidationResult<T> {
  if (result.issues !== undefined) return { ok: false, issues: formatStandardIssues(result.issues) };
  return { ok: true, value: result.value as T };
}

function isPromiseLike(value: unknown): value is PromiseLike<StandardResult<unknown>> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
