import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import {
  event,
  INIT,
  INITIALIZED,
  json,
  MockServer,
  mcpHandler,
  message,
  openSse,
  Recorder,
  sleep,
} from '../../../test/http-client/mock-server.js';
import { McpkitError } from '../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import { HttpStatusError } from './shared.js';
import { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from './streamable.js';

const servers: MockServer[] = [];
const transports: StreamableHttpClientTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

async function serve(handler: Parameters<typeof MockServer.start>[0]): Promise<MockServer> {
  const server = await MockServer.start(handler);
  servers.push(server);
  return server;
}

async function open(
  server: MockServer,
  options: StreamableHttpClientTransportOptions = {},
): Promise<{ transport: StreamableHttpClientTransport; rx: Recorder }> {
  const transport = new StreamableHttpClientTransport(server.url, options);
  transports.push(transport);
  const rx = new Recorder();
  await transport.start(rx);
  return { transport, rx };
}

/** Opens a transport and runs the handshake through it. */
async function connected(server: MockServer, options: StreamableHttpClientTransportOptions = {}) {
  const opened = await open(server, options);
  await opened.transport.send(INIT as JsonRpcMessage);
  await opened.rx.response(1);
  await opened.transport.send(INITIALIZED as JsonRpcMessage);
  return opened;
}

const call = (id: number, method = 'tools/call'): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { name: 'x' },
});

