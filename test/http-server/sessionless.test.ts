// A stateful-era POST to a Streamable HTTP endpoint without sessions (`sessions: false`) is answered the way a
// 2026-07-28 request is: dispatched directly, with no session, transport or Peer made for it (issue 23).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, test } from 'node:test';
import { z } from 'zod';
import { createStreamableHttpHandler, McpServer, type SessionInfo, toFetchHandler } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { eventually, post, responseOf, resultOf, resultText, rpcBody, TEST_TIMEOUT } from './helpers.js';

const T = { timeout: TEST_TIMEOUT };
const running: RunningServer[] = [];
after(() => Promise.all(running.map((r) => r.close())));

/** What a handler saw: the server's sessions while it ran, and the session its context names. */
interface Seen {
  sessions: number;
  transient: boolean | undefined;
  version: string;
  id: string | null;
}

/** A server whose `probe` tool answers what it saw, whose `wait` tool runs until aborted, and who was ended. */
class Probed extends McpServer {
  readonly ended: SessionInfo[] = [];
  readonly roots: number[] = [];
  readonly waited: string[] = [];
  started = false;

  constructor() {
    super(
      { name: 'sessionless', version: '1' },
      { onRootsListChanged: () => this.roots.push(this.sessions.size) },
    );
    this.tool('probe', {}, (_args, ctx) => {
      const seen: Seen = {
        sessions: this.sessions.size,
        transient: ctx.session.transient,
        version: ctx.session.protocolVersion,
        id: ctx.session.id ?? null,
      };
      return JSON.stringify(seen);
    });
    this.tool('wait', {}, async (_args, ctx) => {
      this.started = true;
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      this.waited.push(`aborted: ${String(ctx.signal.reason)}`);
      return 'late';
    });
    this.resource('test://r', { name: 'r' }, () => 'r');
  }

  /** @internal */
  override sessionEnded(session: SessionInfo): void {
    super.sessionEnded(session);
    this.ended.push(session);
  }
}

async function start(
  options: { responseMode?: 'json' | 'sse' } = {},
): Promise<{ server: Probed; url: string }> {
  const server = new Probed();
  const served = await serve(server, { sessions: false, legacySse: false, ...options });
  running.push(served);
  return { server, url: served.url };
}

const call = (id: number, name: string) => rpcBody(id, 'tools/call', { name, arguments: {} });

test(
  'a request makes no session: the server holds none while it runs, and its handler sees its revision',
  T,
  async () => {
    const { server, url } = await start();
    const reply = await post(url, undefined, call(1, 'probe'), { 'mcp-protocol-version': '2025-06-18' });
    assert.equal(reply.status, 200);
    const seen = JSON.parse(resultText(responseOf(reply, 1))) as Seen;
    assert.deepEqual(seen, { sessions: 0, transient: true, version: '2025-06-18', id: null });
    assert.equal(server.sessions.size, 0);
  },
);

test('a 2025-03-26 batch is answered in one reply, every request without a session', T, async () => {
  for (const responseMode of ['json', 'sse'] as const) {
    const { url } = await start({ responseMode });
    const body = `[${call(1, 'probe')},${rpcBody(2, 'resources/read', { uri: 'test://r' })}]`;
    const reply = await post(url, undefined, body, { 'mcp-protocol-version': '2025-03-26' });
    assert.equal(reply.status, 200, responseMode);
    const seen = JSON.parse(resultText(responseOf(reply, 1))) as Seen;
    assert.deepEqual(seen, { sessions: 0, transient: true, version: '2025-03-26', id: null }, responseMode);
    assert.ok(responseOf(reply, 2)?.result !== undefined, responseMode);
  }
});

test('notifications alone reach the server at once (202) without a session', T, async () => {
  const { server, url } = await start();
  const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
  const reply = await post(url, undefined, note, { 'mcp-protocol-version': '2025-06-18' });
  assert.equal(reply.status, 202);
  assert.deepEqual(server.roots, [0]);
});

test('a batch of notifications alone is delivered at once (202)', T, async () => {
  const { server, url } = await start();
  const note = { jsonrpc: '2.0', method: 'notifications/roots/list_changed' };
  const reply = await post(url, undefined, JSON.stringify([note, note]), {
    'mcp-protocol-version': '2025-03-26',
  });
  assert.equal(reply.status, 202);
  assert.deepEqual(server.roots, [0, 0]);
});

test(
  'what a request held (a subscription) ends with it: the server is told, as of a session that closed',
  T,
  async () => {
    const { server, url } = await start();
    const reply = await post(url, undefined, rpcBody(1, 'resources/subscribe', { uri: 'test://r' }), {
      'mcp-protocol-version': '2025-06-18',
    });
    assert.deepEqual(resultOf(reply, 1), {});
    assert.equal(server.ended.length, 1);
    assert.equal(server.ended[0]?.transient, true);
  },
);

test('closing the endpoint ends a request still at work: 503, its handler aborted', T, async () => {
  const server = new Probed();
  const endpoint = createStreamableHttpHandler(server, { sessions: false });
  const pending = toFetchHandler(endpoint)(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-06-18',
      },
      body: call(1, 'wait'),
    }),
  );
  await eventually(() => server.started, 'the handler to start');
  await endpoint.close();
  const reply = await pending;
  assert.equal(reply.status, 503);
  assert.equal(((await reply.json()) as { error?: { message?: string } }).error?.message, 'Server closing');
  // The handler saw its signal abort; its late answer went nowhere.
  await eventually(() => server.waited.length === 1, 'the handler to end');
  assert.deepEqual(server.waited, ['aborted: server closing']);
});

test('a body that arrives in pieces, a character split between two of them, is read whole', T, async () => {
  const server = new McpServer({ name: 'pieces', version: '1' });
  server.tool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => text);
  const served = await serve(server, { sessions: false, legacySse: false, responseMode: 'json' });
  running.push(served);
  const text = `piece ✓ ${'x'.repeat(3000)} ✓ end`;
  const body = Buffer.from(rpcBody(1, 'tools/call', { name: 'echo', arguments: { text } }));
  const tick = body.indexOf('✓'); // its 3 bytes go out in two writes
  const port = new URL(served.url).port;
  const socket = connect({ host: '127.0.0.1', port: Number(port) });
  socket.on('error', () => undefined);
  let heard = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    heard += chunk;
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  try {
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    for (const piece of [body.subarray(0, tick + 1), body.subarray(tick + 1, 2000), body.subarray(2000)]) {
      socket.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await closed;
  } finally {
    socket.destroy();
  }
  assert.match(heard, /^HTTP\/1\.1 200 /);
  const reply = JSON.parse(heard.slice(heard.indexOf('\r\n\r\n') + 4)) as {
    result?: { content?: { text?: string }[] };
  };
  assert.equal(reply.result?.content?.[0]?.text, text);
});
