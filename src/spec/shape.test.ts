import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpkitError } from '../jsonrpc/errors.js';
import { checkResult, contentBlock, elicitResult, resourceContents } from './checks.js';
import {
  array,
  check,
  conforms,
  nullable,
  number,
  object,
  oneOf,
  oneOrMany,
  optional,
  recordOf,
  string,
  variant,
} from './shape.js';

test('leaf and object shapes name the first problem with its path', () => {
  const person = object({ name: string, age: optional(number), tags: array(string) });
  assert.equal(person({ name: 'a', tags: [] }), undefined);
  assert.equal(person({ name: 'a', tags: [], extra: true }), undefined, 'objects are open');
  assert.equal(person(null), ' must be an object');
  assert.equal(person([]), ' must be an object');
  assert.equal(person({ tags: [] }), '.name must be a string');
  assert.equal(person({ name: 'a', age: '1', tags: [] }), '.age must be a number');
  assert.equal(person({ name: 'a', age: Number.NaN, tags: [] }), '.age must be a number');
  assert.equal(person({ name: 'a', tags: ['x', 2] }), '.tags[1] must be a string');
  assert.equal(recordOf(number)({ 'odd key': 'x' }), '["odd key"] must be a number');
  assert.equal(nullable(number)(null), undefined);
  assert.equal(oneOf('a', 'b')('c'), ' must be one of "a", "b"');
  assert.equal(oneOrMany(string)(['a', 1]), '[1] must be a string');
  assert.equal(oneOrMany(string)('a'), undefined);
});

test('variants are told apart by their tag', () => {
  const shape = variant('kind', { a: object({ x: string }), b: object({ y: number }) });
  assert.equal(shape({ kind: 'a', x: 'x' }), undefined);
  assert.equal(shape({ kind: 'b', x: 'x' }), '.y must be a number');
  assert.equal(shape({ kind: 'toString' }), '.kind must be one of "a", "b"', 'inherited keys are no tags');
  assert.equal(shape({}), '.kind must be one of "a", "b"');
});

test('MCP shapes: content blocks, resource contents, elicitation answers', () => {
  assert.ok(conforms(contentBlock, { type: 'audio', data: 'AA', mimeType: 'audio/wav' }));
  assert.equal(contentBlock({ type: 'resource_link', uri: 'a://b' }), '.name must be a string');
  assert.ok(conforms(resourceContents, { uri: 'a://b', blob: 'AA' }));
  assert.ok(!conforms(resourceContents, { uri: 'a://b' }));
  assert.ok(conforms(elicitResult, { action: 'accept', content: { a: 1, b: ['x'], c: true } }));
  assert.equal(
    elicitResult({ action: 'accept', content: { b: [1] } }),
    '.content.b must be a string, number, boolean or array of strings',
  );
});

test('check returns the value itself or throws what fail builds', () => {
  const value = { x: 'y' };
  assert.equal(
    check(object({ x: string }), value, () => new Error('no')),
    value,
  );
  assert.throws(
    () => check(object({ x: string }), {}, (p) => new Error(`bad${p}`)),
    /^Error: bad\.x must be a string$/,
  );
  assert.throws(
    () => checkResult(object({ x: string }), { x: 1 }, 'a/b', 'server'),
    (e: unknown) =>
      e instanceof McpkitError &&
      e.code === 'INVALID_RESULT' &&
      e.message === "The server's a/b result is malformed: result.x must be a string",
  );
});