describe('StreamableHttpClientTransport: requests and replies', { timeout: 20_000 }, () => {
  test('POSTs with the required headers; session id and protocol version follow the handshake', async () => {
    const server = await serve(mcpHandler({ session: 'sess-1', version: '2025-06-18' }));
    const { transport, rx } = await connected(server);
    await transport.send(call(2, 'tools/list'));
    await rx.response(2);

    const [init, initialized, list] = server.seen('POST');
    assert.equal(init?.headers.accept, 'application/json, text/event-stream');
    assert.equal(init?.headers['content-type'], 'application/json');
    assert.equal(init?.headers['mcp-session-id'], undefined);
    assert.equal(init?.headers['mcp-protocol-version'], undefined);
    for (const later of [initialized, list]) {
      assert.equal(later?.headers['mcp-session-id'], 'sess-1');
      assert.equal(later?.headers['mcp-protocol-version'], '2025-06-18');
    }
    assert.equal(transport.sessionId, 'sess-1');
    assert.equal(transport.protocolVersion, '2025-06-18');
    assert.deepEqual(
      rx.messages.map((m) => m.id),
      [1, 2],
    );
  });

  test('a JSON array reply delivers every message in it', async () => {
    const server = await serve(
      mcpHandler({
        methods: {
          'tools/list': (req, res) =>
            json(res, [
              { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } },
              { jsonrpc: '2.0', id: req.body.id, result: { tools: [] } },
            ]),
        },
      }),
    );
    const { transport, rx } = await connected(server);
    await transport.send(call(2, 'tools/list'));
    await rx.response(2);
    assert.equal(rx.messages.filter((m) => m.method === 'notifications/message').length, 1);
  });

  test('an SSE reply: the priming event is ignored, the rest delivered in order', async () => {
    const server = await serve(
      mcpHandler({
        methods: {
          'tools/call': (req, res) => {
            openSse(res);
            event(res, { id: 'p1', retry: 1000, data: '' });
            message(
              res,
              { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1 } },
              'e1',
            );
            message(res, { jsonrpc: '2.0', id: req.body.id, result: { content: [] } }, 'e2');
            res.end();
          },
        },
      }),
    );
    const { transport, rx } = await connected(server);
    await transport.send(call(2));
    await rx.response(2);
    const after = rx.messages.slice(1);
    assert.deepEqual(
      after.map((m) => m.method ?? `response ${m.id}`),
      ['notifications/message', 'response 2'],
    );
    assert.deepEqual(rx.invalid, []);
    assert.deepEqual(rx.errors, []);
  });

  test('a server request on the POST stream is delivered; the answer is POSTed back', async () => {
    const server = await serve(
      mcpHandler({
        methods: {
          'tools/call': async (req, res) => {
            openSse(res);
            message(res, { jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' }, 'e1');
            const answer = await server.waitFor((r) => r.body?.id === 'srv-1' && 'result' in r.body);
            message(res, { jsonrpc: '2.0', id: req.body.id, result: { echoed: answer.body.result } }, 'e2');
            res.end();
          },
        },
      }),
    );
    const { transport, rx } = await connected(server);
    await transport.send(call(2));
    const request = await rx.waitFor((m) => m.method === 'roots/list');
    await transport.send({ jsonrpc: '2.0', id: request.id, result: { roots: [] } });
    const response = await rx.response(2);
    assert.deepEqual(response.result, { echoed: { roots: [] } });
  });

  test('HTTP errors on a request become error responses (the body error when it has one)', async () => {
    const server = await serve(
      mcpHandler({
        methods: {
          'tools/list': (req, res) =>
            json(
              res,
              { jsonrpc: '2.0', id: req.body.id, error: { code: -32602, message: 'bad params' } },
              {},
              400,
            ),
          'tools/call': (_req, res) => {
            res.writeHead(503, { 'content-type': 'text/plain' });
            res.end('overloaded');
          },
        },
      }),
    );
    const { transport, rx } = await connected(server);
    await transport.send(call(2, 'tools/list'));
    await transport.send(call(3));
    assert.deepEqual((await rx.response(2)).error, { code: -32602, message: 'bad params' });
    const e = (await rx.response(3)).error;
    assert.equal(e.code, -32603);
    assert.match(e.message, /503.*overloaded/);
  });

  test('a refused notification or an unreachable server rejects send()', async () => {
    const server = await serve((req, res) => {
      if (req.body?.method === 'notifications/initialized') res.writeHead(500).end();
      else mcpHandler({ session: 's' })(req, res);
    });
    const { transport, rx } = await open(server);
    await transport.send(INIT as JsonRpcMessage);
    await rx.response(1);
    await assert.rejects(transport.send(INITIALIZED as JsonRpcMessage), (e: unknown) => {
      return e instanceof HttpStatusError && e.status === 500;
    });

    const gone = new StreamableHttpClientTransport('http://127.0.0.1:9/mcp');
    transports.push(gone);
    await gone.start(new Recorder());
    await assert.rejects(
      gone.send(call(1)),
      (e: unknown) => e instanceof McpkitError && e.code === 'TRANSPORT_ERROR',
    );
  });

  test('custom headers (object or per-request function) and a custom fetch are used', async () => {
    const server = await serve(mcpHandler({ session: 's' }));
    let n = 0;
    let fetches = 0;
    const { transport, rx } = await connected(server, {
      headers: () => ({ authorization: `Bearer t${++n}`, 'mcp-session-id': 'spoofed' }),
      fetch: (url, init) => {
        fetches++;
        return fetch(url, init);
      },
    });
    await transport.send(call(2, 'ping'));
    await rx.response(2);
    // The function runs once per request: every request carries its own token.
    const tokens = server.requests.map((r) => r.headers.authorization);
    assert.ok(
      tokens.every((t) => /^Bearer t\d+$/.test(String(t))),
      tokens.join(),
    );
    assert.equal(new Set(tokens).size, server.requests.length);
    // The transport's own headers win over the user's, and one it leaves out is removed.
    const posts = server.seen('POST');
    assert.equal(posts[0]?.headers['mcp-session-id'], undefined);
    assert.equal(posts[2]?.headers['mcp-session-id'], 's');
    assert.equal(fetches, server.requests.length); // 3 POSTs and the GET, all through the custom fetch

    const fixed = await serve(mcpHandler());
    const t2 = await open(fixed, { headers: { 'x-api-key': 'k' } });
    await t2.transport.send(INIT as JsonRpcMessage);
    await t2.rx.response(1);
    assert.equal(fixed.requests[0]?.headers['x-api-key'], 'k');
  });
});

