import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { McpkitError } from '../jsonrpc/errors.js';
import { compileJsonSchema, detectJsonSchemaDialect, preloadJsonSchema } from './json-schema.js';

// validateSync needs ajv loaded; the library itself loads it on first use.
before(() => preloadJsonSchema());

function issuesOf(schema: object, value: unknown): string[] {
  const result = compileJsonSchema(schema).validateSync(value);
  assert.equal(result.ok, false, 'expected a validation failure');
  return result.ok ? [] : result.issues;
}

function assertMcpkitError(fn: () => unknown, code: string, pattern?: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof McpkitError, `expected McpkitError, got ${String(error)}`);
    assert.equal(error.code, code);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

test('no $schema means 2020-12: $defs, $ref and prefixItems work', () => {
  const schema = {
    type: 'object',
    $defs: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false } },
    properties: { at: { $ref: '#/$defs/point' } },
    required: ['at'],
  };
  const validator = compileJsonSchema(schema);
  assert.equal(validator.dialect, '2020-12');
  assert.deepEqual(validator.validateSync({ at: [1, 2] }), { ok: true, value: { at: [1, 2] } });
  assert.deepEqual(issuesOf(schema, { at: [1, 'x'] }), ['/at/1: must be number']);
  assert.deepEqual(issuesOf(schema, { at: [1, 2, 3] }), ['/at: must NOT have more than 2 items']);
});

test('the explicit 2020-12 URI is accepted, with or without a trailing #', () => {
  for (const uri of [
    'https://json-schema.org/draft/2020-12/schema',
    'https://json-schema.org/draft/2020-12/schema#',
  ]) {
    const validator = compileJsonSchema({ $schema: uri, type: 'array', prefixItems: [{ type: 'string' }] });
    assert.equal(validator.dialect, '2020-12');
    assert.equal(validator.validateSync(['a', 1]).ok, true);
    assert.equal(validator.validateSync([1]).ok, false);
  }
});

test('draft-07 is used when declared (http or https, with or without #)', () => {
  for (const uri of [
    'http://json-schema.org/draft-07/schema#',
    'http://json-schema.org/draft-07/schema',
    'https://json-schema.org/draft-07/schema',
    'https://json-schema.org/draft-07/schema#',
  ]) {
    // Array-form `items` is a tuple in draft-07 (and not valid 2020-12).
    const schema = {
      $schema: uri,
      definitions: { id: { type: 'integer' } },
      type: 'array',
      items: [{ $ref: '#/definitions/id' }, { type: 'string' }],
    };
    const validator = compileJsonSchema(schema);
    assert.equal(validator.dialect, 'draft-07', uri);
    assert.equal(validator.validateSync([1, 'a']).ok, true);
    assert.deepEqual(issuesOf(schema, ['a', 1]), ['/0: must be integer', '/1: must be string']);
  }
});

test('an unknown dialect is refused at definition time, naming it and the supported ones', () => {
  for (const uri of ['http://json-schema.org/draft-04/schema#', 'https://example.com/my-dialect', 42]) {
    assertMcpkitError(
      () => compileJsonSchema({ $schema: uri, type: 'object' }),
      'UNSUPPORTED_SCHEMA_DIALECT',
      /Unsupported JSON Schema dialect .*supported: https:\/\/json-schema\.org\/draft\/2020-12\/schema .*draft-07/,
    );
  }
  assert.equal(detectJsonSchemaDialect({}), '2020-12');
});

test('an invalid schema is refused with ajv reason, and compilation is not retried', (t) => {
  const compile = t.mock.method(Ajv2020.prototype, 'compile');
  try {
    const validator = compileJsonSchema({ type: 'object', properties: { a: { minLength: 'three' } } });
    assertMcpkitError(() => validator.validateSync({}), 'INVALID_SCHEMA', /minLength must be integer/);
    assertMcpkitError(() => validator.validateSync({}), 'INVALID_SCHEMA');
    assert.equal(compile.mock.callCount(), 1);
  } finally {
    compile.mock.restore();
  }
  assertMcpkitError(
    () => compileJsonSchema({ $ref: '#/$defs/missing' }).validateSync(1),
    'INVALID_SCHEMA',
    /resolve/,
  );
  // Draft-07 tuple syntax is not 2020-12.
  assertMcpkitError(
    () => compileJsonSchema({ items: [{ type: 'string' }] }).validateSync([]),
    'INVALID_SCHEMA',
  );
  // Network references are never fetched.
  assertMcpkitError(
    () => compileJsonSchema({ $ref: 'https://example.com/schema.json' }).validateSync(1),
    'INVALID_SCHEMA',
    /example\.com/,
  );
  assertMcpkitError(() => compileJsonSchema([] as object), 'INVALID_SCHEMA');
});

test('compilation is lazy and happens once per schema object', (t) => {
  const compile = t.mock.method(Ajv2020.prototype, 'compile');
  const compile07 = t.mock.method(Ajv.prototype, 'compile');
  try {
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    const validator = compileJsonSchema(schema);
    assert.equal(compile.mock.callCount(), 0, 'not compiled at definition time');
    for (let i = 0; i < 1000; i++) validator.validateSync({ n: i });
    assert.equal(validator.validateSync({ n: 'x' }).ok, false);
    assert.equal(compileJsonSchema(schema), validator, 'the same object yields the same validator');
    compileJsonSchema(schema).validateSync({ n: 1 });
    assert.equal(compile.mock.callCount(), 1);

    const draft07 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' };
    for (let i = 0; i < 100; i++) compileJsonSchema(draft07).validateSync('x');
    assert.equal(compile07.mock.callCount(), 1);

    // An equal but distinct object is a new schema.
    compileJsonSchema({ ...schema }).validateSync({});
    assert.equal(compile.mock.callCount(), 2);
  } finally {
    compile.mock.restore();
    compile07.mock.restore();
  }
});

