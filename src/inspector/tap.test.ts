import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TrafficEntry, TrafficRecorder } from './tap.js';

test('the recorder times responses by their request, sizes every message and cuts large ones', () => {
  const seen: TrafficEntry[] = [];
  let seq = 0;
  const recorder = new TrafficRecorder(
    (e) => seen.push(e),
    () => ++seq,
  );
  recorder.record('out', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  recorder.record('in', { jsonrpc: '2.0', id: 7, method: 'roots/list' });
  recorder.record('in', { jsonrpc: '2.0', id: 1, result: { tools: [] } });
  recorder.record('out', { jsonrpc: '2.0', id: 7, result: { roots: [] } });
  recorder.record('in', {
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { data: 'x'.repeat(300_000) },
  });
  recorder.record('in', { jsonrpc: '2.0', id: 99, error: { code: -1, message: 'no request' } });
  assert.deepEqual(
    seen.map((e) => [e.seq, e.dir, e.kind, e.method, e.id, typeof e.ms]),
    [
      [1, 'out', 'request', 'tools/list', 1, 'undefined'],
      [2, 'in', 'request', 'roots/list', 7, 'undefined'],
      [3, 'in', 'response', 'tools/list', 1, 'number'],
      [4, 'out', 'response', 'roots/list', 7, 'number'],
      [5, 'in', 'notification', 'notifications/message', undefined, 'undefined'],
      [6, 'in', 'error', undefined, 99, 'undefined'],
    ],
  );
  assert.equal(seen[0]?.size, Buffer.byteLength('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'));
  assert.equal(seen[4]?.truncated, true);
  assert.equal(typeof seen[4]?.message, 'string');
  assert.ok((seen[4]?.size ?? 0) > 300_000);
});
