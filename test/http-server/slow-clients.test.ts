// Slow and greedy clients over real sockets: a thousand connections each trickling a POST body never shut other
// clients out (a POST counts against the load shedder only once its body has arrived), a body that does not arrive
// in time is answered 408, and one address holds a bounded number of connections (past it: 429, then closed).
// Other clients come from another loopback address (127.0.0.2), as they would from another machine.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import type { ServeOptions } from '../../src/node.js';
import {
  type Json,
  legacySession,
  postHeaders,
  type RawResponse,
  readAll,
  responseOf,
  resultText,
  rpcBody,
  Servers,
  toolCall,
  within,
} from './helpers.js';

const servers = new Servers();
after(() => servers.closeAll());

/** Slow-body connections of the flood: past the load shedder's default in-flight cap of 1024. */
const FLOOD = 1030;
/** Another client: another address of the loopback network. */
const OTHER = '127.0.0.2';

/**
 * The soft limit of open files of this process (Linux; Node raises it to the hard limit at start), or undefined
 * where it cannot be read. The flood needs two descriptors a connection: the client's end and the server's.
 */
function openFilesLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s+/)[3];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}
const LIMIT = openFilesLimit();
const TOO_FEW_FILES =
  LIMIT !== undefined && LIMIT < 2 * FLOOD + 512
    ? `needs ${2 * FLOOD + 512} open files, the limit is ${LIMIT}`
    : false;

/** One POST from `localAddress`; the whole reply. */
async function postFrom(
  url: string,
  localAddress: string,
  body: string,
  headers: Record<string, string | undefined>,
): Promise<RawResponse> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v;
  const req = request(url, { method: 'POST', headers: clean, localAddress, agent: false });
  const response = new Promise<Parameters<typeof readAll>[0]>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  req.end(body);
  return readAll(await within(response, `a response to a POST from ${localAddress}`));
}

/** A whole session from `localAddress`: initialize, initialized, three tool calls; the statuses and texts. */
async function sessionFrom(url: string, localAddress: string): Promise<string[]> {
  const seen: string[] = [];
  const init = await postFrom(
    url,
    localAddress,
    rpcBody(0, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'other', version: '1' },
    }),
    { ...postHeaders(undefined), 'mcp-protocol-version': undefined },
  );
  seen.push(`initialize ${init.status}`);
  const sessionId = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sessionId !== 'string') return seen;
  const ack = await postFrom(
    url,
    localAddress,
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    postHeaders(sessionId),
  );
  seen.push(`initialized ${ack.status}`);
  for (let i = 1; i <= 3; i++) {
    const res = await postFrom(
      url,
      localAddress,
      toolCall(i, 'echo', { text: `call ${i}` }),
      postHeaders(sessionId),
    );
    seen.push(`call ${res.status} ${resultText(responseOf(res, i) as Json | undefined)}`);
  }
  return seen;
}

const ANSWERED = [
  'initialize 200',
  'initialized 202',
  'call 200 echo: call 1',
  'call 200 echo: call 2',
  'call 200 echo: call 3',
];

