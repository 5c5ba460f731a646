// Hostile and broken input over real sockets: each is answered with the right status and a JSON-RPC error body,
// and the server keeps serving other clients afterwards.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, afterEach, describe, test } from 'node:test';
import { createStreamableHttpHandler, toFetchHandler } from '../../src/index.js';
import {
  callTool,
  errorBody,
  initSession,
  LATEST,
  legacySession,
  makeServer,
  openGet,
  openPost,
  post,
  postHeaders,
  type RawResponse,
  raw,
  readAll,
  responseOf,
  resultText,
  rpcBody,
  type Served,
  Servers,
  sleep,
  startRequest,
  TEST_TIMEOUT,
  toolCall,
  within,
} from './helpers.js';

const servers = new Servers();
after(() => servers.closeAll());

const T = { timeout: TEST_TIMEOUT };
const INIT = rpcBody(0, 'initialize', {
  protocolVersion: LATEST,
  capabilities: {},
  clientInfo: { name: 'hostile', version: '1' },
});
const INIT_HEADERS = postHeaders(undefined, { 'mcp-protocol-version': undefined });

/** The server still serves a well-behaved client: a fresh session and a tool call. */
async function stillServing(served: Served): Promise<void> {
  const { sessionId } = await initSession(served.url);
  assert.equal((await callTool(served.url, sessionId, 'alive', 'echo', { text: 'ok' })).text, 'echo: ok');
}

function assertJsonRpcError(res: RawResponse, status: number, code?: number): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = errorBody(res);
  if (code !== undefined) assert.equal(body.error.code, code);
}

describe('Origin and Host (DNS rebinding)', () => {
  let served: Served;
  afterEach(() => stillServing(served));

  test(
    'a foreign Origin is refused with 403 and a JSON-RPC error body, on every method and endpoint',
    T,
    async () => {
      served = await servers.start();
      const { url, running } = served;
      const { sessionId } = await initSession(url);
      const origin = 'http://evil.example.com';
      assertJsonRpcError(
        await raw(url, { method: 'POST', headers: { ...INIT_HEADERS, origin }, body: INIT }),
        403,
      );
      assertJsonRpcError(
        await raw(url, {
          method: 'POST',
          headers: { ...postHeaders(sessionId), origin },
          body: toolCall(1, 'echo', { text: 'x' }),
        }),
        403,
      );
      assertJsonRpcError(
        await raw(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, origin } }),
        403,
      );
      assertJsonRpcError(
        await raw(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, origin } }),
        403,
      );
      assertJsonRpcError(
        await raw(running.sseUrl ?? '', { headers: { accept: 'text/event-stream', origin } }),
        403,
      );
      assertJsonRpcError(
        await raw(url, { method: 'POST', headers: { ...INIT_HEADERS, origin: 'null' }, body: INIT }),
        403,
      );
      // The session the refused requests named is untouched.
      assert.equal((await callTool(url, sessionId, 2, 'echo', { text: 'mine' })).text, 'echo: mine');
    },
  );

  test('a same-host or loopback Origin, and an allowed one, are accepted', T, async () => {
    served = await servers.start({ allowedOrigins: ['https://app.example'] });
    const { url, port } = served;
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, 'https://app.example']) {
      const res = await raw(url, { method: 'POST', headers: { ...INIT_HEADERS, origin }, body: INIT });
      assert.equal(res.status, 200, `Origin ${origin} answered ${res.status}`);
    }
  });

  test('a foreign Host is refused with 403; localhost:PORT and 127.0.0.1:PORT are accepted', T, async () => {
    served = await servers.start();
    const { url, port, running } = served;
    for (const host of [
      'evil.example.com',
      `evil.example.com:${port}`,
      `127.0.0.1.evil.example:${port}`,
      `10.0.0.1:${port}`,
    ]) {
      assertJsonRpcError(
        await raw(url, { method: 'POST', headers: { ...INIT_HEADERS, host }, body: INIT }),
        403,
      );
    }
    assertJsonRpcError(
      await raw(running.sseUrl ?? '', { headers: { accept: 'text/event-stream', host: 'evil.example.com' } }),
      403,
    );
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const res = await raw(url, { method: 'POST', headers: { ...INIT_HEADERS, host }, body: INIT });
      assert.equal(res.status, 200, `Host ${host} answered ${res.status}`);
      assert.ok(res.headers['mcp-session-id']);
    }
  });
});

