import { connect } from 'node:net';
import fc from 'fast-check';
import { type RunningServer, serve } from '../../src/node.js';
import { fuzzServer } from './http-target.js';
import { cutBytes, expect, type FuzzTarget } from './target.js';

/** One raw HTTP/1.1 request, written in pieces over a real socket. */
export interface SocketInput {
  method: string;
  path: string;
  headers: [string, string][];
  body: string;
  framing: 'length' | 'chunked' | 'none' | 'short-length';
  cuts: number[];
}

const odd = fc.string({ unit: 'binary', maxLength: 16 });
const pick = <T>(values: T[]) =>
  fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: odd });

const arbitrary: fc.Arbitrary<SocketInput> = fc.record({
  method: pick(['POST', 'POST', 'POST', 'GET', 'DELETE', 'OPTIONS', 'PUT']),
  path: pick([
    '/mcp',
    '/mcp?x=1',
    '/sse',
    '/messages?sessionId=x',
    '/',
    '/.well-known/oauth-protected-resource',
    '//mcp',
  ]),
  headers: fc.array(
    fc.tuple(
      pick([
        'content-type',
        'accept',
        'mcp-session-id',
        'mcp-protocol-version',
        'origin',
        'last-event-id',
        'transfer-encoding',
        'expect',
      ]),
      pick([
        'application/json',
        'application/json, text/event-stream',
        'text/event-stream',
        '2025-11-25',
        '2026-07-28',
        'http://evil.example',
        '100-continue',
        'chunked',
      ]),
    ),
    { maxLength: 6 },
  ),
  body: fc.oneof(
    fc.constant(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}',
    ),
    fc.constant(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}',
    ),
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
    fc.string({ unit: 'binary', maxLength: 48 }),
  ),
  framing: fc.constantFrom('length', 'length', 'chunked', 'none', 'short-length'),
  cuts: fc.array(fc.nat({ max: 600 }), { maxLength: 8 }),
});

function rawRequest(input: SocketInput): Uint8Array {
  const body = Buffer.from(input.body);
  let head = `${input.method} ${input.path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n`;
  for (const [name, value] of input.headers) head += `${name}: ${value}\r\n`;
  let payload: Buffer = body;
  if (input.framing === 'length') head += `content-length: ${body.length}\r\n`;
  else if (input.framing === 'short-length') head += `content-length: ${body.length + 7}\r\n`;
  else if (input.framing === 'chunked') {
    head += 'transfer-encoding: chunked\r\n';
    payload = Buffer.concat([
      Buffer.from(`${body.length.toString(16)}\r\n`),
      body,
      Buffer.from('\r\n0\r\n\r\n'),
    ]);
  }
  return Buffer.concat([Buffer.from(`${head}\r\n`), payload]);
}

const HANG_MS = 5_000;
let running: RunningServer | undefined;

/**
 * Raw HTTP/1.1 requests over a real socket, cut into pieces written one by one, then half-closed: random methods,
 * paths, headers (header injection included), bodies and framings (length, chunked, none, a length longer than the
 * body). Each gets a well-formed status line, or the connection closed, within 5 s, and the server lives on.
 */
export const httpSocket: FuzzTarget<SocketInput> = {
  name: 'http-socket',
  weight: 0.25,
  arbitrary,
  async setup() {
    running = await serve(fuzzServer([]), { port: 0, maxBodyBytes: 64 * 1024, keepAliveMs: 0 });
  },
  async teardown() {
    await running?.close();
    running = undefined;
  },
  async check(input) {
    if (running === undefined) await this.setup?.();
    const port = Number(new URL(running!.url).port);
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer and no close within ${HANG_MS} ms`)), HANG_MS);
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => {
          received += chunk;
          // A stream that stays open (SSE) has answered once its headers are in.
          if (/\r\n\r\n/.test(received) && /content-type: text\/event-stream/i.test(received)) resolve();
        });
        socket.on('close', () => resolve());
        socket.on('error', () => resolve());
        socket.on('connect', async () => {
          for (const piece of cutBytes(rawRequest(input), input.cuts)) {
            if (socket.destroyed) return;
            socket.write(piece);
            await new Promise((r) => setImmediate(r));
          }
          socket.end();
        });
      });
    } finally {
      clearTimeout(timer);
      socket.destroy();
    }
    if (received === '') return; // closed without an answer: allowed for a request that never completed
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(received);
    expect(status !== null, `not an HTTP response: ${JSON.stringify(received.slice(0, 120))}`);
    const code = Number(status[1]);
    expect(code >= 100 && code <= 599, `status ${code}`);
  },
};
