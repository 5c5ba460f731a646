import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { test } from 'node:test';
import { ErrorCode, McpkitError } from '../jsonrpc/errors.js';
import type { Parsed } from '../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { TransportReceiver } from '../protocol/transport.js';
import { StdioServerTransport } from './stdio-server.js';

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

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text += chunk;
  });
  return () => text;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

test('reads CRLF and LF lines, writes one line per message', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const output = collect(stdout);
  const transport = new StdioServerTransport({ stdin, stdout });
  const r = recorder();
  await transport.start(r);
  stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n{"jsonrpc":"2.0",');
  stdin.write('"method":"notifications/initialized"}\n\n');
  await tick();
  assert.deepEqual(r.messages, [
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  ]);
  await transport.send({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb' } });
  await tick();
  assert.equal(output(), '{"jsonrpc":"2.0","id":1,"result":{"text":"a\\nb"}}\n');
  await transport.close();
});

test('a non-JSON line goes to oninvalid and later lines still arrive', async () => {
  const stdin = new PassThrough();
  const transport = new StdioServerTransport({ stdin, stdout: new PassThrough() });
  const r = recorder();
  await transport.start(r);
  stdin.write('hello, I am not JSON\n{"jsonrpc":"2.0","method":"x"}\n');
  await tick();
  assert.equal(r.invalid.length, 1);
  const [bad] = r.invalid;
  assert.equal(bad?.kind === 'invalid' && bad.error.error.code, ErrorCode.ParseError);
  assert.equal(r.messages.length, 1);
  await transport.close();
});

test('an oversized line is reported once, and the next message is still delivered', async () => {
  const stdin = new PassThrough();
  const transport = new StdioServerTransport({ stdin, stdout: new PassThrough(), maxMessageBytes: 100 });
  const r = recorder();
  await transport.start(r);
  const big = `{"jsonrpc":"2.0","method":"x","params":{"s":"${'a'.repeat(1000)}"}}`;
  for (let i = 0; i < big.length; i += 64) stdin.write(big.slice(i, i + 64));
  stdin.write('\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  await tick();
  assert.equal(r.invalid.length, 1);
  assert.deepEqual(r.invalid[0], {
    kind: 'invalid',
    error: {
      jsonrpc: '2.0',
      id: null,
      error: { code: ErrorCode.InvalidRequest, message: 'Message exceeds the maximum size of 100 bytes' },
    },
  });
  assert.equal(r.errors.length, 1);
  assert.ok(r.errors[0] instanceof McpkitError);
  assert.equal(r.errors[0].code, 'MESSAGE_TOO_LARGE');
  assert.deepEqual(r.messages, [{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  await transport.close();
});

test('writes wait for drain on a slow stdout, without loss or reordering', async () => {
  const highWaterMark = 256;
  const received: string[] = [];
  let maxBuffered = 0;
  const stdout = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      received.push(chunk.toString('utf8'));
      setTimeout(callback, 1);
    },
  });
  let drains = 0;
  stdout.on('drain', () => drains++);
  const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
  await transport.start(recorder());
  const resolved: number[] = [];
  const sends: Promise<void>[] = [];
  const count = 60;
  for (let i = 0; i < count; i++) {
    sends.push(
      transport.send({ jsonrpc: '2.0', method: 'n', params: { i } }).then(() => void resolved.push(i)),
    );
    maxBuffered = Math.max(maxBuffered, stdout.writableLength);
  }
  await Promise.all(sends);
  await transport.close();
  const lines = received.join('').split('\n').filter(Boolean);
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).params.i),
    Array.from({ length: count }, (_, i) => i),
  );
  assert.deepEqual(
    resolved,
    [...resolved].sort((a, b) => a - b),
    'sends resolve in order',
  );
  assert.ok(drains > 0, 'the stream asked us to wait');
  const lineSize = lines[0]!.length + 1;
  assert.ok(maxBuffered <= highWaterMark + lineSize, `stream buffer stayed bounded (${maxBuffered})`);
});

test('stdin end closes once; close() flushes queued messages and leaves stdout open', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough({ highWaterMark: 16 });
  const transport = new StdioServerTransport({ stdin, stdout });
  const r = recorder();
  await transport.start(r);
  const sends = [1, 2, 3].map((i) => transport.send({ jsonrpc: '2.0', method: 'n', params: { i } }));
  const output = collect(stdout);
  stdin.end('{"jsonrpc":"2.0","method":"last"}');
  await r.closed;
  await Promise.all(sends);
  await transport.close();
  assert.deepEqual(r.closes, [undefined]);
  assert.deepEqual(
    r.messages,
    [{ jsonrpc: '2.0', method: 'last' }],
    'an unterminated final line is delivered',
  );
  assert.equal(output().split('\n').filter(Boolean).length, 3);
  assert.equal(stdout.writableEnded, false);
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), (e: unknown) => {
    return e instanceof McpkitError && e.code === 'CONNECTION_CLOSED';
  });
});

test('close() before start and send before start', async () => {
  const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout: new PassThrough() });
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), (e: unknown) => {
    return e instanceof McpkitError && e.code === 'NOT_CONNECTED';
  });
  await transport.close();
  await assert.rejects(transport.start(recorder()), (e: unknown) => e instanceof McpkitError);
});

test('a stdout error closes the transport with that error', async () => {
  const stdout = new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
  });
  const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
  const r = recorder();
  await transport.start(r);
  await transport.send({ jsonrpc: '2.0', method: 'x' });
  await r.closed;
  assert.equal(r.closes.length, 1);
  assert.match(String(r.closes[0]?.message), /EPIPE/);
});