describe('Origin and Host in the fetch-style core, without serve()', () => {
  const initRequest = (headers: Record<string, string>) =>
    new Request('http://127.0.0.1:3000/mcp', {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        ...headers,
      },
      body: INIT,
    });

  test(
    'DNS rebinding (the attacker names its own host in Host and Origin) is refused with 403',
    T,
    async () => {
      const handle = toFetchHandler(createStreamableHttpHandler(makeServer().server));
      const rebound = await handle(
        initRequest({ host: 'attacker.example:3000', origin: 'http://attacker.example:3000' }),
      );
      assert.equal(rebound.status, 403);
      assert.equal(((await rebound.json()) as { error: { code: number } }).error.code, -32600);
      // A rebound name that merely starts like a loopback address is not loopback.
      for (const name of ['127.0.0.1.attacker.example', '127.evil.example']) {
        const lookalike = await handle(initRequest({ host: `${name}:3000`, origin: `http://${name}:3000` }));
        assert.equal(lookalike.status, 403, `${name} answered ${lookalike.status}`);
        await lookalike.body?.cancel();
      }
      // Loopback on both sides, an allowed Origin, and no Origin at all (not a browser) still pass.
      for (const headers of [
        { host: '127.0.0.1:3000', origin: 'http://localhost:3000' },
        { host: 'mcp.example', origin: 'https://app.example' },
        { host: 'mcp.example' },
      ]) {
        const allowed = toFetchHandler(
          createStreamableHttpHandler(makeServer().server, { allowedOrigins: ['https://app.example'] }),
        );
        const res = await allowed(initRequest(headers));
        assert.equal(res.status, 200, `${JSON.stringify(headers)} answered ${res.status}`);
        await res.body?.cancel();
      }
    },
  );

  test('with allowedHosts, an Origin of the same (allowed) host is accepted', T, async () => {
    const handle = toFetchHandler(
      createStreamableHttpHandler(makeServer().server, { allowedHosts: ['mcp.example'] }),
    );
    const res = await handle(initRequest({ host: 'mcp.example', origin: 'https://mcp.example' }));
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});

describe('Accept and Content-Type', () => {
  let served: Served;
  afterEach(() => stillServing(served));

  test('a POST without both application/json and text/event-stream in Accept is 406', T, async () => {
    served = await servers.start();
    for (const accept of [undefined, 'application/json', 'text/event-stream', 'text/html']) {
      const res = await raw(served.url, { method: 'POST', headers: { ...INIT_HEADERS, accept }, body: INIT });
      assertJsonRpcError(res, 406);
      assert.equal(res.headers['mcp-session-id'], undefined);
    }
  });

  test('a POST whose body is not application/json is 415', T, async () => {
    served = await servers.start();
    for (const type of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      const res = await raw(served.url, {
        method: 'POST',
        headers: { ...INIT_HEADERS, 'content-type': type },
        body: INIT,
      });
      assertJsonRpcError(res, 415);
    }
    const charset = await raw(served.url, {
      method: 'POST',
      headers: { ...INIT_HEADERS, 'content-type': 'application/json; charset=utf-8' },
      body: INIT,
    });
    assert.equal(charset.status, 200, 'parameters after the media type are fine');
  });

  test(
    'a legacy POST /messages whose body is not application/json is 415 (and the message not taken)',
    T,
    async () => {
      served = await servers.start();
      const { path, stream } = await legacySession(served.running.sseUrl ?? '');
      const url = new URL(path, served.url).href;
      const ping = rpcBody(1, 'ping');
      try {
        for (const type of [
          undefined,
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/jsonx',
        ]) {
          const res = await raw(url, { method: 'POST', headers: { 'content-type': type }, body: ping });
          assertJsonRpcError(res, 415);
        }
        const json = await raw(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: ping,
        });
        assert.equal(json.status, 202);
      } finally {
        stream.destroy();
      }
    },
  );
});

