import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, McpkitError } from '../jsonrpc/errors.js';
import type { Parsed } from '../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { TransportReceiver } from '../protocol/transport.js';
import { createLinkedTransports } from './memory.js';

interface Recorder extends TransportReceiver {
  messages: JsonRpcMessage[];
  invalid: Exclude<Parsed, { kind: 'message' }>[];
  errors: Error[];
  closes: (Error | undefined)[];
  closed: Promise<void>;
}

function recorder(): Recorder {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const r: Recorder = {
    messages: [],
    invalid: [],
    errors: [],
    closes: [],
    closed,
    onmessage: (m) => r.messages.push(m),
    oninvalid: (p) => r.invalid.push(p),
    onerror: (e) => r.errors.push(e),
    onclose: (e) => {
      r.closes.push(e);
      resolveClosed();
    },
  };
  return r;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

test('round trip, asynchronously and by reference', async () => {
  const [a, b] = createLinkedTransports();
  const ra = recorder();
  const rb = recorder();
  await a.start(ra);
  await b.start(rb);
  const request: JsonRpcMessage = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const sent = a.send(request);
  assert.equal(rb.messages.length, 0, 'delivery is asynchronous');
  await sent;
  await tick();
  assert.equal(rb.messages[0], request);
  await b.send({ jsonrpc: '2.0', id: 1, result: {} });
  await tick();
  assert.deepEqual(ra.messages, [{ jsonrpc: '2.0', id: 1, result: {} }]);
});

test('order is preserved, including messages sent before the peer started', async () => {
  const [a, b] = createLinkedTransports();
  await a.start(recorder());
  for (let i = 0; i < 5; i++) await a.send({ jsonrpc: '2.0', method: 'n', params: { i } });
  const rb = recorder();
  await b.start(rb);
  for (let i = 5; i < 10; i++) await a.send({ jsonrpc: '2.0', method: 'n', params: { i } });
  await tick();
  assert.deepEqual(
    rb.messages.map((m) => ('params' in m ? m.params?.i : undefined)),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
});

test('close on either side closes both once; messages sent before close arrive first', async () => {
  const [a, b] = createLinkedTransports();
  const ra = recorder();
  const rb = recorder();
  await a.start(ra);
  await b.start(rb);
  await a.send({ jsonrpc: '2.0', method: 'last' });
  await a.close();
  await a.close();
  await b.close();
  await Promise.all([ra.closed, rb.closed]);
  await tick();
  assert.deepEqual(ra.closes, [undefined]);
  assert.deepEqual(rb.closes, [undefined]);
  assert.equal(rb.messages.length, 1);
  for (const end of [a, b]) {
    await assert.rejects(end.send({ jsonrpc: '2.0', method: 'x' }), (e: unknown) => {
      return e instanceof McpkitError && e.code === 'CONNECTION_CLOSED';
    });
  }
  await assert.rejects(
    a.start(recorder()),
    (e: unknown) => e instanceof McpkitError && e.code === 'ALREADY_CONNECTED',
  );
});

test('sendRaw goes through parseMessage: bad JSON, bad envelope and batches reach oninvalid', async () => {
  const [a, b] = createLinkedTransports();
  const rb = recorder();
  await a.start(recorder());
  await b.start(rb);
  await a.sendRaw('{"jsonrpc":');
  await a.sendRaw('{"jsonrpc":"1.0","id":3,"method":"x"}');
  await a.sendRaw('[{"jsonrpc":"2.0","method":"x"}]');
  await a.sendRaw('{"jsonrpc":"2.0","method":"ok"}');
  await tick();
  assert.equal(rb.invalid.length, 3);
  const [parse, envelope, batch] = rb.invalid;
  assert.equal(parse?.kind === 'invalid' && parse.error.error.code, ErrorCode.ParseError);
  assert.equal(envelope?.kind === 'invalid' && envelope.error.id, 3);
  assert.equal(batch?.kind, 'batch');
  assert.deepEqual(rb.messages, [{ jsonrpc: '2.0', method: 'ok' }]);
});

test('serialize mode delivers a copy and batches as oninvalid', async () => {
  const [a, b] = createLinkedTransports({ serialize: true });
  const rb = recorder();
  await a.start(recorder());
  await b.start(rb);
  const message: JsonRpcMessage = { jsonrpc: '2.0', method: 'n', params: { when: undefined, n: 1 } };
  await a.send(message);
  await a.send([{ jsonrpc: '2.0', id: 1, result: {} }]);
  await tick();
  assert.notEqual(rb.messages[0], message);
  assert.deepEqual(rb.messages[0], { jsonrpc: '2.0', method: 'n', params: { n: 1 } });
  assert.equal(rb.invalid[0]?.kind, 'batch');
});

test('a receiver that throws is reported through onerror', async () => {
  const [a, b] = createLinkedTransports();
  const rb = recorder();
  rb.onmessage = () => {
    throw new Error('boom');
  };
  await a.start(recorder());
  await b.start(rb);
  await a.send({ jsonrpc: '2.0', method: 'x' });
  await tick();
  assert.equal(rb.errors.length, 1);
  assert.equal((rb.errors[0] as McpkitError).code, 'TRANSPORT_ERROR');
});
