import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invalidCases, validCases } from '../../test/fixtures/x-mcp-header-cases.js';
import { readParamHeaders, valueAtPath } from './tool-headers.js';

for (const c of validCases) {
  test(`x-mcp-header valid: ${c.name}`, () => {
    assert.deepEqual(readParamHeaders(c.schema), { ok: true, headers: c.headers });
  });
}

for (const c of invalidCases) {
  test(`x-mcp-header invalid: ${c.name}`, () => {
    const result = readParamHeaders(c.schema);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.property, c.property);
    assert.ok(result.reason.includes(c.reason), `${JSON.stringify(result.reason)} mentions ${c.reason}`);
  });
}

test('x-mcp-header: no schema, or a schema that is not an object, declares nothing', () => {
  for (const schema of [undefined, null, 'text', [], 42]) {
    assert.deepEqual(readParamHeaders(schema), { ok: true, headers: [] });
  }
});

test('x-mcp-header: hostile input is refused, never thrown (deep nesting, a bigint name, a cycle)', () => {
  let deep: { [key: string]: unknown } = { type: 'string' };
  for (let i = 0; i < 10_000; i++) deep = { type: 'object', properties: { p: deep } };
  const tooDeep = readParamHeaders(deep);
  assert.equal(tooDeep.ok, false);
  assert.ok(!tooDeep.ok && tooDeep.reason.includes('nested deeper'));
  const bigint = readParamHeaders({
    type: 'object',
    properties: { n: { type: 'string', 'x-mcp-header': 10n } },
  });
  assert.ok(!bigint.ok && bigint.reason.includes('not bigint'));
  const cyclic: { [key: string]: unknown } = { type: 'object' };
  cyclic.properties = { self: cyclic };
  assert.equal(readParamHeaders(cyclic).ok, false);
});

test('valueAtPath reads the argument at a property path, and nothing through non-objects', () => {
  const args = { a: { b: 'x', n: null }, s: 'top', list: ['q'] };
  assert.equal(valueAtPath(args, ['a', 'b']), 'x');
  assert.equal(valueAtPath(args, ['s']), 'top');
  assert.equal(valueAtPath(args, ['a', 'n']), null);
  assert.equal(valueAtPath(args, ['a', 'missing']), undefined);
  assert.equal(valueAtPath(args, ['s', 'length']), undefined);
  assert.equal(valueAtPath(args, ['list', '0']), undefined);
  assert.equal(valueAtPath(args, ['toString']), undefined);
  assert.equal(valueAtPath(undefined, ['a']), undefined);
});