describe('StreamableHttpClientTransport: resumption', { timeout: 30_000 }, () => {
  test("a POST stream closed without the response is resumed by GET after exactly the server's retry", async () => {
    const retry = 500;
    let closedAt = 0;
    const server = await serve(
      mcpHandler({
        session: 's',
        methods: {
          'tools/call': (_req, res) => {
            openSse(res);
            event(res, { id: 'event-7', retry, data: '' });
            setTimeout(() => {
              closedAt = performance.now();
              res.end();
            }, 50);
          },
        },
        get: (req, res) => {
          if (req.headers['last-event-id'] === undefined) {
            res.writeHead(405).end();
            return;
          }
          openSse(res);
          event(res, { id: 'event-8', retry, data: '' });
          message(res, { jsonrpc: '2.0', id: 2, result: { content: [] } }, 'event-9');
        },
      }),
    );
    const { transport, rx } = await connected(server);
    await transport.send(call(2));
    await rx.response(2, 5_000);
    const resume = server.seen('GET').find((r) => r.headers['last-event-id'] !== undefined);
    assert.ok(resume);
    assert.equal(resume.headers['last-event-id'], 'event-7');
    assert.equal(resume.headers['mcp-session-id'], 's');
    const delay = resume.at - closedAt;
    assert.ok(delay >= retry && delay <= retry + 150, `reconnected after ${delay.toFixed(1)} ms`);
    assert.equal(rx.messages.filter((m) => m.id === 2).length, 1);
  });

  test('a stream cut mid-response (twice) resumes from the last event id: nothing lost, nothing twice', async () => {
    // The server's event log for the tools/call stream, replayed after Last-Event-ID as a real server would.
    const log = [
      { id: 'a1', data: '' },
      {
        id: 'a2',
        data: JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 2, progress: 1 },
        }),
      },
      {
        id: 'a3',
        data: JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 2, progress: 2 },
        }),
      },
      {
        id: 'a4',
        data: JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 2, progress: 3 },
        }),
      },
      { id: 'a5', data: JSON.stringify({ jsonrpc: '2.0', id: 2, result: { content: [] } }) },
    ];
    // Each connection sends events up to its cut point, then the socket is destroyed (not a clean end).
    const cuts = [3, 4, 5];
    let connection = 0;
    const replay = (res: import('node:http').ServerResponse, after: string | undefined) => {
      openSse(res);
      const start = after === undefined ? 0 : log.findIndex((e) => e.id === after) + 1;
      const end = cuts[connection++] ?? log.length;
      for (const e of log.slice(start, end)) event(res, e);
      if (end < log.length) setTimeout(() => res.socket?.destroy(), 20);
      else res.end();
    };
    const server = await serve(
      mcpHandler({
        session: 's',
        methods: { 'tools/call': (_req, res) => replay(res, undefined) },
        get: (req, res) => {
          const after = req.headers['last-event-id'];
          if (typeof after !== 'string') res.writeHead(405).end();
          else replay(res, after);
        },
      }),
    );
    const { transport, rx } = await connected(server, { reconnect: { initialDelayMs: 30 } });
    await transport.send(call(2));
    await rx.response(2, 5_000);
    const progress = rx.messages
      .filter((m) => m.method === 'notifications/progress')
      .map((m) => m.params.progress);
    assert.deepEqual(progress, [1, 2, 3]);
    assert.equal(rx.messages.filter((m) => m.id === 2).length, 1);
    const ids = server
      .seen('GET')
      .map((r) => r.headers['last-event-id'])
      .filter((id) => id !== undefined);
    assert.deepEqual(ids, ['a3', 'a4']);
  });

  test('without a retry field, reconnection backs off exponentially and gives up after maxRetries', async () => {
    const server = await serve(
      mcpHandler({
        session: 's',
        methods: {
          'tools/call': (_req, res) => {
            openSse(res);
            event(res, { id: 'x1', data: '' });
            setTimeout(() => res.end(), 10);
          },
        },
        get: (req, res) => {
          if (req.headers['last-event-id'] === undefined) res.writeHead(405).end();
          else res.writeHead(503).end();
        },
      }),
    );
    const { transport, rx } = await connected(server, {
      reconnect: { initialDelayMs: 40, factor: 2, maxRetries: 3, maxDelayMs: 1_000 },
    });
    await transport.send(call(2));
    const response = await rx.response(2, 5_000);
    assert.match(response.error.message, /failed 3 times in a row/);
    const gets = server.seen('GET').filter((r) => r.headers['last-event-id'] === 'x1');
    assert.equal(gets.length, 3);
    const gaps = gets.slice(1).map((g, i) => g.at - (gets[i]?.at ?? 0));
    assert.ok(gaps[0]! >= 80 && gaps[1]! >= 160, `gaps ${gaps.map((g) => g.toFixed(0)).join(', ')}`);
    assert.equal(rx.errors.length, 1);
    await sleep(300);
    assert.equal(server.seen('GET').filter((r) => r.headers['last-event-id'] === 'x1').length, 3);
  });

  test('SSE polling: quiet resumed connections never exhaust maxRetries; the call completes', async () => {
    let polls = 0;
    const server = await serve(
      mcpHandler({
        session: 's',
        methods: {
          'tools/call': (_req, res) => {
            openSse(res);
            event(res, { id: 'q1', retry: 30, data: '' });
            setTimeout(() => res.end(), 10);
          },
        },
        get: (req, res) => {
          if (req.headers['last-event-id'] === undefined) {
            res.writeHead(405).end();
            return;
          }
          openSse(res);
          // Six polls with nothing new, then the answer.
          if (++polls > 6) message(res, { jsonrpc: '2.0', id: 2, result: { content: [] } }, 'q2');
          setTimeout(() => res.end(), 10);
        },
      }),
    );
    const { transport, rx } = await connected(server, { reconnect: { maxRetries: 2 } });
    await transport.send(call(2));
    assert.deepEqual((await rx.response(2, 5_000)).result, { content: [] });
    assert.equal(polls, 7);
    assert.ok(server.seen('GET').every((r) => r.headers['last-event-id'] !== 'q2'));
    assert.deepEqual(rx.errors, []);
  });

  test('a stream that ends without any event id cannot be resumed: the request fails at once', async () => {
    const server = await serve(
      mcpHandler({
        methods: {
          'tools/call': (_req, res) => {
            openSse(res);
            res.end();
          },
        },
      }),
    );
    const { transport, rx } = await connected(server);
    await transport.send(call(2));
    const response = await rx.response(2);
    assert.match(response.error.message, /no event id/);
    assert.equal(server.seen('GET').length, 1); // only the standalone GET
  });

  test('a cancelled request stops its stream from being resumed', async () => {
    const server = await serve(
      mcpHandler({
        methods: {
          'tools/call': (_req, res) => {
            openSse(res);
            event(res, { id: 'c1', retry: 100, data: '' });
            setTimeout(() => res.end(), 20);
          },
        },
      }),
    );
    const { transport } = await connected(server);
    await transport.send(call(2));
    await transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    await sleep(250);
    assert.equal(server.seen('GET').filter((r) => r.headers['last-event-id'] !== undefined).length, 0);
  });
});