/** The head of a tools/call POST declaring `length` bytes of body. */
function slowHead(port: number, length: number): string {
  return (
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json, text/event-stream\r\n` +
    `Content-Type: application/json\r\nMCP-Protocol-Version: 2025-11-25\r\n` +
    `Content-Length: ${length}\r\n\r\n`
  );
}

/**
 * Opens `count` sockets (bounded loop), each sending a POST head and the first 10 of its 1000 body bytes; `heard`
 * gets the local port of each one the server answered or closed.
 */
async function trickle(port: number, count: number, sockets: Socket[], heard: Set<number>): Promise<void> {
  const opened: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    socket.on('error', () => undefined);
    opened.push(
      new Promise<void>((resolve) => {
        socket.once('connect', () => {
          const local = socket.localPort as number;
          const hear = () => heard.add(local);
          socket.on('data', hear);
          socket.on('close', hear);
          socket.write(`${slowHead(port, 1000)}{"jsonrpc"`, () => resolve());
        });
        socket.once('close', () => resolve());
      }),
    );
  }
  await within(Promise.all(opened), `${count} connections to open`, 30_000);
}

/** Resolves once `done()` holds, polling; fails after `ms`. */
async function until(done: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('slow bodies', () => {
  for (const [label, options] of [
    ['default settings', {}],
    ['no bound per address', { maxConnectionsPerAddress: 0 }],
  ] as const) {
    test(`${label}: ${FLOOD} connections trickling POST bodies shut no other client out (answered, not 503)`, {
      timeout: 60_000,
      skip: TOO_FEW_FILES,
    }, async () => {
      const served = await servers.start(options as ServeOptions);
      // Each slow connection (by its port) whose POST the server has (head read, body awaited) or turned away.
      const reached = new Set<number>();
      served.running.httpServer.on('request', (req: IncomingMessage) => {
        if (req.socket.remoteAddress === '127.0.0.1') reached.add(req.socket.remotePort as number);
      });
      const sockets: Socket[] = [];
      try {
        await trickle(served.port, FLOOD, sockets, reached);
        await until(() => reached.size >= FLOOD, 'every slow connection to reach the server');
        assert.deepEqual(await sessionFrom(served.url, OTHER), ANSWERED);
      } finally {
        for (const socket of sockets) socket.destroy();
      }
    });
  }
});

/** What arrives on `socket` until the server closes it (bounded). */
function heardUntilClosed(socket: Socket, what: string, ms = 5_000): Promise<string> {
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  return within(new Promise<string>((resolve) => socket.once('close', () => resolve(text))), what, ms);
}

/** A socket to `port` from `localAddress`, connected. */
async function opened(port: number, localAddress = '127.0.0.1'): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  socket.on('error', () => undefined);
  await within(
    new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    }),
    `a connection from ${localAddress}`,
  );
  return socket;
}

/** The status and JSON body of a raw HTTP/1.1 response text. */
function statusAndBody(text: string): { status: number; body: Json | undefined } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  try {
    return { status, body: JSON.parse(body) as Json };
  } catch {
    return { status, body: undefined };
  }
}

/** The status of a request for an unrouted path (404 where the connection is served) sent on `socket`. */
async function statusOnce(socket: Socket, port: number): Promise<number> {
  const heard = heardUntilClosed(socket, 'the answer to a GET');
  socket.end(`GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  return statusAndBody(await heard).status;
}

describe('time limits', () => {
  for (const endpoint of ['Streamable HTTP', 'legacy HTTP+SSE'] as const) {
    test(`${endpoint}: a body that has not arrived in bodyTimeoutMs is answered 408, and its connection closed`, async () => {
      const served = await servers.start({ bodyTimeoutMs: 200 });
      const legacy =
        endpoint === 'legacy HTTP+SSE' ? await legacySession(served.running.sseUrl as string) : undefined;
      const socket = await opened(served.port);
      try {
        const heard = heardUntilClosed(socket, 'the 408 and the end of the connection');
        socket.write(`${slowHead(served.port, 1000).replace('/mcp', legacy?.path ?? '/mcp')}{"jsonrpc"`);
        const { status, body } = statusAndBody(await heard);
        assert.equal(status, 408);
        assert.match(
          String((body?.error as Json | undefined)?.message),
          /Request Timeout: the body did not arrive within 200 ms/,
        );
        assert.deepEqual(await sessionFrom(served.url, OTHER), ANSWERED);
      } finally {
        socket.destroy();
        legacy?.stream.destroy();
      }
    });
  }

  test('a request head that does not arrive in headersTimeoutMs is answered 408 by node, and closed', async () => {
    const served = await servers.start({ headersTimeoutMs: 300 });
    const socket = await opened(served.port);
    try {
      const heard = heardUntilClosed(socket, 'the end of a connection whose head never ended');
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\n`);
      assert.equal(statusAndBody(await heard).status, 408);
    } finally {
      socket.destroy();
    }
  });

  test('the time limits are checked when serve() starts', async () => {
    for (const bad of [
      { bodyTimeoutMs: -1 },
      { headersTimeoutMs: Number.NaN },
      { maxConnectionsPerAddress: 1.5 },
    ])
      await assert.rejects(servers.start(bad), RangeError);
  });
});

describe('connections per address', () => {
  test('past maxConnectionsPerAddress a connection is answered 429 at once and closed; other addresses are served', async () => {
    const served = await servers.start({ maxConnectionsPerAddress: 3 });
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 3; i++) held.push(await opened(served.port));
      const extra = await opened(served.port);
      held.push(extra);
      const { status, body } = statusAndBody(
        await heardUntilClosed(extra, 'the refusal of a 4th connection'),
      );
      assert.equal(status, 429);
      assert.match(
        String((body?.error as Json | undefined)?.message),
        /Too Many Requests: this address already has 3 connections open/,
      );
      assert.deepEqual(await sessionFrom(served.url, OTHER), ANSWERED);
      // One closed, and the address may open another (once the server has seen it close).
      (held[0] as Socket).destroy();
      let again = 0;
      for (let attempt = 0; attempt < 100 && again !== 404; attempt++) {
        const socket = await opened(served.port);
        held.push(socket);
        again = await statusOnce(socket, served.port);
        if (again !== 404) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(again, 404, 'a connection of that address is served again');
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  for (const [label, options, refused] of [
    ['by default, the 257th connection of an address is refused', {}, true],
    [
      'with clientAddress (a proxy in front), no bound by default',
      { clientAddress: { header: 'x-forwarded-for' } },
      false,
    ],
  ] as const) {
    test(label, async () => {
      const served = await servers.start(options);
      const held: Socket[] = [];
      try {
        for (let i = 0; i < 256; i++) held.push(await opened(served.port));
        const extra = await opened(served.port);
        held.push(extra);
        assert.equal(await statusOnce(extra, served.port), refused ? 429 : 404);
      } finally {
        for (const socket of held) socket.destroy();
      }
    });
  }
});
