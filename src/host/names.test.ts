import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MODEL_NAME_PATTERN, nameKey, qualifyNames } from './names.js';

test('plain names stay readable; invalid characters become _', () => {
  const names = qualifyNames(
    [
      { server: 'fs', name: 'read_file' },
      { server: 'my server', name: 'tool.v2' },
    ],
    '__',
  );
  assert.equal(names.get(nameKey('fs', 'read_file')), 'fs__read_file');
  assert.equal(names.get(nameKey('my server', 'tool.v2')), 'my_server__tool_v2');
});

test('long and clashing names are shortened with a hash, the same whatever the order', () => {
  const requests = [
    { server: 's', name: 'a.b' },
    { server: 's', name: 'a_b' },
    { server: 's', name: 'x'.repeat(200) },
    { server: 's', name: 'ok' },
  ];
  const one = qualifyNames(requests, '-');
  const two = qualifyNames([...requests].reverse(), '-');
  assert.deepEqual([...one.entries()].sort(), [...two.entries()].sort());
  const values = [...one.values()];
  assert.equal(new Set(values).size, 4);
  for (const v of values) assert.match(v, MODEL_NAME_PATTERN);
  assert.equal(one.get(nameKey('s', 'ok')), 's-ok');
  assert.match(one.get(nameKey('s', 'a.b')) ?? '', /^s-a_b_[0-9a-f]{8}$/);
  assert.equal(one.get(nameKey('s', 'x'.repeat(200)))?.length, 64);
});

test('a thousand names qualify in linear time and stay distinct', () => {
  const requests = Array.from({ length: 1000 }, (_, i) => ({
    server: 'big',
    name: `t.${i % 500}.${i >= 500 ? 'a' : 'a'}${i >= 500 ? '.' : '_'}`,
  }));
  const names = qualifyNames(requests, '__');
  assert.equal(new Set(names.values()).size, 1000);
});
