import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import { MemoryEventStore } from './event-store.js';

const note = (n: number): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { n },
});

test('the byte budget drops finished streams first', () => {
  const store = new MemoryEventStore({ maxBytesPerSession: 1000 });
  const a1 = store.append('s', 'A', note(1), 400);
  store.append('s', 'A', note(2), 400);
  store.streamEnded('s', 'A');
  const b1 = store.append('s', 'B', note(3), 400);
  assert.equal(store.replayAfter('s', a1), undefined, 'the finished stream was dropped');
  assert.deepEqual(store.replayAfter('s', b1), [], 'the live one is kept');
  store.append('s', 'B', note(4), 400);
  assert.deepEqual(
    store.replayAfter('s', b1)?.map((e) => e.message),
    [note(4)],
  );
});

test('past the budget on live streams the oldest events go, and resuming before them is refused (a gap)', () => {
  const store = new MemoryEventStore({ maxBytesPerSession: 1000 });
  const first = store.append('s', 'C', note(1), 600);
  const second = store.append('s', 'C', note(2), 600);
  assert.equal(
    store.replayAfter('s', 'C.0'),
    undefined,
    'the first event is gone: its resume point is a gap',
  );
  assert.deepEqual(
    store.replayAfter('s', first)?.map((e) => e.id),
    [second],
  );
  // The newest event of a stream stays even when it alone is over the budget.
  const big = store.append('s', 'C', note(3), 5000);
  assert.deepEqual(
    store.replayAfter('s', second)?.map((e) => e.id),
    [big],
  );
});

test('other sessions are not touched by one session over its budget', () => {
  const store = new MemoryEventStore({ maxBytesPerSession: 1000 });
  const other = store.append('t', 'D', note(0), 900);
  store.append('t', 'D', note(1), 50);
  for (let i = 0; i < 10; i++) store.append('s', 'E', note(i), 500);
  assert.equal(store.replayAfter('t', other)?.length, 1);
});

test('an event appended with its JSON text is replayed as that message, not the object it was given', () => {
  const store = new MemoryEventStore();
  const message = note(1);
  const start = store.append('s', 'D', note(0), 10);
  store.append('s', 'D', message, 10, JSON.stringify(message));
  // Changed after it was sent: the store kept the text that went out, not the object.
  (message as unknown as { params: { n: number } }).params.n = 99;
  assert.deepEqual(
    store.replayAfter('s', start)?.map((e) => e.message),
    [note(1)],
  );
});

test('past the stream limit a finished stream goes first, then the oldest live one; past the event limit, the oldest events', () => {
  const store = new MemoryEventStore({ maxStreamsPerSession: 2, maxEventsPerStream: 2 });
  const a = store.append('s', 'A', note(1), 10);
  const b = store.append('s', 'B', note(2), 10);
  store.append('s', 'B', note(3), 10);
  store.streamEnded('s', 'B');
  const c = store.append('s', 'C', note(4), 10);
  assert.equal(store.replayAfter('s', b), undefined, 'the finished stream went, though written after A');
  assert.deepEqual(store.replayAfter('s', a), []);
  store.append('s', 'D', note(5), 10);
  assert.equal(store.replayAfter('s', a), undefined, 'then the oldest live stream');
  const c2 = store.append('s', 'C', note(6), 10);
  store.append('s', 'C', note(7), 10);
  assert.equal(
    store.replayAfter('s', 'C.0'),
    undefined,
    'its first event dropped: resuming before it is a gap',
  );
  assert.deepEqual(
    store.replayAfter('s', c)?.map((e) => e.message),
    [note(6), note(7)],
  );
  store.append('s', 'C', note(8), 10);
  assert.equal(store.replayAfter('s', c), undefined);
  assert.deepEqual(
    store.replayAfter('s', c2)?.map((e) => e.message),
    [note(7), note(8)],
  );
});

test('an ended stream is kept as the text of its events: a message changed after the stream ended is replayed as sent', () => {
  const store = new MemoryEventStore();
  const message = note(1);
  // Appended without its text (the cluster's shared store in one process): encoded when the stream ends.
  const first = store.append('s', 'F', message, 10);
  const second = store.append('s', 'F', note(2), 10);
  store.streamEnded('s', 'F');
  (message as unknown as { params: { n: number } }).params.n = 99;
  assert.deepEqual(store.replayAfter('s', 'F.0'), [
    { id: first, message: note(1) },
    { id: second, message: note(2) },
  ]);
  assert.deepEqual(store.replayAfter('s', first), [{ id: second, message: note(2) }]);
  assert.deepEqual(store.replayAfter('s', second), []);
});

