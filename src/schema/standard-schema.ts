// Local, structurally compatible definitions of the Standard Schema V1 and Standard JSON Schema V1 interfaces
// (https://standardschema.dev), so no schema library is needed to use mcpkit.

/** The inferred types a Standard schema carries (type-level only; never present at runtime). */
export interface StandardTypes<Input = unknown, Output = Input> {
  /** The type the schema accepts. */
  readonly input: Input;
  /** The type validation produces. */
  readonly output: Output;
}

/** The `~standard` properties every Standard interface shares. */
export interface StandardTypedV1Props<Input = unknown, Output = Input> {
  /** The version of the standard (always 1). */
  readonly version: 1;
  /** The library that made the schema, e.g. `zod`, `valibot`, `arktype`. */
  readonly vendor: string;
  /** Inferred input and output types. */
  readonly types?: StandardTypes<Input, Output> | undefined;
}

/** Anything that carries Standard types: the common base of Standard Schema and Standard JSON Schema. */
export interface StandardTypedV1<Input = unknown, Output = Input> {
  /** The Standard properties. */
  readonly '~standard': StandardTypedV1Props<Input, Output>;
}

/** A path segment object in a Standard Schema issue. */
export interface StandardPathSegment {
  /** The key this segment stands for. */
  readonly key: PropertyKey;
}

/** One problem found by a Standard Schema validation. */
export interface StandardIssue {
  /** What is wrong. */
  readonly message: string;
  /** Where it is wrong, if anywhere in particular. */
  readonly path?: ReadonlyArray<PropertyKey | StandardPathSegment> | undefined;
}

/** The result of a Standard Schema validation: a value, or issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/** Options a Standard Schema `validate` accepts. */
export interface StandardValidateOptions {
  /** Vendor-specific options. */
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** The `~standard` properties of a Standard Schema. */
export interface StandardSchemaV1Props<Input = unknown, Output = Input>
  extends StandardTypedV1Props<Input, Output> {
  /** Validates a value; may be synchronous or asynchronous. */
  readonly validate: (
    value: unknown,
    options?: StandardValidateOptions | undefined,
  ) => StandardResult<Output> | Promise<StandardResult<Output>>;
}

/** A Standard Schema V1: a validator from any compliant library (zod, valibot, arktype, ...). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly '~standard': StandardSchemaV1Props<Input, Output>;
}

/** The JSON Schema versions a Standard JSON Schema converter may be asked for. */
export type StandardJsonSchemaTarget = 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | (string & {});

/** Options of a Standard JSON Schema conversion. */
export interface StandardJsonSchemaOptions {
  /** The JSON Schema version to produce; converters throw for targets they do not support. */
  readonly target: StandardJsonSchemaTarget;
  /** Vendor-specific options. */
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** Converts a schema's input or output type to JSON Schema. */
export interface StandardJsonSchemaConverter {
  /** JSON Schema of the accepted (input) type. */
  readonly input: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
  /** JSON Schema of the produced (output) type. */
  readonly output: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
}

/** The `~standard` properties of a Standard JSON Schema. */
export interface StandardJsonSchemaV1Props<Input = unknown, Output = Input>
  extends StandardTypedV1Props<Input, Output> {
  /** The JSON Schema converter. */
  readonly jsonSchema: StandardJsonSchemaConverter;
}

/** A Standard JSON Schema V1: a schema that can describe itself as JSON Schema. */
export interface StandardJsonSchemaV1<Input = unknown, Output = Input> {
  /** The Standard JSON Schema properties. */
  readonly '~standard': StandardJsonSchemaV1Props<Input, Output>;
}

/** The type a Standard schema accepts. */
export type InferInput<S extends StandardTypedV1> = NonNullable<S['~standard']['types']>['input'];

/** The type a Standard schema produces. */
export type InferOutput<S extends StandardTypedV1> = NonNullable<S['~standard']['types']>['output'];

/**
 * Tells a Standard schema (of any library) from a raw JSON Schema object by its `~standard` key.
 * Functions count too: arktype schemas are callable.
 */
export function isStandardSchema(value: unknown): value is StandardTypedV1 {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && '~standard' in value;
}
