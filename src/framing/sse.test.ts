import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSseEvent, type SseEvent, SseParser } from './sse.js';

function parseAll(chunks: string[]): SseEvent[] {
  const p = new SseParser();
  return chunks.flatMap((c) => p.push(c));
}

test('round-trips events, including multi-line data and priming events', () => {
  const events: SseEvent[] = [
    { id: 's1_0', retry: 500, data: '' },
    { event: 'message', id: 's1_1', data: '{"jsonrpc":"2.0","id":1,"result":{}}' },
    { data: 'line one\nline two' },
    { event: 'endpoint', data: '/messages?sessionId=abc' },
  ];
  const text = events.map(formatSseEvent).join('');
  assert.deepEqual(parseAll([text]), events);
  // Every split point gives the same events.
  for (let i = 0; i <= text.length; i++)
    assert.deepEqual(parseAll([text.slice(0, i), text.slice(i)]), events, `split at ${i}`);
});

test('accepts CRLF and CR line endings, comments, and fields without a space', () => {
  const text = ': keep-alive\r\n\r\nid:7\rdata:x\r\rdata: a\r\ndata: b\r\n\r\n';
  assert.deepEqual(parseAll([text]), [{ id: '7', data: 'x' }, { data: 'a\nb' }]);
  assert.deepEqual(parseAll(['data: y\r', '\ndata: z\r', '\n\r', '\n']), [{ data: 'y\nz' }]);
});

test('ignores a bad retry and an id with NUL; a comment-only block dispatches nothing', () => {
  assert.deepEqual(parseAll(['retry: soon\nid: a\0b\ndata: q\n\n: hi\n\n']), [{ data: 'q' }]);
});

test('an event over the size limit is refused', () => {
  const p = new SseParser({ maxEventChars: 10 });
  assert.throws(() => p.push('data: 0123456789abc\n'), RangeError);
});