describe('malformed bodies', () => {
  let served: Served;
  afterEach(() => stillServing(served));

  test('malformed JSON is 400 with -32700 (before and inside a session)', T, async () => {
    served = await servers.start();
    const { sessionId } = await initSession(served.url);
    for (const body of ['{', 'not json', '{"jsonrpc":"2.0",', '', '\u0000\u0001']) {
      assertJsonRpcError(await post(served.url, undefined, body), 400, -32700);
      assertJsonRpcError(await post(served.url, sessionId, body), 400, -32700);
    }
    assert.equal(
      (await callTool(served.url, sessionId, 1, 'echo', { text: 'same session' })).text,
      'echo: same session',
    );
  });

  test('a well-formed JSON value that is not a JSON-RPC message is 400 with -32600', T, async () => {
    served = await servers.start();
    const { sessionId } = await initSession(served.url);
    for (const body of [
      '{"foo":1}',
      '42',
      '"text"',
      'null',
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":{},"method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"method":5}',
      '{"jsonrpc":"2.0","id":1}',
    ]) {
      const res = await post(served.url, sessionId, body);
      assertJsonRpcError(res, 400, -32600);
    }
  });

  test('deeply nested JSON is refused with 400 without harming the server', T, async () => {
    served = await servers.start();
    const { sessionId } = await initSession(served.url);
    const depth = 200_000;
    const res = await post(served.url, sessionId, `${'['.repeat(depth)}${']'.repeat(depth)}`);
    assert.equal(res.status, 400);
    errorBody(res);
  });
});

/** Sends headers announcing `length` bytes but no body, and reads the early answer. */
async function announceOnly(
  url: string,
  headers: Record<string, string | undefined>,
  length: number,
): Promise<RawResponse> {
  const { req, response } = startRequest(url, {
    method: 'POST',
    headers: { ...headers, 'content-length': String(length) },
  });
  req.on('error', () => undefined);
  req.flushHeaders();
  const res = await within(response, 'an answer to the announced body');
  const out = await readAll(res);
  req.destroy();
  return out;
}

/** Streams `total` bytes chunked (no Content-Length): a JSON request padded with spaces; stops once answered. */
async function sendChunked(
  url: string,
  headers: Record<string, string | undefined>,
  total: number,
  end: boolean,
): Promise<RawResponse> {
  const { req, response } = startRequest(url, {
    method: 'POST',
    headers: { ...headers, 'transfer-encoding': 'chunked' },
  });
  req.on('error', () => undefined);
  let answered = false;
  response.then(
    () => {
      answered = true;
    },
    () => undefined,
  );
  const head = Buffer.from(rpcBody(1, 'ping'));
  const chunkSize = 64 * 1024;
  let sent = 0;
  while (sent < total && !answered) {
    const size = Math.min(chunkSize, total - sent);
    const chunk =
      sent === 0 ? Buffer.concat([head, Buffer.alloc(size - head.length, 0x20)]) : Buffer.alloc(size, 0x20);
    if (!req.write(chunk)) await Promise.race([once(req, 'drain'), response, sleep(1000)]);
    sent += size;
  }
  if (end && !answered) req.end();
  const res = await within(response, 'an answer to the chunked body');
  const out = await readAll(res);
  req.destroy();
  return out;
}

describe('oversized bodies', () => {
  let served: Served;
  afterEach(() => stillServing(served));

  test('default limit 4 MiB: Content-Length over it is 413 without reading the body', T, async () => {
    served = await servers.start();
    const { sessionId } = await initSession(served.url);
    const res = await announceOnly(served.url, postHeaders(sessionId), 4 * 1024 * 1024 + 1);
    assertJsonRpcError(res, 413);
  });

  test(
    'default limit 4 MiB: a chunked body without Content-Length is cut off with 413 once over it',
    T,
    async () => {
      served = await servers.start();
      const { sessionId } = await initSession(served.url);
      const res = await sendChunked(served.url, postHeaders(sessionId), 5 * 1024 * 1024, false);
      assertJsonRpcError(res, 413);
    },
  );

  test('a body just under the default limit is accepted', T, async () => {
    served = await servers.start();
    const { sessionId } = await initSession(served.url);
    const body = rpcBody(1, 'ping').padEnd(4 * 1024 * 1024 - 16, ' ');
    const res = await post(served.url, sessionId, body);
    assert.equal(res.status, 200);
    assert.deepEqual(responseOf(res, 1)?.result, {});
  });

  test(
    'a custom maxBodyBytes: one byte over is 413 (with and without Content-Length); exactly at it is accepted',
    T,
    async () => {
      served = await servers.start({ maxBodyBytes: 1024 });
      const { sessionId } = await initSession(served.url);
      assertJsonRpcError(await announceOnly(served.url, postHeaders(sessionId), 1025), 413);
      const over = rpcBody(1, 'ping').padEnd(1025, ' ');
      assertJsonRpcError(await post(served.url, sessionId, over), 413);
      assertJsonRpcError(await sendChunked(served.url, postHeaders(sessionId), 1025, true), 413);
      const exact = await post(served.url, sessionId, rpcBody(2, 'ping').padEnd(1024, ' '));
      assert.equal(exact.status, 200);
      assert.deepEqual(responseOf(exact, 2)?.result, {});
      const exactChunked = await sendChunked(served.url, postHeaders(sessionId), 1024, true);
      assert.equal(exactChunked.status, 200);
    },
  );
});

