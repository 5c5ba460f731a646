import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import { OutStream } from './out-stream.js';

const response = (id: number): JsonRpcMessage => ({ jsonrpc: '2.0', id, result: {} });

test('OutStream: collected responses are handed over once, in the order they came', () => {
  const stream = new OutStream('s', true, 1);
  assert.deepEqual(stream.takeCollected(), []);
  for (const id of [3, 1, 2]) stream.collect(response(id));
  assert.deepEqual(
    stream.takeCollected().map((m) => ('id' in m ? m.id : undefined)),
    [3, 1, 2],
  );
  assert.equal(stream.first, undefined);
  assert.deepEqual(stream.takeCollected(), []);
  stream.collect(response(4));
  assert.deepEqual(stream.takeCollected(), [response(4)]);
});

test("OutStream: a POST stream's id is its prefix and number, made when first read; another stream's is given", () => {
  assert.equal(new OutStream('abc', false, 12).id, 'abc12');
  assert.equal(new OutStream('abc_', false).id, 'abc_');
});