describe('StreamableHttpClientTransport: the standalone GET stream', { timeout: 20_000 }, () => {
  test('opens after notifications/initialized; 405 is tolerated quietly', async () => {
    const server = await serve(mcpHandler({ session: 's' }));
    const { rx } = await connected(server);
    const get = await server.waitFor((r) => r.method === 'GET');
    assert.equal(get.headers.accept, 'text/event-stream');
    assert.equal(get.headers['mcp-session-id'], 's');
    await sleep(200);
    assert.equal(server.seen('GET').length, 1);
    assert.deepEqual(rx.errors, []);
  });

  test('delivers server messages, reconnects with Last-Event-ID, and reports when it gives up', async () => {
    let gets = 0;
    const server = await serve(
      mcpHandler({
        session: 's',
        get: (_req, res) => {
          gets++;
          if (gets > 2) {
            res.writeHead(500).end();
            return;
          }
          openSse(res);
          event(res, { id: `g${gets}`, retry: 50, data: '' });
          message(res, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, `g${gets}m`);
          setTimeout(() => res.end(), 20);
        },
      }),
    );
    const { rx } = await connected(server, { reconnect: { maxRetries: 2 } });
    await sleep(600);
    const all = server.seen('GET');
    assert.deepEqual(
      all.map((r) => r.headers['last-event-id']),
      [undefined, 'g1m', 'g2m', 'g2m'],
    );
    assert.equal(rx.messages.filter((m) => m.method === 'notifications/tools/list_changed').length, 2);
    assert.equal(rx.errors.length, 1);
    assert.match(rx.errors[0]!.message, /standalone GET stream.*2 times/);
  });

  test('a GET stream the server keeps closing without events is re-opened with growing delays, not a storm', async () => {
    const server = await serve(
      mcpHandler({
        get: (_req, res) => {
          openSse(res);
          setTimeout(() => res.end(), 5);
        },
      }),
    );
    const { rx } = await connected(server, {
      reconnect: { initialDelayMs: 20, factor: 2, maxRetries: 2, maxDelayMs: 10_000 },
    });
    await sleep(700);
    const gets = server.seen('GET');
    // Delays 20, 40, 80, 160, 320 ms: about six GETs in 700 ms, more than maxRetries, none reported.
    assert.ok(gets.length >= 4 && gets.length <= 7, `GETs: ${gets.length}`);
    const gaps = gets.slice(1).map((g, i) => g.at - (gets[i]?.at ?? 0));
    for (let i = 1; i < gaps.length; i++)
      assert.ok(gaps[i]! > gaps[i - 1]!, `gaps ${gaps.map((g) => g.toFixed(0))}`);
    assert.deepEqual(rx.errors, []);
  });

  test('a GET answered 400 is reported once and not retried', async () => {
    const server = await serve(
      mcpHandler({
        get: (_req, res) => {
          res.writeHead(400).end();
        },
      }),
    );
    const { rx } = await connected(server);
    await sleep(200);
    assert.equal(server.seen('GET').length, 1);
    assert.equal(rx.errors.length, 1);
    assert.match(rx.errors[0]!.message, /HTTP 400/);
  });
});

