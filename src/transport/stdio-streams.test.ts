import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { TransportReceiver } from '../protocol/transport.js';
import { type BrokenFraming, NdjsonLineReader, QueuedWriter } from './stdio-streams.js';

/**
 * A writable that records each handed-over write (as text). A `held` one completes no write until `release()` is
 * called, so a test decides when the stream drains instead of racing a timer.
 */
function recorder(highWaterMark = 1 << 20, held = false) {
  const writes: string[] = [];
  let pending: (() => void)[] = [];
  let released = !held;
  const done = (callback: () => void) => (released ? callback() : pending.push(callback));
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString());
      done(callback);
    },
    writev(chunks, callback) {
      writes.push(chunks.map((c) => (c.chunk as Buffer).toString()).join('|'));
      done(callback);
    },
  });
  const release = () => {
    released = true;
    const callbacks = pending;
    pending = [];
    for (const callback of callbacks) callback();
  };
  return { stream, writes, release };
}

test('writes of one event-loop turn are handed over as one write, in order', async () => {
  const { stream, writes } = recorder();
  const writer = new QueuedWriter(stream);
  await Promise.all([writer.write('a\n'), writer.write('b\n'), writer.write('c\n')]);
  assert.deepEqual(writes, []);
  await writer.idle();
  assert.deepEqual(writes, ['a\nb\nc\n']);
});

test('writes made while held go out together at release, synchronously; later ones wait for the turn', async () => {
  const { stream, writes } = recorder();
  const writer = new QueuedWriter(stream);
  writer.hold();
  void writer.write('a\n');
  writer.hold(); // nested: only the outermost release hands over
  void writer.write('b\n');
  writer.release();
  assert.deepEqual(writes, []);
  writer.release();
  assert.deepEqual(writes, ['a\nb\n']);
  void writer.write('c\n');
  void writer.write('d\n');
  assert.deepEqual(writes, ['a\nb\n']);
  await writer.idle();
  assert.deepEqual(writes, ['a\nb\n', 'c\nd\n']);
});

test('a batch already waiting for its tick is handed over, in order, by a release', async () => {
  const { stream, writes } = recorder();
  const writer = new QueuedWriter(stream);
  void writer.write('a\n');
  writer.hold();
  void writer.write('b\n');
  writer.release();
  assert.deepEqual(writes, ['a\nb\n']);
  await turn();
  assert.deepEqual(writes, ['a\nb\n']);
});

test('bytes and parts go out as one corked write, adjacent texts joined, order kept', async () => {
  const { stream, writes } = recorder();
  const writer = new QueuedWriter(stream);
  const shared = new TextEncoder().encode('{"big":1}');
  void writer.write('x\n');
  void writer.write(['{"id":1,"result":', shared, '}\n']);
  void writer.write(['{"id":2,"result":', shared, '}\n']);
  void writer.write(new TextEncoder().encode('y\n'));
  await writer.idle();
  assert.deepEqual(writes, ['x\n{"id":1,"result":|{"big":1}|}\n{"id":2,"result":|{"big":1}|}\n|y\n']);
});

test('under backpressure writes queue until drain and keep their order', async () => {
  const { stream, writes, release } = recorder(4, true);
  const writer = new QueuedWriter(stream);
  void writer.write('first line\n'); // over the high-water mark: the writer waits for 'drain'
  await turn();
  const later = [writer.write('second\n'), writer.write(['third ', new TextEncoder().encode('part'), '\n'])];
  assert.equal(writer.queued, 2);
  assert.deepEqual(writes, ['first line\n']);
  release(); // the stream completes the first write and drains
  await Promise.all(later);
  await writer.idle();
  assert.equal(writes.join('').replaceAll('|', ''), 'first line\nsecond\nthird part\n');
  assert.equal(writer.queued, 0);
});

test('fail() rejects queued writes; idle() still resolves', async () => {
  const stream = new Writable({ highWaterMark: 1, write: () => {} }); // never calls back: stays full
  const writer = new QueuedWriter(stream);
  void writer.write('stuck\n');
  await turn();
  const queued = writer.write(['a', new Uint8Array([98])]);
  writer.fail(new Error('gone'));
  await assert.rejects(queued, /gone/);
  assert.equal(writer.queued, 0);
});

/** A receiver recording what a reader delivers, by kind. */
function delivered() {
  const seen: string[] = [];
  const receiver: TransportReceiver = {
    onmessage: (m: JsonRpcMessage) => seen.push(`message ${JSON.stringify(m)}`),
    oninvalid: (p) => seen.push(`invalid ${p.kind}`),
    onerror: (e) => seen.push(`error ${e.message}`),
    onclose: () => seen.push('close'),
  };
  return { seen, receiver };
}

const utf8 = new TextEncoder();

test('with onbroken, a line over the limit stops the reader: what came before it is delivered, nothing after', () => {
  const { seen, receiver } = delivered();
  const broken: BrokenFraming[] = [];
  const reader = new NdjsonLineReader(receiver, 64, (b) => broken.push(b));
  reader.push(
    utf8.encode(`{"jsonrpc":"2.0","method":"a"}\n${'x'.repeat(100)}\n{"jsonrpc":"2.0","method":"b"}\n`),
  );
  reader.push(utf8.encode('{"jsonrpc":"2.0","method":"c"}\n'));
  reader.end();
  assert.deepEqual(seen, ['message {"jsonrpc":"2.0","method":"a"}']);
  assert.deepEqual(broken, [{ kind: 'too-large', limit: 64 }]);
});

test('with onbroken, input that ends mid-line is reported with its size instead of delivered', () => {
  const { seen, receiver } = delivered();
  const broken: BrokenFraming[] = [];
  const reader = new NdjsonLineReader(receiver, undefined, (b) => broken.push(b));
  reader.push(utf8.encode('{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b"}'));
  reader.end();
  assert.deepEqual(seen, ['message {"jsonrpc":"2.0","method":"a"}']);
  assert.deepEqual(broken, [{ kind: 'unterminated', bytes: 30 }]);
  // Without onbroken (the server side), a final line without its newline is still delivered.
  const plain = delivered();
  const lenient = new NdjsonLineReader(plain.receiver, undefined);
  lenient.push(utf8.encode('{"jsonrpc":"2.0","method":"b"}'));
  lenient.end();
  assert.deepEqual(plain.seen, ['message {"jsonrpc":"2.0","method":"b"}']);
});
