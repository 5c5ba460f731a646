import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from './errors.js';
import { encodeMessage, encodeMessageParts, parseMessage, preEncode, resultResponse } from './parse.js';

test('parses a request, a notification and both kinds of response', () => {
  for (const text of [
    '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}',
  ]) {
    assert.equal(parseMessage(text).kind, 'message', text);
  }
});

test('malformed JSON is a -32700 error with id null', () => {
  const parsed = parseMessage('{"jsonrpc":');
  assert.equal(parsed.kind, 'invalid');
  if (parsed.kind === 'invalid') {
    assert.equal(parsed.error.error.code, ErrorCode.ParseError);
    assert.equal(parsed.error.id, null);
  }
});

test('bad envelopes are -32600 and keep a readable id', () => {
  const cases: [string, string | number | null][] = [
    ['{"jsonrpc":"1.0","id":7,"method":"ping"}', 7],
    ['{"jsonrpc":"2.0","id":7}', 7],
    ['{"jsonrpc":"2.0","id":7,"method":5}', 7],
    ['{"jsonrpc":"2.0","id":7,"method":"x","params":[1]}', 7],
    ['{"jsonrpc":"2.0","id":1.5,"method":"x"}', null],
    ['{"jsonrpc":"2.0","id":null,"method":"x"}', null],
    ['42', null],
  ];
  for (const [text, id] of cases) {
    const parsed = parseMessage(text);
    assert.equal(parsed.kind, 'invalid', text);
    if (parsed.kind === 'invalid') {
      assert.equal(parsed.error.error.code, ErrorCode.InvalidRequest, text);
      assert.equal(parsed.error.id, id, text);
    }
  }
});

test('an array is reported as a batch', () => {
  const parsed = parseMessage('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
  assert.equal(parsed.kind, 'batch');
});

test('a pre-encoded result is spliced as text and shared as bytes, both equal to plain serialisation', () => {
  const result = preEncode({ tools: [{ name: 'héllo ☃', inputSchema: { type: 'object' } }] });
  assert.ok(Object.isFrozen(result));
  for (const id of [7, 'abc"\\']) {
    const message = { jsonrpc: '2.0' as const, id, result };
    const plain = JSON.stringify(message);
    assert.equal(encodeMessage(message), plain);
    const parts = encodeMessageParts(message, '\n');
    assert.ok(Array.isArray(parts));
    const [head, bytes, tail] = parts as readonly [string, Uint8Array, string];
    assert.equal(head + new TextDecoder().decode(bytes) + tail, `${plain}\n`);
  }
  const first = encodeMessageParts({ jsonrpc: '2.0', id: 1, result }) as readonly [
    string,
    Uint8Array,
    string,
  ];
  const second = encodeMessageParts({ jsonrpc: '2.0', id: 2, result }) as readonly [
    string,
    Uint8Array,
    string,
  ];
  assert.equal(first[1], second[1], 'the bytes are encoded once per result');
});

test('other messages are encoded as one text with the terminator', () => {
  const message = { jsonrpc: '2.0' as const, id: 1, result: { ok: true } };
  assert.equal(encodeMessageParts(message, '\n'), `${JSON.stringify(message)}\n`);
  assert.equal(encodeMessageParts([message]), JSON.stringify([message]));
});

test('a success response made with new is an ordinary object: same prototype, keys, equality and JSON as a literal', () => {
  const result = { content: [{ type: 'text', text: 'hi' }] };
  const made = resultResponse(7, result);
  const literal = { jsonrpc: '2.0', id: 7, result };
  assert.equal(Object.getPrototypeOf(made), Object.prototype);
  assert.deepEqual(Object.keys(made), ['jsonrpc', 'id', 'result']);
  assert.deepStrictEqual(made, literal);
  assert.equal(JSON.stringify(made), JSON.stringify(literal));
  assert.equal(made.result, result);
});
