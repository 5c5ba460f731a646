// key=value words to tool arguments, by the input schema and never by the look of the value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkArguments,
  coerce,
  parseArgsJson,
  parsePairs,
  toolArguments,
} from '../../src/cli/shared/coerce.js';
import { CliError } from '../../src/cli/shared/exit.js';

const usage = (fn: () => unknown, message: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof CliError && e.exitCode === 1 && message.test(e.message));

test('each declared type: string as it is, numbers, integers, booleans, null, JSON arrays and objects', () => {
  assert.equal(coerce('k', '007', { type: 'string' }), '007');
  assert.equal(coerce('k', '007', { type: 'number' }), 7);
  assert.equal(coerce('k', '-1.5e3', { type: 'number' }), -1500);
  assert.equal(coerce('k', '3', { type: 'integer' }), 3);
  assert.equal(coerce('k', 'true', { type: 'boolean' }), true);
  assert.equal(coerce('k', 'null', { type: 'null' }), null);
  assert.deepEqual(coerce('k', '[1,"a"]', { type: 'array' }), [1, 'a']);
  assert.deepEqual(coerce('k', '{"a":1}', { type: 'object' }), { a: 1 });
  // Undeclared: the text as it is, whatever it looks like.
  assert.equal(coerce('k', '42', undefined), '42');
  assert.equal(coerce('k', 'true', {}), 'true');
});

test('unions: the typed reading first, the string last; anyOf branches and enums count', () => {
  assert.equal(coerce('k', '5', { type: ['string', 'number'] }), 5);
  assert.equal(coerce('k', 'five', { type: ['string', 'number'] }), 'five');
  assert.equal(coerce('k', '2', { anyOf: [{ type: 'integer' }, { type: 'null' }] }), 2);
  assert.equal(coerce('k', 'null', { anyOf: [{ type: 'integer' }, { type: 'null' }] }), null);
  assert.equal(coerce('k', 'b', { type: 'string', enum: ['a', 'b'] }), 'b');
  assert.equal(coerce('k', '2', { enum: [1, 2] }), 2);
  // A string enum whose member looks like a number stays a string when the number reading is not allowed.
  assert.equal(coerce('k', '5', { type: ['number', 'string'], enum: ['5', 'x'] }), '5');
});

test('values that do not fit are usage errors naming the argument and the reason', () => {
  usage(() => coerce('count', 'ten', { type: 'number' }), /argument "count": expected a number, got "ten"/);
  usage(() => coerce('count', '', { type: 'number' }), /expected a number/);
  usage(() => coerce('n', '1.5', { type: 'integer' }), /expected an integer/);
  usage(() => coerce('flag', 'yes', { type: 'boolean' }), /expected true or false/);
  usage(() => coerce('list', '{}', { type: 'array' }), /expected a JSON array/);
  usage(() => coerce('obj', '[', { type: 'object' }), /expected a JSON object/);
  usage(() => coerce('c', 'd', { type: 'string', enum: ['a', 'b'] }), /must be one of "a", "b"/);
});

test('toolArguments: --args-json under key=value, required and unknown arguments', () => {
  const schema = {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  };
  assert.deepEqual(toolArguments('add', schema, [['b', '4']], { a: 2, b: 3 }), { a: 2, b: 4 });
  usage(() => toolArguments('add', schema, [['a', '1']], {}), /tool "add" needs b=…/);
  usage(() => toolArguments('add', schema, [['c', '1']], {}), /tool "add" has no argument "c"/);
  usage(() => toolArguments('add', schema, [['aa', '1']], {}), /did you mean "a"/);
  // Without additionalProperties: false an undeclared name is refused all the same (most schemas omit it)...
  const open = { type: 'object', properties: { message: { type: 'string' } } };
  usage(
    () => toolArguments('echo', open, [['mesage', 'hi']], {}),
    /tool "echo" has no argument "mesage" \(did you mean "message"\?\); its arguments: message \(to send it anyway: --allow-unknown-args\)/,
  );
  usage(() => toolArguments('echo', open, [], { extra: 1 }), /no argument "extra"/);
  usage(() => toolArguments('t', { type: 'object' }, [['x', '1']], {}), /its arguments: \(none\)/);
  // ...unless the flag asks, or the schema lets other names in itself.
  assert.deepEqual(toolArguments('t', { type: 'object' }, [['x', '1']], {}, { allowUnknown: true }), {
    x: '1',
  });
  for (const schema of [
    { type: 'object', additionalProperties: true },
    { type: 'object', additionalProperties: { type: 'string' } },
    { type: 'object', patternProperties: { '^x': {} } },
    { $ref: '#/$defs/args' },
    { allOf: [{ properties: { a: {} } }, { additionalProperties: {} }] },
  ])
    assert.deepEqual(toolArguments('t', schema, [['x', '1']], {}), { x: '1' }, JSON.stringify(schema));
  // The names of allOf/anyOf/oneOf branches count.
  const branches = { anyOf: [{ properties: { a: {} } }, { properties: { b: {} } }] };
  assert.deepEqual(toolArguments('t', branches, [['b', '1']], {}), { b: '1' });
  usage(() => toolArguments('t', branches, [['c', '1']], {}), /its arguments: a, b/);
});

test('parsePairs and parseArgsJson refuse malformed input', () => {
  assert.deepEqual(parsePairs(['a=b=c', 'd='], 'args'), [
    ['a', 'b=c'],
    ['d', ''],
  ]);
  usage(() => parsePairs(['novalue'], 'tool arguments'), /tool arguments are key=value, got "novalue"/);
  usage(() => parsePairs(['=x'], 'args'), /key=value/);
  usage(() => parseArgsJson('[1]'), /must be a JSON object/);
  usage(() => parseArgsJson('{'), /not valid JSON/);
});

test('numbers are decimal only: no hex, binary, spaces or Infinity', () => {
  for (const text of ['0x10', '0b1', ' 5', '5 ', 'Infinity', '1_000', '+1', '.5'])
    usage(() => coerce('n', text, { type: 'number' }), /expected a number/);
  usage(() => coerce('n', '0x10', { type: 'integer' }), /expected an integer/);
});

test('number|string: text that would not read back the same stays text', () => {
  assert.equal(coerce('k', '007', { type: ['number', 'string'] }), '007');
  assert.equal(coerce('k', '1.0', { type: ['number', 'string'] }), '1.0');
  assert.equal(coerce('k', '12345678901234567890', { type: ['integer', 'string'] }), '12345678901234567890');
  assert.equal(coerce('k', '1.5', { type: ['number', 'string'] }), 1.5);
});

test('required is checked by own properties: an inherited name is not an argument', () => {
  assert.throws(
    () => toolArguments('t', { type: 'object', required: ['toString'] }, [], {}),
    (e: unknown) => e instanceof CliError && /toString=/.test(e.message),
  );
});

test('checkArguments: the whole input schema is checked (ajv), exit 1 saying what is wrong', async () => {
  const schema = {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 1 }, tags: { type: 'array', items: { type: 'string' } } },
  };
  await checkArguments('t', schema, { n: 2, tags: ['a'] });
  await assert.rejects(checkArguments('t', schema, { n: 0, tags: [1] }), (e: unknown) => {
    assert.ok(e instanceof CliError && e.exitCode === 1);
    assert.match(e.message, /the arguments do not fit tool "t": .*\/n.*>= 1/);
    assert.match(e.message, /\/tags\/0/);
    return true;
  });
  // A schema that cannot be compiled is the server's to judge.
  await checkArguments('t', { $schema: 'http://example.com/unknown' }, { x: 1 });
});
