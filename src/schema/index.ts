// JSON Schema validation (compiled once) and Standard Schema adapters for tools and elicitation.

export {
  applyElicitationDefaults,
  checkElicitationSchema,
  validateElicitationContent,
} from './elicitation.js';
export type {
  ElicitationBooleanSchema,
  ElicitationContent,
  ElicitationNumberSchema,
  ElicitationOption,
  ElicitationPropertySchema,
  ElicitationSchema,
  ElicitationStringSchema,
  LegacyTitledEnumSchema,
  TitledMultiSelectEnumSchema,
  TitledSingleSelectEnumSchema,
  UntitledMultiSelectEnumSchema,
  UntitledSingleSelectEnumSchema,
} from './elicitation-types.js';
export type { ValidationResult } from './issues.js';
export type { JsonSchemaDialect, Validator } from './json-schema.js';
export {
  compileJsonSchema,
  detectJsonSchemaDialect,
  JSON_SCHEMA_DIALECT_URIS,
  preloadJsonSchema,
} from './json-schema.js';
export type {
  InferInput,
  InferOutput,
  StandardIssue,
  StandardJsonSchemaConverter,
  StandardJsonSchemaOptions,
  StandardJsonSchemaTarget,
  StandardJsonSchemaV1,
  StandardJsonSchemaV1Props,
  StandardPathSegment,
  StandardResult,
  StandardSchemaV1,
  StandardSchemaV1Props,
  StandardTypedV1,
  StandardTypedV1Props,
  StandardTypes,
  StandardValidateOptions,
} from './standard-schema.js';
export { isStandardSchema } from './standard-schema.js';
export type { InferArgs, JsonSchemaObject, SchemaArg, SchemaSide, ToolSchema } from './tool-schema.js';
export { hasObjectRoot, toToolSchema } from './tool-schema.js';
