import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpkitError } from '../jsonrpc/errors.js';
import { encodeNdjson, NdjsonDecoder, type NdjsonDecoderOptions, type NdjsonItem } from './ndjson.js';

const utf8 = new TextEncoder();
const LF_BYTE = 0x0a;

function decodeAll(chunks: Uint8Array[], options?: NdjsonDecoderOptions): NdjsonItem[] {
  const decoder = new NdjsonDecoder(options);
  const out: NdjsonItem[] = [];
  for (const chunk of chunks) out.push(...decoder.push(chunk));
  out.push(...decoder.end());
  return out;
}

/** A deterministic pseudo-random generator so failures reproduce. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function splitRandomly(bytes: Uint8Array, next: () => number, maxPiece: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const size = 1 + Math.floor(next() * maxPiece);
    chunks.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return chunks;
}

test('several messages in one chunk, CRLF and empty lines', () => {
  const out = decodeAll([utf8.encode('{"a":1}\n\n{"b":2}\r\n\r\n{"c":3}\n')]);
  assert.deepEqual(out, ['{"a":1}', '{"b":2}', '{"c":3}']);
});

test('CR at the end of one chunk and LF at the start of the next', () => {
  assert.deepEqual(decodeAll([utf8.encode('{"a":1}\r'), utf8.encode('\n{"b":2}\r'), utf8.encode('\n')]), [
    '{"a":1}',
    '{"b":2}',
  ]);
});

test('multi-byte UTF-8 split across chunks, and Node Buffers', () => {
  const text = '{"t":"héllo ✓ 𝄞 日本"}\n';
  const bytes = utf8.encode(text);
  for (let cut = 1; cut < bytes.length; cut++) {
    const out = decodeAll([Buffer.from(bytes.subarray(0, cut)), Buffer.from(bytes.subarray(cut))]);
    assert.deepEqual(out, [text.trimEnd()], `cut at ${cut}`);
  }
});

test('a final line without a newline is returned by end()', () => {
  assert.deepEqual(decodeAll([utf8.encode('{"a":1}\n{"b"'), utf8.encode(':2}')]), ['{"a":1}', '{"b":2}']);
});

test('random chunk splits give the same lines', () => {
  const next = random(42);
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    lines.push(JSON.stringify({ i, s: 'x'.repeat(Math.floor(next() * 500)), u: 'é✓𝄞'.repeat(i % 7) }));
  }
  const bytes = utf8.encode(lines.map((l, i) => l + (i % 3 === 0 ? '\r\n' : '\n')).join(''));
  for (const maxPiece of [1, 3, 17, 256, 4096]) {
    assert.deepEqual(decodeAll(splitRandomly(bytes, next, maxPiece)), lines, `pieces up to ${maxPiece}`);
  }
});

test('an oversized line is reported once, dropped, and the next line still arrives', () => {
  const big = `{"x":"${'a'.repeat(100)}"}`;
  const input = utf8.encode(`{"a":1}\n${big}\n{"b":2}\n`);
  for (const maxPiece of [1, 7, 1000]) {
    const out = decodeAll(splitRandomly(input, random(maxPiece), maxPiece), { maxMessageBytes: 50 });
    assert.equal(out.length, 3, `pieces up to ${maxPiece}`);
    assert.equal(out[0], '{"a":1}');
    assert.ok(out[1] instanceof McpkitError);
    assert.equal(out[1].code, 'MESSAGE_TOO_LARGE');
    assert.match(out[1].message, /maximum size of 50 bytes/);
    assert.equal(out[2], '{"b":2}');
  }
});

test('the limit counts line content only: exactly the limit passes, with or without CRLF', () => {
  const line = 'x'.repeat(10);
  for (const terminator of ['\n', '\r\n']) {
    const bytes = utf8.encode(line + terminator);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const out = decodeAll([bytes.subarray(0, cut), bytes.subarray(cut)], { maxMessageBytes: 10 });
      assert.deepEqual(out, [line]);
    }
  }
  const over = decodeAll([utf8.encode('x'.repeat(11) + '\r\n')], { maxMessageBytes: 10 });
  assert.equal(over.length, 1);
  assert.ok(over[0] instanceof McpkitError);
});

test('an oversized line is not buffered while it is discarded', () => {
  const decoder = new NdjsonDecoder({ maxMessageBytes: 1024 });
  const chunk = new Uint8Array(4096).fill(0x61);
  const reports = decoder.push(chunk);
  assert.equal(reports.length, 1);
  for (let i = 0; i < 100; i++) assert.deepEqual(decoder.push(chunk), []);
  assert.equal(decoder.stats.copiedBytes, 0);
  assert.deepEqual(decoder.push(utf8.encode('tail\n{"ok":true}\n')), ['{"ok":true}']);
  assert.deepEqual(decoder.end(), []);
});

test('an 8 MiB message in 64 KiB chunks is scanned once and joined once (linear work)', () => {
  const size = 8 * 1024 * 1024;
  const payload = new Uint8Array(size + 1).fill(0x61);
  payload[0] = 0x22;
  payload[size - 1] = 0x22;
  payload[size] = LF_BYTE;
  const decoder = new NdjsonDecoder();
  const out: NdjsonItem[] = [];
  const piece = 64 * 1024;
  for (let offset = 0; offset < payload.length; offset += piece) {
    out.push(...decoder.push(payload.subarray(offset, offset + piece)));
  }
  assert.equal(out.length, 1);
  assert.equal((out[0] as string).length, size);
  const stats = decoder.stats;
  assert.equal(stats.scannedBytes, size + 1, 'every byte is searched for a newline exactly once');
  assert.equal(stats.copiedBytes, size, 'every byte is copied exactly once');
  assert.equal(stats.joins, 1, 'one join per line');
});

test('work stays proportional to input over many split messages', () => {
  const line = utf8.encode(JSON.stringify({ s: 'y'.repeat(10_000) }) + '\n');
  const decoder = new NdjsonDecoder();
  let total = 0;
  let lines = 0;
  for (let i = 0; i < 200; i++) {
    for (const chunk of splitRandomly(line, random(i), 1500)) {
      total += chunk.length;
      lines += decoder.push(chunk).length;
    }
  }
  assert.equal(lines, 200);
  assert.equal(decoder.stats.scannedBytes, total);
  assert.ok(decoder.stats.copiedBytes <= total);
});

test('maxMessageBytes must be a positive integer', () => {
  assert.throws(() => new NdjsonDecoder({ maxMessageBytes: 0 }), RangeError);
  assert.throws(() => new NdjsonDecoder({ maxMessageBytes: 1.5 }), RangeError);
});

test('encodeNdjson writes one line: embedded newlines are escaped by JSON.stringify', () => {
  const line = encodeNdjson({ jsonrpc: '2.0', method: 'x', params: { text: 'a\nb\r\nc' } });
  assert.equal(line.indexOf('\n'), line.length - 1);
  assert.deepEqual(decodeAll([utf8.encode(line)]), [line.slice(0, -1)]);
  assert.deepEqual(JSON.parse(line), { jsonrpc: '2.0', method: 'x', params: { text: 'a\nb\r\nc' } });
});

test('lines decoded a chunk at a time read as each line decoded alone (byte order marks, broken UTF-8, CR, limit)', () => {
  const next = random(24);
  const pieces = [
    '{"a":"é"}',
    '\uFEFF{"bom":1}',
    '\uFEFF\uFEFF{"two":2}',
    '',
    '{"cr":1}\r',
    '{"long":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}',
    '{"emoji":"😀"}',
  ];
  const broken = [0xe2, 0x82]; // a three-byte sequence cut short, right before the newline
  for (let round = 0; round < 200; round++) {
    const lines: Uint8Array[] = [];
    for (let i = 0; i < 1 + Math.floor(next() * 12); i++) {
      const text = utf8.encode(pieces[Math.floor(next() * pieces.length)]!);
      lines.push(next() < 0.15 ? new Uint8Array([...text, ...broken]) : text);
    }
    const bytes = new Uint8Array(lines.reduce((n, l) => n + l.length + 1, 0));
    let offset = 0;
    for (const line of lines) {
      bytes.set(line, offset);
      bytes[offset + line.length] = LF_BYTE;
      offset += line.length + 1;
    }
    const limit = 64;
    // What decoding every line alone gives: a leading BOM dropped, a trailing CR trimmed, empty lines skipped.
    const expected: NdjsonItem[] = [];
    for (const line of lines) {
      const end = line.at(-1) === 0x0d ? line.length - 1 : line.length;
      if (end > limit) expected.push(new McpkitError('MESSAGE_TOO_LARGE', 'x'));
      else if (end > 0) expected.push(new TextDecoder().decode(line.subarray(0, end)));
    }
    const whole = decodeAll([bytes], { maxMessageBytes: limit });
    const split = decodeAll(splitRandomly(bytes, next, 40), { maxMessageBytes: limit });
    const shape = (items: NdjsonItem[]) => items.map((i) => (typeof i === 'string' ? i : i.code));
    assert.deepEqual(shape(whole), shape(expected));
    assert.deepEqual(shape(split), shape(expected));
  }
});
