import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorMessage, toError } from './errors.js';

test('errorMessage: an Error gives its message, anything else its string form', () => {
  assert.equal(errorMessage(new TypeError('boom')), 'boom');
  assert.equal(errorMessage('plain'), 'plain');
  assert.equal(errorMessage(42), '42');
  assert.equal(errorMessage(undefined), 'undefined');
  assert.equal(errorMessage({ toString: () => 'custom' }), 'custom');
});

test('errorMessage: a value without a string form still gives a message instead of throwing', () => {
  const bare = Object.create(null) as object;
  assert.throws(() => String(bare));
  assert.equal(errorMessage(bare), 'a thrown value without a string form');
  const hostile = {
    toString() {
      throw new Error('no');
    },
  };
  assert.equal(errorMessage(hostile), 'a thrown value without a string form');
});

test('toError: an Error is returned as it is; anything else is wrapped with the value as cause', () => {
  const original = new RangeError('out');
  assert.equal(toError(original), original);
  const wrapped = toError('text');
  assert.ok(wrapped instanceof Error);
  assert.equal(wrapped.message, 'text');
  assert.equal(wrapped.cause, 'text');
  assert.equal(toError(Object.create(null)).message, 'a thrown value without a string form');
});