describe('unknown sessions, methods and duplicate ids', () => {
  let served: Served;
  afterEach(() => stillServing(served));

  test('unknown session ids get 404 on POST, GET and DELETE', T, async () => {
    served = await servers.start();
    await initSession(served.url);
    for (const id of ['unknown', 'A'.repeat(4000), '../../etc/passwd', '%00']) {
      assertJsonRpcError(await post(served.url, id, toolCall(1, 'echo', { text: 'x' })), 404);
      const get = await openGet(served.url, id);
      get.cut();
      assert.equal(get.status, 404);
      assertJsonRpcError(await raw(served.url, { method: 'DELETE', headers: { 'mcp-session-id': id } }), 404);
    }
  });

  test('an unknown HTTP method is 405 with an Allow header', T, async () => {
    served = await servers.start();
    for (const method of ['PUT', 'PATCH', 'OPTIONS']) {
      const body = method === 'OPTIONS' ? undefined : '{}';
      const res = await raw(served.url, { method, headers: { 'content-type': 'application/json' }, body });
      assert.equal(res.status, 405, `${method} answered ${res.status}`);
      const allow = (res.headers.allow ?? '').split(',').map((m) => m.trim());
      assert.ok(allow.includes('POST'), `Allow: ${String(res.headers.allow)}`);
      assert.ok(!allow.includes(method));
      errorBody(res);
    }
  });

  test(
    'a request id already in flight in the session is refused with 409; the first request is unaffected',
    T,
    async () => {
      served = await servers.start();
      const { url, gates } = served;
      const { sessionId } = await initSession(url);
      const first = post(url, sessionId, toolCall(7, 'gated', { key: 'dup' }));
      await gates.arrived('dup');
      const dup = await post(url, sessionId, toolCall(7, 'echo', { text: 'dup' }));
      assertJsonRpcError(dup, 409);
      assert.equal(errorBody(dup).id, 7);
      // Another session may use the same id freely.
      const other = await initSession(url);
      assert.equal((await callTool(url, other.sessionId, 7, 'echo', { text: 'other' })).text, 'echo: other');
      gates.release('dup');
      assert.equal(resultText(responseOf(await first, 7)), 'gated dup done');
      // Once answered, the id may be used again.
      assert.equal((await callTool(url, sessionId, 7, 'echo', { text: 'again' })).text, 'echo: again');
    },
  );
});

