import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import { SessionTable } from './session-table.js';
import { HttpSessionTransport } from './session-transport.js';
import type { StreamSettings } from './stream-settings.js';

const SETTINGS: StreamSettings = {
  responseMode: 'json',
  retryMs: 1000,
  keepAliveMs: 0,
  eventStore: undefined,
  resumable: false,
};

/** A started session transport whose receiver never answers (a POSTed request keeps it busy). */
async function session(id: string): Promise<HttpSessionTransport> {
  const transport = new HttpSessionTransport(id, id, SETTINGS);
  await transport.start({
    onmessage: () => {},
    oninvalid: () => {},
    onerror: () => {},
    onclose: () => {},
    onend: () => {},
  });
  return transport;
}

/** Makes a session busy: a request on it waits for an answer that never comes. */
function busy(transport: HttpSessionTransport): void {
  const request: JsonRpcMessage = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } };
  void transport.post([request], false, {});
  assert.equal(transport.activeStreams, 1);
}

test('SessionTable: a full table evicts the least recently used session, and a lookup counts as a use', async () => {
  const table = new SessionTable({ maxSessions: 3, idleTimeoutMs: 60_000 });
  const [a, b, c, d, e] = await Promise.all(['a', 'b', 'c', 'd', 'e'].map(session));
  assert.ok(a && b && c && d && e);
  assert.ok(table.add('a', a));
  assert.ok(table.add('b', b));
  assert.ok(table.add('c', c));
  assert.equal(table.get('a'), a);
  assert.ok(table.add('d', d));
  assert.equal(b.closed, true, 'b was the least recently used');
  assert.equal(table.peek('b'), undefined);
  assert.equal(table.size, 3);
  // Now c is the oldest, then a, then d; a busy c is passed over.
  busy(c);
  assert.ok(table.add('e', e));
  assert.equal(c.closed, false);
  assert.equal(a.closed, true);
  assert.deepEqual(
    ['a', 'b', 'c', 'd', 'e'].map((id) => table.peek(id) !== undefined),
    [false, false, true, true, true],
  );
  await table.closeAll();
  assert.equal(table.size, 0);
  assert.ok([c, d, e].every((t) => t.closed));
});

test('SessionTable: a full table of busy sessions takes no more', async () => {
  const table = new SessionTable({ maxSessions: 2, idleTimeoutMs: 60_000 });
  const [a, b, c] = await Promise.all(['a', 'b', 'c'].map(session));
  assert.ok(a && b && c);
  table.add('a', a);
  table.add('b', b);
  busy(a);
  busy(b);
  assert.equal(table.add('c', c), false);
  assert.equal(table.size, 2);
  await table.closeAll();
});

test('SessionTable: idle sessions expire on lookup and on sweep; a busy one is kept and counts as used then', async () => {
  const table = new SessionTable({ maxSessions: 10, idleTimeoutMs: 1000 });
  const [a, b, c, d] = await Promise.all(['a', 'b', 'c', 'd'].map(session));
  assert.ok(a && b && c && d);
  const t0 = Date.now();
  for (const [id, t] of [
    ['a', a],
    ['b', b],
    ['c', c],
    ['d', d],
  ] as const)
    table.add(id, t);
  // Used at t0 + 500: d no longer expires with the others.
  assert.equal(table.get('d', t0 + 500), d);
  // Looked up past its idle time: closed and gone.
  assert.equal(table.get('a', t0 + 1200), undefined);
  assert.equal(a.closed, true);
  assert.equal(table.size, 3);
  busy(c);
  table.sweep(t0 + 1200);
  assert.equal(b.closed, true);
  assert.equal(c.closed, false, 'busy: kept');
  assert.equal(d.closed, false, 'used at t0 + 500');
  assert.equal(table.size, 2);
  // The busy session counts as used at the sweep: d (t0 + 500) is now older than c (t0 + 1200).
  table.sweep(t0 + 1600);
  assert.equal(d.closed, true);
  assert.equal(c.closed, false);
  assert.equal(table.get('c', t0 + 1700), c);
  await table.closeAll();
});

test('SessionTable: a closed session is not found, and delete forgets one without closing it', async () => {
  const table = new SessionTable({ maxSessions: 10, idleTimeoutMs: 60_000 });
  const [a, b, c] = await Promise.all(['a', 'b', 'c'].map(session));
  assert.ok(a && b && c);
  table.add('a', a);
  table.add('b', b);
  table.add('c', c);
  await a.close();
  assert.equal(table.get('a'), undefined);
  assert.equal(table.size, 2);
  table.delete('b');
  assert.equal(b.closed, false);
  assert.equal(table.get('b'), undefined);
  assert.equal(table.get('c'), c);
  assert.equal(table.size, 1);
  await table.closeAll();
  await b.close();
});
