import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { McpkitError } from '../jsonrpc/errors.js';
import {
  applyElicitationDefaults,
  checkElicitationSchema,
  validateElicitationContent,
} from './elicitation.js';
import type { ElicitationSchema } from './elicitation-types.js';
import { preloadJsonSchema } from './json-schema.js';

// validateSync needs ajv loaded; the library itself loads it on first use.
before(() => preloadJsonSchema());

// The conformance suite's SEP-1034 (defaults) and SEP-1330 (enums) schemas.
const DEFAULTS_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Name', default: 'John Doe' },
    age: { type: 'integer', description: 'Age', default: 30 },
    score: { type: 'number', description: 'Score', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
  },
  required: [],
} satisfies ElicitationSchema;

const ENUMS_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
      ],
      default: 'value2',
    },
    legacyEnum: { type: 'string', enum: ['opt1', 'opt2'], enumNames: ['Option One', 'Option Two'] },
    untitledMulti: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['a', 'b', 'c'] },
      default: ['a'],
    },
    titledMulti: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'x', title: 'First Choice' },
          { const: 'y', title: 'Second Choice' },
        ],
      },
    },
  },
  required: ['untitledSingle'],
} satisfies ElicitationSchema;

const CONTACT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    email: { type: 'string', title: 'Email', format: 'email', minLength: 3, maxLength: 100 },
    birthday: { type: 'string', format: 'date' },
    homepage: { type: 'string', format: 'uri' },
    rating: { type: 'number', minimum: 0, maximum: 5 },
  },
  required: ['email'],
} satisfies ElicitationSchema;

function refusal(schema: unknown): string {
  try {
    checkElicitationSchema(schema);
  } catch (error) {
    assert.ok(error instanceof McpkitError);
    assert.equal(error.code, 'INVALID_SCHEMA');
    return error.message;
  }
  assert.fail(`expected ${JSON.stringify(schema)} to be refused`);
}

const one = (property: unknown) => ({ type: 'object', properties: { field: property } });

test('every MCP primitive and enum shape is accepted', () => {
  for (const schema of [DEFAULTS_SCHEMA, ENUMS_SCHEMA, CONTACT_SCHEMA, { type: 'object', properties: {} }]) {
    assert.doesNotThrow(() => checkElicitationSchema(schema), JSON.stringify(schema));
  }
  checkElicitationSchema(
    one({ type: 'string', format: 'date-time', title: 'When', description: 'Pick a time' }),
  );
});

test('shapes outside the restricted subset are refused, with the reason', () => {
  const cases: [unknown, RegExp][] = [
    [null, /must be an object/],
    [{ type: 'array', properties: {} }, /\(root\): type must be "object"/],
    [{ type: 'object' }, /properties must be an object/],
    [
      { type: 'object', properties: {}, additionalProperties: false },
      /"additionalProperties" is not allowed/,
    ],
    [{ type: 'object', properties: {}, required: ['ghost'] }, /required property 'ghost' is not defined/],
    [{ type: 'object', properties: {}, required: 'ghost' }, /required must be an array/],
    [
      one({ type: 'object', properties: {} }),
      /\/field: type must be "string", "number", "integer", "boolean"/,
    ],
    [one({ type: 'array', items: { type: 'object' } }), /\/field: items must be/],
    [one({ type: 'array', items: { type: 'string' } }), /\/field: items must be/],
    [one({ type: 'null' }), /\/field: type must be/],
    [one({ anyOf: [{ type: 'string' }] }), /\/field: type must be/],
    [one({ type: 'string', pattern: '^a' }), /"pattern" is not allowed here/],
    [one({ type: 'string', format: 'hostname' }), /format must be one of email, uri, date, date-time/],
    [one({ type: 'string', minLength: 5, maxLength: 2 }), /minLength is greater than maxLength/],
    [one({ type: 'string', minLength: -1 }), /minLength is not a valid bound/],
    [one({ type: 'string', default: 5 }), /default must be a string/],
    [one({ type: 'string', maxLength: 2, default: 'long' }), /default must be a string of allowed length/],
    [one({ type: 'number', minimum: 'low' }), /minimum is not a valid bound/],
    [one({ type: 'integer', default: 1.5 }), /default must be an integer/],
    [one({ type: 'number', maximum: 3, default: 4 }), /default must be a number within range/],
    [one({ type: 'boolean', default: 'yes' }), /default must be a boolean/],
    [one({ type: 'string', enum: [] }), /enum must be a non-empty array of strings/],
    [one({ type: 'string', enum: [1, 2] }), /enum must be a non-empty array of strings/],
    [one({ type: 'string', enum: ['a', 'b'], default: 'c' }), /default "c" is not one of the allowed values/],
    [
      one({ type: 'string', enum: ['a', 'b'], enumNames: ['A'] }),
      /enumNames must be an array of strings as long/,
    ],
    [one({ type: 'string', enum: ['a'], oneOf: [{ const: 'a', title: 'A' }] }), /"oneOf" is not allowed/],
    [
      one({ type: 'string', oneOf: [{ const: 'a' }] }),
      /oneOf must be a non-empty array of \{ const, title \}/,
    ],
    [one({ type: 'string', oneOf: [{ const: 'a', title: 'A', extra: 1 }] }), /oneOf must be/],
    [
      one({ type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] }, default: 'a' }),
      /default must be an array/,
    ],
    [
      one({ type: 'array', items: { type: 'string', enum: ['a'] }, default: ['b'] }),
      /default "b" is not one/,
    ],
    [one({ type: 'array', items: { type: 'string', enum: ['a'] }, maxItems: 0, default: ['a'] }), /too many/],
    [
      one({ type: 'array', items: { type: 'string', enum: ['a'], minLength: 1 } }),
      /\/field\/items: "minLength"/,
    ],
    [one({ type: 'boolean', title: 7 }), /title must be a string/],
    [one('string'), /\/field: must be an object/],
  ];
  for (const [schema, pattern] of cases) assert.match(refusal(schema), pattern, JSON.stringify(schema));
});