describe('StreamableHttpClientTransport: sessions', { timeout: 20_000 }, () => {
  test('404 on a request with a session id: re-initializes once, transparently, then re-sends', async () => {
    let sessions = 0;
    let live = '';
    const server = await serve((req, res) => {
      const sid = req.headers['mcp-session-id'];
      if (req.method === 'POST' && req.body?.method !== 'initialize' && sid !== live) {
        json(
          res,
          { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } },
          {},
          404,
        );
        return;
      }
      return mcpHandler({
        session: () => {
          live = `s${++sessions}`;
          return live;
        },
      })(req, res);
    });
    const { transport, rx } = await connected(server);
    assert.equal(transport.sessionId, 's1');
    live = 'expired';
    await transport.send(call(2, 'tools/list'));
    const response = await rx.response(2);
    assert.deepEqual(response.result, {});
    assert.equal(transport.sessionId, 's2');

    const inits = server.seen('POST', 'initialize');
    assert.equal(inits.length, 2);
    assert.match(String(inits[1]?.body.id), /^mcpkit-renew-/);
    assert.deepEqual(inits[1]?.body.params, INIT.params);
    assert.equal(inits[1]?.headers['mcp-session-id'], undefined);
    const posts = server
      .seen('POST')
      .map((r) => `${r.body.method ?? 'response'} ${r.headers['mcp-session-id'] ?? '-'}`);
    assert.deepEqual(posts, [
      'initialize -',
      'notifications/initialized s1',
      'tools/list s1',
      'initialize -',
      'notifications/initialized s2',
      'tools/list s2',
    ]);
    // The internal initialize's result is swallowed.
    assert.deepEqual(
      rx.messages.map((m) => m.id),
      [1, 2],
    );
  });

  test('messages sent around a re-initialization share it and go out with the new session', async () => {
    let sessions = 0;
    let live = '';
    const server = await serve(async (req, res) => {
      const sid = req.headers['mcp-session-id'];
      if (req.method === 'POST' && req.body?.method === 'initialize' && sessions > 0) await sleep(100);
      if (req.method === 'POST' && req.body?.method !== 'initialize' && sid !== live) {
        res.writeHead(404).end();
        return;
      }
      return mcpHandler({
        session: () => {
          live = `s${++sessions}`;
          return live;
        },
      })(req, res);
    });
    const { transport, rx } = await connected(server);
    live = 'expired';
    const both = Promise.all([transport.send(call(2, 'tools/list')), transport.send(call(3, 'tools/list'))]);
    // The re-initialization is under way (the server holds its answer for 100 ms).
    await server.waitFor((r) => r.body?.method === 'initialize' && r.body.id !== 1);
    await transport.send(call(4, 'ping'));
    await both;
    for (const id of [2, 3, 4]) assert.deepEqual((await rx.response(id)).result, {});
    assert.equal(server.seen('POST', 'initialize').length, 2);
    assert.deepEqual(
      server.seen('POST', 'ping').map((r) => r.headers['mcp-session-id']),
      ['s2'],
    );
  });

  test('404 again after re-initializing: the request fails clearly, and only one re-initialization ran', async () => {
    let n = 0;
    const server = await serve((req, res) => {
      if (req.method === 'POST' && req.body?.method === 'tools/list') {
        json(
          res,
          { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } },
          {},
          404,
        );
        return;
      }
      return mcpHandler({ session: () => `s${++n}` })(req, res);
    });
    const { transport, rx } = await connected(server);
    await transport.send(call(2, 'tools/list'));
    const response = await rx.response(2);
    assert.match(response.error.message, /HTTP 404\) again/);
    assert.equal(server.seen('POST', 'initialize').length, 2);
    assert.equal(server.seen('POST', 'tools/list').length, 2);
  });

  test('404 and the re-initialization is refused: the request fails naming both', async () => {
    let inits = 0;
    const server = await serve((req, res) => {
      const m = req.body?.method;
      if (req.method === 'POST' && m === 'initialize' && ++inits > 1) {
        res.writeHead(500).end('down');
        return;
      }
      if (req.method === 'POST' && m !== 'initialize' && m !== 'notifications/initialized') {
        res.writeHead(404).end();
        return;
      }
      return mcpHandler({ session: 's1' })(req, res);
    });
    const { transport, rx } = await connected(server);
    await transport.send(call(2, 'tools/list'));
    const response = await rx.response(2);
    assert.match(
      response.error.message,
      /ended the session "s1" \(HTTP 404\), and a new session could not be started/,
    );
    assert.match(response.error.message, /HTTP 500/);
    // The dead id is kept: a notification later gets its own single attempt, and rejects when it fails.
    await assert.rejects(
      transport.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }),
      /ended the session "s1" \(HTTP 404\), and a new session could not be started/,
    );
    assert.equal(inits, 3);
  });

  test('close() aborts streams, DELETEs the session once, and calls onclose once', async () => {
    let getClosed = false;
    const server = await serve(
      mcpHandler({
        session: 'sess-9',
        get: (_req, res) => {
          openSse(res);
          res.on('close', () => {
            getClosed = true;
          });
        },
        delete: (_req, res) => {
          res.writeHead(405).end();
        },
      }),
    );
    const { transport, rx } = await connected(server);
    await server.waitFor((r) => r.method === 'GET');
    await Promise.all([transport.close(), transport.close()]);
    const deletes = server.seen('DELETE');
    assert.equal(deletes.length, 1);
    assert.equal(deletes[0]?.headers['mcp-session-id'], 'sess-9');
    assert.deepEqual(rx.closes, [undefined]);
    assert.deepEqual(rx.errors, []); // 405 on DELETE is fine
    await sleep(50);
    assert.ok(getClosed);
    await assert.rejects(
      transport.send(call(5)),
      (e: unknown) => e instanceof McpkitError && e.code === 'CONNECTION_CLOSED',
    );
  });

  test('the sessionId and protocolVersion options are used from the start', async () => {
    const server = await serve(mcpHandler());
    const { transport, rx } = await open(server, { sessionId: 'known', protocolVersion: '2025-03-26' });
    await transport.send(call(7, 'ping'));
    await rx.response(7);
    assert.equal(server.requests[0]?.headers['mcp-session-id'], 'known');
    assert.equal(server.requests[0]?.headers['mcp-protocol-version'], '2025-03-26');
  });

  test('initializeRejectStatuses makes send() reject for those statuses on initialize only', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(405).end();
    });
    const { transport } = await open(server, { initializeRejectStatuses: [405] });
    await assert.rejects(
      transport.send(INIT as JsonRpcMessage),
      (e: unknown) => e instanceof HttpStatusError && e.status === 405,
    );
  });
});
