import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgeLink, AgeList } from './age-list.js';

class Item extends AgeLink<Item> {
  constructor(readonly name: string) {
    super();
  }
}

/** The names oldest to newest, walked both ways, checked against each other and the ends. */
function names(list: AgeList<Item>): string[] {
  const forward: string[] = [];
  let last: Item | undefined;
  for (let item = list.oldest; item !== undefined; item = item.newer) {
    assert.equal(item.older, last, `${item.name} links back to the one before it`);
    forward.push(item.name);
    last = item;
  }
  assert.equal(list.newest, last);
  const backward: string[] = [];
  for (let item = list.newest; item !== undefined; item = item.older) backward.push(item.name);
  assert.deepEqual(backward.reverse(), forward);
  return forward;
}

function listOf(...items: Item[]): AgeList<Item> {
  const list = new AgeList<Item>();
  for (const item of items) list.append(item);
  return list;
}

const detached = (item: Item) => item.older === undefined && item.newer === undefined;

test('entries stay in the order they were appended, oldest first', () => {
  const list = new AgeList<Item>();
  assert.equal(list.oldest, undefined);
  assert.equal(list.newest, undefined);
  assert.deepEqual(names(list), []);
  const a = new Item('a');
  list.append(a);
  assert.deepEqual(names(list), ['a']);
  list.append(new Item('b'));
  list.append(new Item('c'));
  assert.deepEqual(names(list), ['a', 'b', 'c']);
  assert.equal(list.oldest, a);
});

test('unlinking the oldest, the newest, one in the middle or the only entry keeps the rest linked', () => {
  const cases: Array<[string[], string, string[]]> = [
    [['a', 'b', 'c'], 'a', ['b', 'c']],
    [['a', 'b', 'c'], 'c', ['a', 'b']],
    [['a', 'b', 'c'], 'b', ['a', 'c']],
    [['a'], 'a', []],
  ];
  for (const [before, gone, after] of cases) {
    const items = before.map((n) => new Item(n));
    const list = listOf(...items);
    const item = items.find((i) => i.name === gone) as Item;
    assert.equal(list.has(item), true);
    assert.equal(list.unlink(item), true, `unlink ${gone} of ${before}`);
    assert.deepEqual(names(list), after, `unlink ${gone} of ${before}`);
    assert.ok(detached(item), 'its links are cleared');
    assert.equal(list.has(item), false);
    // Appended again, it is the newest.
    list.append(item);
    assert.deepEqual(names(list), [...after, gone]);
  }
});

test('unlinking an entry not in the list does nothing and says so', () => {
  const [a, b] = [new Item('a'), new Item('b')];
  const list = listOf(a, b);
  const never = new Item('never');
  assert.equal(list.has(never), false);
  assert.equal(list.unlink(never), false);
  assert.deepEqual(names(list), ['a', 'b']);
  // Unlinked twice: the second time changes nothing (a blind unlink would empty the list: b has no older).
  assert.equal(list.unlink(b), true);
  assert.equal(list.unlink(b), false);
  assert.deepEqual(names(list), ['a']);
  // The only entry of another list is not in this one.
  const other = listOf(new Item('x'));
  assert.equal(list.unlink(other.oldest as Item), false);
  assert.deepEqual(names(list), ['a']);
  assert.deepEqual(names(other), ['x']);
  // Nor is anything in an empty list.
  const empty = new AgeList<Item>();
  assert.equal(empty.unlink(a), false);
  assert.deepEqual(names(list), ['a']);
});

test('clear unlinks every entry', () => {
  const items = ['a', 'b', 'c'].map((n) => new Item(n));
  const list = listOf(...items);
  list.clear();
  assert.deepEqual(names(list), []);
  assert.ok(items.every(detached));
  assert.ok(items.every((i) => !list.has(i)));
  // Cleared entries can join again.
  list.append(items[2] as Item);
  list.append(items[0] as Item);
  assert.deepEqual(names(list), ['c', 'a']);
});