describe('a client that never reads its stream', () => {
  test('the server cuts it off instead of buffering without bound, and keeps serving others meanwhile', {
    timeout: 60_000,
  }, async () => {
    const served = await servers.start();
    const { url, gates } = served;
    const slow = await initSession(url);
    const other = await initSession(url);
    const count = 8192;
    const size = 16 * 1024; // 128 MiB of log messages in all
    const rssBefore = process.memoryUsage().rss;

    const { req, response } = startRequest(url, {
      method: 'POST',
      headers: postHeaders(slow.sessionId),
    });
    req.on('error', () => undefined);
    req.end(toolCall(1, 'flood', { count, size, key: 'flood' }));
    const res = await within(response, 'the flood response headers');
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    res.pause(); // never read

    // Others are served while the flood goes on.
    for (let i = 0; i < 10; i++) {
      const call = await within(
        callTool(url, other.sessionId, i, 'echo', { text: `${i}` }),
        'an echo during the flood',
      );
      assert.equal(call.text, `echo: ${i}`);
    }
    await gates.arrived('flood', 1, 45_000);
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    gates.release('flood');

    // Now read what the connection still holds: far less than was pushed, and never the final answer.
    let received = 0;
    let sawAnswer = false;
    res.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (chunk.includes('flooded')) sawAnswer = true;
    });
    res.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    res.resume();
    await within(closed, 'the cut-off connection to close', 10_000);
    assert.equal(res.complete, false, 'the server ended the connection abruptly');
    assert.ok(received < (count * size) / 2, `received ${received} bytes of ${count * size}`);
    assert.equal(sawAnswer, false);
    assert.ok(rssGrowth < 512 * 1024 * 1024, `rss grew by ${Math.round(rssGrowth / 1048576)} MiB`);

    // The session itself survives: it answers new requests.
    assert.equal((await callTool(url, slow.sessionId, 2, 'echo', { text: 'back' })).text, 'echo: back');
    const stream = await openPost(
      url,
      other.sessionId,
      toolCall(99, 'slow_progress', { steps: 1, delayMs: 0 }, 't'),
    );
    await stream.waitEnd();
    assert.equal(stream.complete, true);
  });
});

describe('more connections than maxConnections', () => {
  test(
    'the one too many is closed as soon as it is accepted, and the server serves again once others go',
    T,
    async () => {
      const served = await servers.start({ maxConnections: 3 });
      const open = () => {
        const socket = connect({ host: '127.0.0.1', port: served.port });
        socket.on('error', () => undefined);
        return socket;
      };
      const held = [open(), open(), open()];
      await Promise.all(held.map((s) => once(s, 'connect')));
      const connections = () =>
        new Promise<number>((resolve, reject) =>
          served.running.httpServer.getConnections((e, n) => (e ? reject(e) : resolve(n))),
        );
      while ((await connections()) < 3) await sleep(5);
      const extra = open();
      let received = 0;
      extra.on('data', (chunk: Buffer) => {
        received += chunk.length;
      });
      extra.write('POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n');
      await within(once(extra, 'close'), 'the extra connection to be closed');
      assert.equal(received, 0, 'nothing is answered on a refused connection');
      for (const s of held) s.destroy();
      while ((await connections()) > 0) await sleep(5);
      await stillServing(served);
    },
  );

  test('a maxConnections that is not a whole number ≥ 0 is refused before listening', T, async () => {
    await assert.rejects(servers.start({ maxConnections: -1 }), RangeError);
    await assert.rejects(servers.start({ maxConnections: 1.5 }), RangeError);
  });
});

describe('idle keep-alive connections', () => {
  /** One request on a fresh connection; resolves with the socket and the head of its answer. */
  async function oneRequest(port: number) {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    let text = '';
    socket.setEncoding('latin1');
    const head = new Promise<string>((resolve) =>
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('\r\n\r\n')) resolve(text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase());
      }),
    );
    socket.write(`GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
    return { socket, head: await within(head, 'an answer') };
  }

  test(
    'are kept 65 s by default (past the 60 s of a proxy in front), and clients are told so',
    T,
    async () => {
      const served = await servers.start();
      assert.equal(served.running.httpServer.keepAliveTimeout, 65_000);
      const { socket, head } = await oneRequest(served.port);
      assert.match(head, /\r\nkeep-alive: timeout=65\b/);
      socket.destroy();
    },
  );

  test(
    'keepAliveTimeoutMs sets it: an idle connection is closed by the server once it has passed',
    T,
    async () => {
      const served = await servers.start({ keepAliveTimeoutMs: 300 });
      const { socket } = await oneRequest(served.port);
      await within(once(socket, 'close'), 'the idle connection to be closed');
      await stillServing(served);
    },
  );

  test('a keepAliveTimeoutMs that is not a number ≥ 0 is refused before listening', T, async () => {
    await assert.rejects(servers.start({ keepAliveTimeoutMs: -1 }), RangeError);
    await assert.rejects(servers.start({ keepAliveTimeoutMs: Number.NaN }), RangeError);
  });
});