test('schemas sharing an $id (root or embedded) stay independent', () => {
  const make = (type: string) => ({
    $id: 'https://example.com/shared',
    type: 'object',
    $defs: { leaf: { $id: 'https://example.com/leaf', type } },
    properties: { leaf: { $ref: 'leaf' }, self: { $ref: '#' } },
  });
  const strings = compileJsonSchema(make('string'));
  const numbers = compileJsonSchema(make('number'));
  assert.equal(strings.validateSync({ leaf: 'a', self: { leaf: 'b' } }).ok, true);
  assert.equal(numbers.validateSync({ leaf: 1, self: { leaf: 2 } }).ok, true);
  assert.deepEqual(issuesOf(make('number'), { self: { leaf: 'x' } }), ['/self/leaf: must be number']);
  // One schema cannot reach into another (e.g. a different server's) by `$id`.
  assertMcpkitError(
    () => compileJsonSchema({ $ref: 'https://example.com/leaf' }).validateSync('x'),
    'INVALID_SCHEMA',
    /can't resolve reference https:\/\/example\.com\/leaf/,
  );
  // A schema wearing the meta-schema's id does not knock the meta-schema out.
  compileJsonSchema({ $id: 'https://json-schema.org/draft/2020-12/schema', type: 'string' }).validateSync(
    'x',
  );
  assert.equal(compileJsonSchema({ type: 'string' }).validateSync('x').ok, true);
  assertMcpkitError(
    () => compileJsonSchema({ type: 'nonsense' }).validateSync(1),
    'INVALID_SCHEMA',
    /type must be equal to one of the allowed values/,
  );
});

test('memory stays bounded: schemas compiled long ago can be garbage-collected', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const refs: WeakRef<object>[] = [];
  // More than two Ajv instances' worth, so at least the first 500 live in retired instances.
  for (let i = 0; i < 1100; i++) {
    const schema = {
      $id: `https://example.com/s${i}`,
      type: 'object',
      properties: { [`k${i}`]: { pattern: `^${i}` } },
    };
    assert.equal(compileJsonSchema(schema).validateSync({ [`k${i}`]: `${i}` }).ok, true);
    refs.push(new WeakRef(schema));
  }
  const kept = refs.slice(0, 500);
  for (let i = 0; i < 10 && kept.some((ref) => ref.deref() !== undefined); i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  assert.equal(kept.filter((ref) => ref.deref() !== undefined).length, 0);
});

test('validators from a retired Ajv instance keep working', () => {
  const early = compileJsonSchema({ type: 'object', required: ['early'] });
  assert.equal(early.validateSync({}).ok, false);
  for (let i = 0; i < 600; i++)
    compileJsonSchema({ type: 'object', properties: { [`p${i}`]: { type: 'string' } } }).validateSync({});
  assert.equal(early.validateSync({ early: 1 }).ok, true);
  assert.deepEqual(early.validateSync({}), {
    ok: false,
    issues: ["(root): must have required property 'early'"],
  });
});

test('issues read well: JSON Pointer paths, (root), offending keys and allowed values', () => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: { type: 'string' },
      address: { type: 'object', properties: { city: { type: 'string' } } },
      color: { enum: ['red', 'green'] },
      kind: { const: 'fixed' },
      'a/b': { type: 'number' },
    },
  };
  assert.deepEqual(
    issuesOf(schema, { address: { city: 5 }, extra: true, color: 'blue', kind: 'x', 'a/b': 's' }),
    [
      "(root): must have required property 'name'",
      "(root): must NOT have additional property 'extra'",
      '/address/city: must be string',
      '/color: must be one of "red", "green"',
      '/kind: must be equal to "fixed"',
      '/a~1b: must be number',
    ],
  );
  assert.deepEqual(issuesOf({ type: 'object' }, 'text'), ['(root): must be object']);
});

test('formats are checked (email, uri, date, date-time) and unknown formats are ignored', () => {
  const schema = {
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email' },
      uri: { type: 'string', format: 'uri' },
      date: { type: 'string', format: 'date' },
      at: { type: 'string', format: 'date-time' },
      custom: { type: 'string', format: 'x-unknown' },
    },
  };
  const good = {
    email: 'a@example.com',
    uri: 'https://example.com/x',
    date: '2025-11-25',
    at: '2025-11-25T10:00:00Z',
  };
  assert.equal(compileJsonSchema(schema).validateSync({ ...good, custom: 'anything' }).ok, true);
  assert.deepEqual(
    issuesOf(schema, { email: 'nope', uri: 'not a uri', date: '2025-13-45', at: '2025-11-25' }),
    [
      '/email: must match format "email"',
      '/uri: must match format "uri"',
      '/date: must match format "date"',
      '/at: must match format "date-time"',
    ],
  );
});

test('a flood of issues is capped', () => {
  const issues = issuesOf(
    { type: 'array', items: { type: 'string' } },
    Array.from({ length: 100 }, (_, i) => i),
  );
  assert.equal(issues.length, 26);
  assert.equal(issues[25], '… and 75 more issues');
});
