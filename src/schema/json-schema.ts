import type { Ajv, Options, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { errorMessage, McpkitError } from '../jsonrpc/errors.js';
import type { ValidationResult } from './issues.js';
import { formatAjvErrors } from './issues.js';

/** A JSON Schema dialect this module validates: 2020-12 (the MCP default) or draft-07. */
export type JsonSchemaDialect = '2020-12' | 'draft-07';

/** The canonical `$schema` URI of each supported dialect. */
export const JSON_SCHEMA_DIALECT_URIS = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
} as const satisfies Record<JsonSchemaDialect, string>;

/** A compiled JSON Schema: validates values against it (the schema is compiled on the first call). */
export interface Validator<T = unknown> {
  /** The dialect the schema declared (or 2020-12 when it declared none). */
  readonly dialect: JsonSchemaDialect;
  /**
   * Validates a value; throws McpkitError('INVALID_SCHEMA') if the schema itself cannot be compiled.
   * Synchronous once ajv is loaded ({@link preloadJsonSchema}); the very first call may return a promise.
   */
  validate(value: unknown): ValidationResult<T> | Promise<ValidationResult<T>>;
  /** Validates synchronously; throws McpkitError('INVALID_SCHEMA') when ajv is not loaded yet ({@link preloadJsonSchema}). */
  validateSync(value: unknown): ValidationResult<T>;
}

interface AjvModules {
  Ajv: typeof Ajv;
  Ajv2020: typeof Ajv2020;
  addFormats: (ajv: AjvInstance) => unknown;
}

// ajv is loaded on first use, not at import: importing mcpkit stays fast (cold start), and servers that
// only use Standard Schema validators never load it.
let modules: AjvModules | undefined;
let loading: Promise<AjvModules> | undefined;

/** Loads the JSON Schema validator ahead of the first validation (idempotent; cheap once loaded). */
export function preloadJsonSchema(): Promise<void> {
  if (modules) return Promise.resolve();
  loading ??= Promise.all([import('ajv'), import('ajv/dist/2020.js'), import('ajv-formats')]).then(
    ([a, b, f]) => {
      // CommonJS interop: the plugin is the module's default export, whose own `.default` points back to itself.
      const plugin = f.default.default;
      modules = { Ajv: a.Ajv, Ajv2020: b.Ajv2020, addFormats: plugin };
      return modules;
    },
  );
  return loading.then(() => undefined);
}

type AjvInstance = Ajv | Ajv2020;

// strict:false accepts MCP extensions such as `enumNames`; addUsedSchema:false keeps `$id`s out of the shared
// registry; logger:false because library code never writes to the console (unknown formats are ignored).
const AJV_OPTIONS: Options = { strict: false, allErrors: true, addUsedSchema: false, logger: false };

// Bounds the memory of a long-lived client that compiles every schema its peers send (see getAjv).
const COMPILES_PER_INSTANCE = 500;
const slots: Partial<Record<JsonSchemaDialect, { ajv: AjvInstance; compiles: number }>> = {};
const validators = new WeakMap<object, Validator<unknown>>();
/** Validators prepared so far: a process that prepared none has nothing for ajv to do. */
let prepared = 0;

/**
 * Readies JSON Schema validation ahead of the first validation, when a validator in this process will need it (none
 * prepared: nothing is loaded). Two steps a turn of the event loop apart: ajv's modules, then the 2020-12 instance
 * with its meta-schema compiled (it checks every schema compiled, and takes as long as the modules to make), so each
 * stall is shorter and the first validation compiles only its own schema.
 */
export async function warmJsonSchema(): Promise<void> {
  if (prepared === 0) return;
  await loadedThenTurn();
  getAjv('2020-12').getSchema(JSON_SCHEMA_DIALECT_URIS['2020-12']);
}

/** Loads ajv, then lets a turn of the event loop pass: what arrived while the modules loaded is read before a compile. */
function loadedThenTurn(): Promise<void> {
  return preloadJsonSchema().then(() => new Promise((resolve) => setTimeout(resolve, 0)));
}

/**
 * Tells which dialect a schema declares via `$schema`; throws McpkitError('UNSUPPORTED_SCHEMA_DIALECT') for any other.
 * @example detectJsonSchemaDialect({ type: 'string' }) // '2020-12'
 */