test('several problems are reported together', () => {
  const message = refusal({
    type: 'object',
    properties: { a: { type: 'object' }, b: { type: 'string', format: 'x' } },
  });
  assert.match(message, /^Invalid elicitation requestedSchema: \/a: .*; \/b: format must be one of/);
});

test('an unsupported $schema dialect is refused as such', () => {
  assert.throws(
    () => checkElicitationSchema({ $schema: 'http://json-schema.org/draft-04/schema#', ...one({}) }),
    {
      code: 'UNSUPPORTED_SCHEMA_DIALECT',
    },
  );
});

test('defaults fill missing properties only, in a new object', () => {
  const content = { name: 'Jane', age: undefined };
  const filled = applyElicitationDefaults(DEFAULTS_SCHEMA, content);
  assert.deepEqual(filled, { name: 'Jane', age: 30, score: 95.5, status: 'active', verified: true });
  assert.deepEqual(content, { name: 'Jane', age: undefined }, 'the input is not modified');
  assert.deepEqual(applyElicitationDefaults(DEFAULTS_SCHEMA), {
    name: 'John Doe',
    age: 30,
    score: 95.5,
    status: 'active',
    verified: true,
  });
  // Falsy answers are answers.
  assert.deepEqual(
    applyElicitationDefaults(DEFAULTS_SCHEMA, { verified: false, age: 0, name: '' }).verified,
    false,
  );

  const multi = applyElicitationDefaults(ENUMS_SCHEMA, {});
  assert.deepEqual(multi, { titledSingle: 'value2', untitledMulti: ['a'] });
  assert.notEqual(
    multi.untitledMulti,
    ENUMS_SCHEMA.properties.untitledMulti.default,
    'array defaults are copied',
  );
});

test('a property named __proto__ gets its default as data, not as a prototype', () => {
  const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"array","default":["x"]}}}');
  const filled = applyElicitationDefaults(schema, {});
  assert.equal(Object.getPrototypeOf(filled), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(filled, '__proto__')?.value, ['x']);
});

test('content is validated against the requested schema', async () => {
  assert.deepEqual(await validateElicitationContent(CONTACT_SCHEMA, { email: 'a@example.com', rating: 4 }), {
    ok: true,
    value: { email: 'a@example.com', rating: 4 },
  });
  assert.deepEqual(
    await validateElicitationContent(CONTACT_SCHEMA, {
      email: 'nope',
      birthday: '31/12/2000',
      homepage: 'x',
      rating: 9,
    }),
    {
      ok: false,
      issues: [
        '/email: must match format "email"',
        '/birthday: must match format "date"',
        '/homepage: must match format "uri"',
        '/rating: must be <= 5',
      ],
    },
  );
  assert.deepEqual(await validateElicitationContent(CONTACT_SCHEMA, {}), {
    ok: false,
    issues: ["(root): must have required property 'email'"],
  });
  const enums = await validateElicitationContent(ENUMS_SCHEMA, {
    untitledSingle: 'option9',
    titledSingle: 'value1',
    legacyEnum: 'opt2',
    untitledMulti: [],
    titledMulti: ['x', 'z'],
  });
  assert.equal(enums.ok, false);
  if (!enums.ok) {
    assert.ok(enums.issues.includes('/untitledSingle: must be one of "option1", "option2", "option3"'));
    assert.ok(enums.issues.includes('/untitledMulti: must NOT have fewer than 1 items'));
    assert.ok(enums.issues.some((issue) => issue.startsWith('/titledMulti/1: ')));
  }
  const answer = applyElicitationDefaults(ENUMS_SCHEMA, { untitledSingle: 'option1' });
  assert.equal((await validateElicitationContent(ENUMS_SCHEMA, answer)).ok, true);
});

test('content validation compiles each schema object once', async (t) => {
  const compile = t.mock.method(Ajv2020.prototype, 'compile');
  const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
  for (let i = 0; i < 50; i++) await validateElicitationContent(schema, { ok: i % 2 === 0 });
  assert.equal(compile.mock.callCount(), 1);
});
