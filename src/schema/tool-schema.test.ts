import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import * as z from 'zod';
import { McpkitError } from '../jsonrpc/errors.js';
import type { ValidationResult } from './issues.js';
import { preloadJsonSchema } from './json-schema.js';
import type { StandardJsonSchemaV1, StandardSchemaV1 } from './standard-schema.js';
import { isStandardSchema } from './standard-schema.js';
import type { ToolSchema } from './tool-schema.js';
import { hasObjectRoot, toToolSchema } from './tool-schema.js';

// Once ajv is loaded a raw JSON Schema validates synchronously (the library loads it on first use).
before(() => preloadJsonSchema());

const DIALECT_2020 = 'https://json-schema.org/draft/2020-12/schema';

function syncResult<T>(schema: ToolSchema<T>, value: unknown): ValidationResult<T> {
  const result = schema.validate(value);
  assert.ok(!(result instanceof Promise), 'a synchronous schema must validate synchronously');
  return result as ValidationResult<T>;
}

function assertInvalidDefinition(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof McpkitError);
    assert.equal(error.code, 'INVALID_DEFINITION');
    assert.match(error.message, pattern);
    return true;
  });
}

test('zod 4 converts to a 2020-12 object schema and validates with zod', () => {
  const schema = z.object({
    city: z.string(),
    days: z.number().int().min(1).default(3),
    tags: z.array(z.string()),
  });
  const input = toToolSchema(schema, 'input');
  assert.equal(input.jsonSchema.$schema, DIALECT_2020);
  assert.ok(hasObjectRoot(input.jsonSchema));
  assert.deepEqual(input.jsonSchema.required, ['city', 'tags']);
  // Output side: defaults are filled in, so `days` is always present.
  assert.deepEqual(toToolSchema(schema, 'output').jsonSchema.required, ['city', 'days', 'tags']);

  assert.deepEqual(syncResult(input, { city: 'Paris', tags: [] }), {
    ok: true,
    value: { city: 'Paris', days: 3, tags: [] },
  });
  const failed = syncResult(input, { city: 1, tags: ['a', 2], days: 0 });
  assert.equal(failed.ok, false);
  if (!failed.ok) {
    assert.deepEqual(failed.issues, [
      '/city: Invalid input: expected string, received number',
      '/days: Too small: expected number to be >=1',
      '/tags/1: Invalid input: expected string, received number',
    ]);
  }
});

test('arktype converts to a 2020-12 object schema and validates with arktype', () => {
  const schema = type({ name: 'string', 'age?': 'number.integer >= 0', email: 'string.email' });
  const input = toToolSchema(schema, 'input');
  assert.equal(input.jsonSchema.$schema, DIALECT_2020);
  assert.ok(hasObjectRoot(input.jsonSchema));
  assert.deepEqual(input.jsonSchema.required, ['email', 'name']);
  assert.deepEqual(syncResult(input, { name: 'Ada', email: 'ada@example.com' }), {
    ok: true,
    value: { name: 'Ada', email: 'ada@example.com' },
  });
  const failed = syncResult(input, { name: 'Ada', email: 'ada@example.com', age: -1 });
  assert.equal(failed.ok, false);
  if (!failed.ok) assert.deepEqual(failed.issues, ['/age: age must be non-negative (was -1)']);
});

test('valibot 1 has no JSON Schema of its own: a clear error, and wrapped it works', () => {
  const schema = v.object({ query: v.pipe(v.string(), v.minLength(2)), limit: v.optional(v.number()) });
  assertInvalidDefinition(
    () => toToolSchema(schema, 'input'),
    /valibot schema .* not Standard JSON Schema .*toStandardJsonSchema\(\) from @valibot\/to-json-schema/,
  );
  // Wrapped with @valibot/to-json-schema's toStandardJsonSchema(), the real library.
  const wrapped = toStandardJsonSchema(schema);
  const input = toToolSchema(wrapped, 'input');
  assert.ok(hasObjectRoot(input.jsonSchema));
  assert.deepEqual(input.jsonSchema.required, ['query']);
  assert.deepEqual(syncResult(input, { query: 'mcp' }), { ok: true, value: { query: 'mcp' } });
  const failed = syncResult(input, { query: 'm', limit: 'ten' });
  assert.equal(failed.ok, false);
  if (!failed.ok) assert.equal(failed.issues.length, 2);
});