export function detectJsonSchemaDialect(schema: object): JsonSchemaDialect {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (declared === undefined) return '2020-12';
  if (typeof declared === 'string') {
    const bare = declared.replace(/^https?:\/\//, '').replace(/#$/, '');
    if (bare === 'json-schema.org/draft/2020-12/schema') return '2020-12';
    if (bare === 'json-schema.org/draft-07/schema') return 'draft-07';
  }
  throw new McpkitError(
    'UNSUPPORTED_SCHEMA_DIALECT',
    `Unsupported JSON Schema dialect ${JSON.stringify(declared)}; supported: ` +
      `${JSON_SCHEMA_DIALECT_URIS['2020-12']} (the default when $schema is absent), ${JSON_SCHEMA_DIALECT_URIS['draft-07']}`,
  );
}

/**
 * Prepares a validator for a JSON Schema: the dialect is checked now, compilation happens once, on first use.
 * The same schema object always yields the same validator, so treat schema objects as immutable.
 * @example compileJsonSchema({ type: 'object', required: ['name'] }).validate({}) // { ok: false, issues: [...] }
 */
export function compileJsonSchema<T = unknown>(schema: object): Validator<T> {
  const cached = validators.get(schema);
  if (cached !== undefined) return cached as Validator<T>;
  if (Array.isArray(schema) || schema === null || typeof schema !== 'object') {
    throw new McpkitError('INVALID_SCHEMA', 'A JSON Schema must be an object');
  }
  const dialect = detectJsonSchemaDialect(schema);
  let compiled: ValidateFunction | McpkitError | undefined;
  const validator: Validator<T> = {
    dialect,
    validate(value: unknown): ValidationResult<T> | Promise<ValidationResult<T>> {
      if (!modules) return loadedThenTurn().then(() => validator.validateSync(value));
      return validator.validateSync(value);
    },
    validateSync(value: unknown): ValidationResult<T> {
      if (!modules)
        throw new McpkitError(
          'INVALID_SCHEMA',
          'The JSON Schema validator is not loaded yet: await preloadJsonSchema() first',
        );
      compiled ??= compile(dialect, schema);
      if (compiled instanceof McpkitError) throw compiled;
      if (compiled(value)) return { ok: true, value: value as T };
      return { ok: false, issues: formatAjvErrors(compiled.errors) };
    },
  };
  validators.set(schema, validator as Validator<unknown>);
  prepared++;
  return validator;
}

/** Compiles with the dialect's current Ajv; an invalid schema becomes an McpkitError carrying ajv's reason. */
function compile(dialect: JsonSchemaDialect, schema: object): ValidateFunction | McpkitError {
  // The instance already knows its dialect; dropping $schema also lets http/https and `#` variants through.
  const target = '$schema' in schema ? withoutDialect(schema) : schema;
  try {
    return getAjv(dialect).compile(target);
  } catch (error) {
    const reason = errorMessage(error);
    return new McpkitError('INVALID_SCHEMA', `Invalid JSON Schema (${dialect}): ${reason}`, { cause: error });
  }
}

function withoutDialect(schema: object): object {
  const copy: Record<string, unknown> = { ...schema };
  delete copy.$schema;
  return copy;
}

/**
 * One Ajv per dialect, created on first use so importing this module stays cheap. An Ajv instance keeps everything
 * it ever compiled (its code-generation scope only grows), so after COMPILES_PER_INSTANCE schemas a fresh one takes
 * over: its validators keep working, and it is freed once they are gone. Servers with fewer schemas never see this.
 */
function getAjv(dialect: JsonSchemaDialect): AjvInstance {
  let slot = slots[dialect];
  if (slot === undefined || slot.compiles >= COMPILES_PER_INSTANCE) {
    const m = modules as AjvModules;
    const ajv = dialect === '2020-12' ? new m.Ajv2020(AJV_OPTIONS) : new m.Ajv(AJV_OPTIONS);
    m.addFormats(ajv);
    slot = { ajv, compiles: 0 };
    slots[dialect] = slot;
  }
  slot.compiles++;
  return slot.ajv;
}
