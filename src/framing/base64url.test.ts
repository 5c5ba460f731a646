import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeBase64url,
  decodeBase64urlText,
  encodeBase64url,
  encodeBase64urlText,
  randomBase64url,
} from './base64url.js';

/** The reference encoding: standard base64 through btoa, made url-safe and unpadded. */
function reference(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '');
}

test('RFC 4648 test vectors (unpadded, url alphabet)', () => {
  const vectors: [string, string][] = [
    ['', ''],
    ['f', 'Zg'],
    ['fo', 'Zm8'],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg'],
    ['fooba', 'Zm9vYmE'],
    ['foobar', 'Zm9vYmFy'],
  ];
  for (const [text, encoded] of vectors) {
    assert.equal(encodeBase64urlText(text), encoded);
    assert.equal(decodeBase64urlText(encoded), text);
  }
  assert.equal(encodeBase64url(new Uint8Array([0xfb, 0xff, 0xbf])), '-_-_');
  assert.deepEqual(decodeBase64url('-_-_'), new Uint8Array([0xfb, 0xff, 0xbf]));
});

test('random bytes of every length up to 100 (and a large buffer) round-trip and match btoa', () => {
  for (let length = 0; length <= 100; length++) {
    for (let round = 0; round < 20; round++) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      const encoded = encodeBase64url(bytes);
      assert.equal(encoded, reference(bytes));
      assert.match(encoded, /^[A-Za-z0-9_-]*$/);
      assert.deepEqual(decodeBase64url(encoded), bytes);
    }
  }
  const large = new Uint8Array(200_000);
  for (let i = 0; i < large.length; i += 65_536) crypto.getRandomValues(large.subarray(i, i + 65_536));
  const encoded = encodeBase64url(large);
  assert.equal(encoded, reference(large));
  assert.deepEqual(decodeBase64url(encoded), large);
});

test('every byte value survives, and text round-trips through UTF-8', () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.deepEqual(decodeBase64url(encodeBase64url(all)), all);
  for (const text of ['météo', '世界', '🙂 emoji', 'mcpkit:42', '']) {
    assert.equal(decodeBase64urlText(encodeBase64urlText(text)), text);
  }
});

test('malformed input is refused, never thrown', () => {
  for (const bad of [
    'A', // a length of 1 mod 4 cannot come from any byte count
    'Zm9vY',
    'Zm9v+g', // the standard alphabet is not base64url
    'Zm9v/g',
    'Zg==', // padding is not produced, so not accepted
    'Zm9vYg=',
    'Zm 9v',
    'Zm9v\n',
    'Zm9vé',
    '\u0000AAA',
    'Zh', // leftover bits set: not a canonical encoding of "f"
    'Zm9', // idem for "fo"
  ]) {
    assert.equal(decodeBase64url(bad), undefined, JSON.stringify(bad));
  }
  // Valid base64url of bytes that are not UTF-8.
  assert.equal(decodeBase64urlText(encodeBase64url(new Uint8Array([0xff, 0xfe]))), undefined);
});

test('randomBase64url: the length of the byte count, and no repeats', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const id = randomBase64url(16);
    assert.equal(id.length, 22);
    seen.add(id);
  }
  assert.equal(seen.size, 1000);
  assert.equal(randomBase64url(6).length, 8);
});
