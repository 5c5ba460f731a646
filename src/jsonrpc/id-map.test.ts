import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdMap } from './id-map.js';

test('IdMap: get, has, set, delete and size, as a Map', () => {
  const m = new IdMap<string | number, string>();
  assert.equal(m.size, 0);
  assert.equal(m.get(1), undefined);
  m.set(1, 'one');
  m.set('1', 'string one');
  assert.equal(m.size, 2);
  assert.equal(m.get(1), 'one');
  assert.equal(m.get('1'), 'string one');
  assert.equal(m.has(2), false);
  m.set(1, 'uno');
  assert.equal(m.get(1), 'uno');
  assert.equal(m.size, 2);
  assert.equal(m.delete(1), true);
  assert.equal(m.delete(1), false);
  assert.equal(m.has(1), false);
  assert.equal(m.get('1'), 'string one');
  assert.equal(m.size, 1);
  m.clear();
  assert.equal(m.size, 0);
  assert.equal(m.has('1'), false);
});

test('IdMap: keys and values come oldest first, whichever entries were deleted in between', () => {
  const m = new IdMap<number, string>();
  const reference = new Map<number, string>();
  // A fixed sequence of sets and deletes, compared with a Map after every step.
  const steps: [op: 'set' | 'delete', key: number][] = [
    ['set', 1],
    ['set', 2],
    ['set', 3],
    ['delete', 1],
    ['set', 4],
    ['delete', 2],
    ['delete', 3],
    ['delete', 4],
    ['set', 5],
    ['set', 6],
    ['delete', 6],
    ['set', 7],
    ['set', 5],
    ['delete', 5],
    ['set', 8],
  ];
  for (const [op, key] of steps) {
    if (op === 'set') {
      m.set(key, `v${key}`);
      reference.set(key, `v${key}`);
    } else assert.equal(m.delete(key), reference.delete(key));
    assert.deepEqual(m.keys(), [...reference.keys()], `keys after ${op} ${key}`);
    assert.deepEqual(m.values(), [...reference.values()], `values after ${op} ${key}`);
    assert.equal(m.size, reference.size);
  }
});

test('IdMap: keys and values are copies, so the table may change while they are walked', () => {
  const m = new IdMap<number, number>();
  for (const k of [1, 2, 3]) m.set(k, k * 10);
  const seen: number[] = [];
  for (const k of m.keys()) {
    seen.push(k);
    m.delete(k);
  }
  assert.deepEqual(seen, [1, 2, 3]);
  assert.equal(m.size, 0);
});