test('asynchronous Standard Schema validation returns a promise of the same result shape', async () => {
  const schema = z
    .object({ user: z.string() })
    .refine(async (value) => value.user !== 'taken', 'user is taken');
  const tool = toToolSchema(schema, 'input');
  const pending = tool.validate({ user: 'taken' });
  assert.ok(pending instanceof Promise);
  assert.deepEqual(await pending, { ok: false, issues: ['(root): user is taken'] });
  assert.deepEqual(await tool.validate({ user: 'free' }), { ok: true, value: { user: 'free' } });
});

test('a hand-written async Standard Schema with a JSON Schema converter works', async () => {
  const schema: StandardSchemaV1<{ n: number }> & StandardJsonSchemaV1<{ n: number }> = {
    '~standard': {
      version: 1,
      vendor: 'custom',
      validate: async (value) =>
        typeof (value as { n?: unknown }).n === 'number'
          ? { value: value as { n: number } }
          : { issues: [{ message: 'n must be a number', path: [{ key: 'n' }] }] },
      jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
    },
  };
  const tool = toToolSchema(schema as StandardSchemaV1<{ n: number }>, 'input');
  assert.deepEqual(await tool.validate({ n: 'x' }), { ok: false, issues: ['/n: n must be a number'] });
});

test('a Standard JSON Schema without a validator is validated against its JSON Schema', () => {
  const schema: StandardJsonSchemaV1 = {
    '~standard': {
      version: 1,
      vendor: 'json-only',
      jsonSchema: {
        input: () => ({ type: 'object', required: ['id'] }),
        output: () => ({ type: 'object' }),
      },
    },
  };
  const tool = toToolSchema(schema, 'input');
  assert.deepEqual(syncResult(tool, {}), { ok: false, issues: ["(root): must have required property 'id'"] });
});

test('conversion failures and foreign dialects are definition errors', () => {
  assertInvalidDefinition(
    () => toToolSchema(z.object({ when: z.date() }), 'input'),
    /Cannot convert the zod input schema to JSON Schema 2020-12: Date cannot be represented/,
  );
  assertInvalidDefinition(
    () => toToolSchema(z.object({ n: z.string().transform((s) => s.length) }), 'output'),
    /Transforms cannot be represented/,
  );
  const weird = {
    '~standard': {
      version: 1 as const,
      vendor: 'weird',
      validate: (value: unknown) => ({ value }),
      jsonSchema: {
        input: () => ({ $schema: 'http://json-schema.org/draft-04/schema#' }),
        output: () => ({}),
      },
    },
  };
  assert.throws(() => toToolSchema(weird, 'input'), { code: 'UNSUPPORTED_SCHEMA_DIALECT' });
  assertInvalidDefinition(() => toToolSchema([] as never, 'input'), /JSON Schema object/);
});

test('a raw JSON Schema is passed through as is and validated by ajv', () => {
  const jsonSchema = {
    type: 'object',
    $defs: { address: { type: 'object', properties: { city: { type: 'string' } } } },
    properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
    additionalProperties: false,
  };
  const tool = toToolSchema(jsonSchema, 'input');
  assert.equal(tool.jsonSchema, jsonSchema);
  assert.deepEqual(syncResult(tool, { name: 'x', address: { city: 2 } }), {
    ok: false,
    issues: ['/address/city: must be string'],
  });
  assert.throws(() => toToolSchema({ $schema: 'https://example.com/other' }, 'input'), {
    code: 'UNSUPPORTED_SCHEMA_DIALECT',
  });
});

test('isStandardSchema tells Standard schemas (objects or functions) from JSON Schema; hasObjectRoot checks the root', () => {
  assert.ok(isStandardSchema(z.string()));
  assert.ok(isStandardSchema(v.string()));
  assert.ok(isStandardSchema(type('string')));
  assert.equal(typeof type('string'), 'function');
  assert.ok(!isStandardSchema({ type: 'object' }));
  assert.ok(!isStandardSchema(null));
  assert.ok(hasObjectRoot({ type: 'object' }));
  assert.ok(!hasObjectRoot({ type: 'array' }));
  assert.ok(!hasObjectRoot(toToolSchema(z.string(), 'input').jsonSchema));
});
