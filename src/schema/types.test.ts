// Compile-time tests: this file fails `tsc` if the schema-typed APIs infer the wrong types.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type } from 'arktype';
import * as v from 'valibot';
import * as z from 'zod';
import type { ValidationResult } from './issues.js';
import type { Validator } from './json-schema.js';
import { compileJsonSchema } from './json-schema.js';
import type {
  InferInput,
  InferOutput,
  StandardJsonSchemaV1,
  StandardSchemaV1,
  StandardTypedV1,
} from './standard-schema.js';
import type { InferArgs, SchemaArg, ToolSchema, toToolSchema } from './tool-schema.js';

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

const zodInput = z.object({ a: z.number() });
const zodDefaults = z.object({ a: z.number(), b: z.string().default('x') });
const valibotInput = v.object({ a: v.number(), b: v.optional(v.string()) });
const arkInput = type({ a: 'number', 'b?': 'string' });
const rawSchema = { type: 'object', properties: { a: { type: 'number' } } };

// The handler argument of a zod input schema is exactly its output type.
export const zodArgs: Expect<Equal<InferArgs<typeof zodInput>, { a: number }>> = true;
// Defaults: optional going in, present coming out.
export const zodIn: Expect<
  Equal<InferArgs<typeof zodDefaults, 'input'>, { a: number; b?: string | undefined }>
> = true;
export const zodOut: Expect<Equal<InferArgs<typeof zodDefaults, 'output'>, { a: number; b: string }>> = true;
export const valibotArgs: Expect<
  Equal<InferArgs<typeof valibotInput>, { a: number; b?: string | undefined }>
> = true;
export const arkArgs: Expect<Equal<InferArgs<typeof arkInput>, { a: number; b?: string }>> = true;
// A raw JSON Schema gives a plain object.
export const rawArgs: Expect<Equal<InferArgs<typeof rawSchema>, { [key: string]: unknown }>> = true;
export const inferIn: Expect<Equal<InferInput<typeof zodDefaults>, { a: number; b?: string | undefined }>> =
  true;
export const inferOut: Expect<Equal<InferOutput<typeof zodDefaults>, { a: number; b: string }>> = true;

// Every supported kind of schema is a SchemaArg; the libraries satisfy the local Standard interfaces.
export const args: SchemaArg[] = [zodInput, valibotInput, arkInput, rawSchema];
export const zodStd: StandardSchemaV1<{ a: number }> & StandardJsonSchemaV1<{ a: number }> = zodInput;
export const arkStd: StandardSchemaV1<{ a: number; b?: string }> & StandardJsonSchemaV1 = arkInput;
export const valibotStd: StandardSchemaV1<{ a: number; b?: string | undefined }> = valibotInput;
export const typed: StandardTypedV1 = valibotInput;

// toToolSchema carries the inferred type through to the validation result.
export const zodTool: Expect<
  Equal<ReturnType<typeof toToolSchema<typeof zodInput>>, ToolSchema<{ a: number }>>
> = true;
export const rawTool: Expect<
  Equal<ReturnType<typeof toToolSchema<typeof rawSchema>>, ToolSchema<{ [key: string]: unknown }>>
> = true;
export const validatorType: Expect<
  Equal<ReturnType<Validator<{ n: 1 }>['validateSync']>, ValidationResult<{ n: 1 }>>
> = true;

function handler<S extends SchemaArg>(_schema: S, run: (args: InferArgs<S>) => void): void {
  void run;
}
handler(zodInput, (args) => {
  const n: number = args.a;
  // @ts-expect-error: `b` is not declared by the schema
  void args.b;
  void n;
});
handler(rawSchema, (args) => {
  const anything: unknown = args.whatever;
  void anything;
});

test('schema types compile (this file is checked by tsc)', async () => {
  const result = await compileJsonSchema<{ a: number }>({ type: 'object' }).validate({ a: 1 });
  if (result.ok) {
    const a: number = result.value.a;
    assert.equal(a, 1);
  } else {
    const issues: string[] = result.issues;
    assert.fail(issues.join('; '));
  }
});