test('the last 100 streams of a session stay resumable after they ended, through many more (text of any script)', () => {
  const store = new MemoryEventStore();
  const text = (i: number): JsonRpcMessage => ({
    jsonrpc: '2.0',
    id: i,
    result: { content: [{ type: 'text', text: `réponse ${i} ✓ 𝄞 ${'x'.repeat(i % 300)}` }] },
  });
  const ids: string[] = [];
  for (let i = 0; i < 1000; i++) {
    const stream = `tag${i}`;
    const data = JSON.stringify(text(i));
    ids.push(store.append('s', stream, text(i), data.length, data));
    store.streamEnded('s', stream);
  }
  for (let i = 0; i < 1000; i++) {
    const replay = store.replayAfter('s', `tag${i}.0`);
    if (i < 900) assert.equal(replay, undefined, `stream ${i} is past the 100 kept`);
    else assert.deepEqual(replay, [{ id: ids[i], message: text(i) }], `stream ${i}`);
  }
});

test('a stream written again after it ended is replayed whole, and a gap in an ended stream is refused', () => {
  const store = new MemoryEventStore({ maxEventsPerStream: 2 });
  store.append('s', 'G', note(1), 10);
  const g2 = store.append('s', 'G', note(2), 10);
  const g3 = store.append('s', 'G', note(3), 10);
  store.streamEnded('s', 'G');
  assert.equal(store.replayAfter('s', 'G.0'), undefined, 'its first event was dropped: a gap');
  const g4 = store.append('s', 'G', note(4), 10);
  assert.deepEqual(
    store.replayAfter('s', g2)?.map((e) => e.id),
    [g3, g4],
  );
});

test('the byte budget counts ended streams and drops them oldest first', () => {
  const store = new MemoryEventStore({ maxBytesPerSession: 1000 });
  const ended: string[] = [];
  for (const stream of ['H', 'I', 'J']) {
    ended.push(store.append('s', stream, note(1), 300));
    store.streamEnded('s', stream);
  }
  store.append('s', 'K', note(2), 300);
  assert.equal(store.replayAfter('s', ended[0] as string), undefined, 'the oldest ended stream went');
  assert.deepEqual(store.replayAfter('s', ended[1] as string), []);
  assert.deepEqual(store.replayAfter('s', ended[2] as string), []);
});

test('an ended stream whose id is not ASCII is found again, and not taken for another', () => {
  const store = new MemoryEventStore();
  const other = store.append('s', 'flux-é', note(1), 10);
  store.streamEnded('s', 'flux-é');
  const mine = store.append('s', 'flux-流', note(2), 10);
  store.streamEnded('s', 'flux-流');
  assert.deepEqual(store.replayAfter('s', 'flux-流.0'), [{ id: mine, message: note(2) }]);
  assert.deepEqual(store.replayAfter('s', 'flux-é.0'), [{ id: other, message: note(1) }]);
});

test('a large ended event of multi-byte text is kept whole, and the streams after it too', () => {
  const store = new MemoryEventStore();
  const big: JsonRpcMessage = { jsonrpc: '2.0', id: 1, result: { text: 'é✓𝄞'.repeat(50_000) } };
  const data = JSON.stringify(big);
  const id = store.append('s', 'L', big, data.length, data);
  store.streamEnded('s', 'L');
  const small = store.append('s', 'M', note(1), 10, JSON.stringify(note(1)));
  store.streamEnded('s', 'M');
  assert.deepEqual(store.replayAfter('s', 'L.0'), [{ id, message: big }]);
  assert.deepEqual(store.replayAfter('s', 'M.0'), [{ id: small, message: note(1) }]);
});

test('appendLast keeps what append then streamEnded keep: every id replays the same, under every bound', () => {
  const options = [{}, { maxStreamsPerSession: 3 }, { maxBytesPerSession: 2000 }, { maxEventsPerStream: 1 }];
  for (const bounds of options) {
    const one = new MemoryEventStore(bounds);
    const two = new MemoryEventStore(bounds);
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const stream = i % 7 === 0 ? `流${i}` : `t${i}`;
      // Some streams have events before their last (progress), some of many bytes, some given without their text.
      for (let k = 0; k < i % 3; k++) {
        const id = one.append('s', stream, note(k), 50);
        assert.equal(two.append('s', stream, note(k), 50), id);
        ids.push(id);
      }
      const last: JsonRpcMessage = { jsonrpc: '2.0', id: i, result: { text: 'é𝄞x'.repeat(i * 7) } };
      const data = i % 5 === 0 ? undefined : JSON.stringify(last);
      const size = data?.length ?? 40;
      const id = one.appendLast('s', stream, last, size, data);
      assert.equal(two.append('s', stream, last, size, data), id);
      two.streamEnded('s', stream);
      ids.push(id, `${stream}.0`);
      // A live stream between them, still being written when the others end.
      if (i % 11 === 0) {
        assert.equal(one.append('s', 'live', note(i), 30), two.append('s', 'live', note(i), 30));
      }
    }
    for (const id of [...ids, 'live.0'])
      assert.deepEqual(one.replayAfter('s', id), two.replayAfter('s', id), `${id} ${JSON.stringify(bounds)}`);
  }
});
