import assert from 'node:assert/strict';
import type http from 'node:http';
import { afterEach, describe, test } from 'node:test';
import {
  INIT,
  INITIALIZED,
  json,
  MockServer,
  mcpHandler,
  message,
  openSse,
  Recorder,
  type Seen,
  sleep,
} from '../../../test/http-client/mock-server.js';
import { ErrorCode } from '../../jsonrpc/errors.js';
import type { JsonObject, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../../jsonrpc/types.js';
import { META } from '../../spec/modern.js';
import { STREAM_BROKEN_DATA } from './modern.js';
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

async function open(server: MockServer, options: StreamableHttpClientTransportOptions = {}) {
  const transport = new StreamableHttpClientTransport(server.url, options);
  transports.push(transport);
  const rx = new Recorder();
  await transport.start(rx);
  return { transport, rx };
}

const ENVELOPE: JsonObject = {
  [META.protocolVersion]: '2026-07-28',
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: 't', version: '1' },
};

/** A 2026-07-28 request: the `_meta` envelope added to `params`. */
function modern(id: number, method: string, params: JsonObject = {}): JsonRpcRequest {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } };
}

const cancelled = (requestId: number): JsonRpcNotification => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'user' },
});

/** Resolves when the server side of `seen`'s connection goes away (the client aborted or closed it). */
function closedByClient(seen: Seen, ms = 3_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the client kept the connection open for ${ms} ms`)), ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    if (seen.res.destroyed) done();
    else seen.res.once('close', done);
  });
}

/** An SSE handler that opens the stream, writes what `step` writes, and holds the connection open. */
function holding(onOpen: (req: Seen, res: http.ServerResponse) => void) {
  return (req: Seen, res: http.ServerResponse) => {
    openSse(res);
    onOpen(req, res);
  };
}

describe('StreamableHttpClientTransport: 2026-07-28 requests', { timeout: 20_000 }, () => {
  test('a modern POST carries MCP-Protocol-Version, Mcp-Method, a Base64 Mcp-Name and the Mcp-Param-* headers', async () => {
    const server = await serve(mcpHandler({ session: 'sess-1', version: '2025-06-18' }));
    const { transport, rx } = await open(server, {
      headers: { authorization: 'Bearer t', 'mcp-name': 'spoofed', 'mcp-session-id': 'spoofed' },
    });
    // A legacy session first: its id and learned revision must not leak onto modern requests.
    await transport.send(INIT as JsonRpcMessage);
    await rx.response(1);
    await transport.send(INITIALIZED as JsonRpcMessage);
    await transport.send(modern(2, 'tools/call', { name: 'météo', arguments: { region: 'eu-west' } }), {
      headers: { 'Mcp-Param-Region': 'eu-west', 'MCP-Protocol-Version': '1999-01-01' },
    });
    const reply = await rx.response(2);
    assert.deepEqual(reply.result, {});

    const post = server.seen('POST', 'tools/call')[0];
    assert.ok(post);
    assert.equal(post.headers['mcp-protocol-version'], '2026-07-28');
    assert.equal(post.headers['mcp-method'], 'tools/call');
    assert.equal(post.headers['mcp-name'], '=?base64?bcOpdMOpbw==?=');
    assert.equal(post.headers['mcp-param-region'], 'eu-west');
    assert.equal(post.headers['mcp-session-id'], undefined);
    assert.equal(post.headers['last-event-id'], undefined);
    assert.equal(post.headers.authorization, 'Bearer t');
    assert.equal(post.headers.accept, 'application/json, text/event-stream');
    assert.equal(post.headers['content-type'], 'application/json');
    // The legacy session still works as before.
    assert.equal(transport.sessionId, 'sess-1');
    assert.equal(transport.protocolVersion, '2025-06-18');
  });

  test('Mcp-Param-* values are raw: non-ASCII and sentinel-looking ones are Base64-encoded, others untouched', async () => {
    const server = await serve(mcpHandler());
    const { transport, rx } = await open(server);
    await transport.send(modern(1, 'tools/call', { name: 'x', arguments: {} }), {
      headers: {
        'Mcp-Param-City': 'Zürich',
        'mcp-param-code': '=?base64?QQ==?=',
        'Mcp-Param-Days': '3',
        'X-Trace': 'abc',
      },
    });
    await rx.response(1);
    const post = server.seen('POST', 'tools/call')[0];
    assert.equal(post?.headers['mcp-param-city'], '=?base64?WsO8cmljaA==?=');
    assert.equal(post?.headers['mcp-param-code'], '=?base64?PT9iYXNlNjQ/UVE9PT89?=');
    assert.equal(post?.headers['mcp-param-days'], '3');
    assert.equal(post?.headers['x-trace'], 'abc');
  });

  test('Mcp-Name follows the method: uri, taskId, sentinel-looking names encoded, none for other methods', async () => {
    const server = await serve(mcpHandler());
    const { transport, rx } = await open(server);
    const sent: [JsonRpcRequest, string | undefined][] = [
      [modern(1, 'resources/read', { uri: 'file:///a b.txt' }), 'file:///a b.txt'],
      [modern(2, 'tasks/get', { taskId: 't-1' }), 't-1'],
      [modern(3, 'prompts/get', { name: '=?base64?abc=?=' }), '=?base64?PT9iYXNlNjQ/YWJjPT89?='],
      [modern(4, 'tools/list'), undefined],
      [modern(5, 'server/discover'), undefined],
    ];
    for (const [request] of sent) await transport.send(request);
    for (const [request, name] of sent) {
      await rx.response(request.id);
      const post = server.seen('POST', request.method)[0];
      assert.equal(post?.headers['mcp-method'], request.method);
      assert.equal(post?.headers['mcp-name'], name, request.method);
    }
    assert.equal(server.seen('GET').length, 0);
  });

  test('a modern notification is POSTed statelessly; a refusal rejects send() with the status', async () => {
    const server = await serve((req, res) => {
      if (req.body?.method === 'notifications/bad')
        json(res, { jsonrpc: '2.0', id: null, error: { code: -32602, message: 'no' } }, {}, 400);
      else res.writeHead(202).end();
    });
    const { transport } = await open(server, { sessionId: 'old' });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/x', params: { _meta: ENVELOPE } });
    const post = server.seen('POST', 'notifications/x')[0];
    assert.equal(post?.headers['mcp-protocol-version'], '2026-07-28');
    assert.equal(post?.headers['mcp-method'], 'notifications/x');
    assert.equal(post?.headers['mcp-session-id'], undefined);
    const refused = transport.send({
      jsonrpc: '2.0',
      method: 'notifications/bad',
      params: { _meta: ENVELOPE },
    });
    await assert.rejects(
      refused,
      (e: unknown) => e instanceof HttpStatusError && e.status === 400 && e.body?.code === -32602,
    );
  });

  test('an SSE reply: notifications then the response, delivered without a session context', async () => {
    const server = await serve(
      holding((req, res) => {
        message(res, {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 1, progress: 1 },
        });
        message(res, { jsonrpc: '2.0', id: req.body.id, result: { content: [] } });
        res.end();
      }),
    );
    const { transport, rx } = await open(server);
    await transport.send(modern(1, 'tools/call', { name: 'x' }));
    await rx.response(1);
    assert.deepEqual(
      rx.messages.map((m) => m.method ?? `response ${m.id}`),
      ['notifications/progress', 'response 1'],
    );
    assert.deepEqual(rx.errors, []);
  });

  for (const [status, code, data] of [
    [400, ErrorCode.HeaderMismatch, undefined],
    [400, ErrorCode.UnsupportedProtocolVersion, { supported: ['2026-07-28'], requested: '2027-01-01' }],
    [400, ErrorCode.MissingClientCapability, undefined],
    [400, ErrorCode.InvalidParams, undefined],
    [404, ErrorCode.MethodNotFound, undefined],
  ] as const) {
    test(`HTTP ${status} with a ${code} body: that error is the response`, async () => {
      const server = await serve((req, res) =>
        json(
          res,
          {
            jsonrpc: '2.0',
            id: req.body.id,
            error: { code, message: `err ${code}`, ...(data ? { data } : {}) },
          },
          {},
          status,
        ),
      );
      const { transport, rx } = await open(server);
      await transport.send(modern(7, 'tools/call', { name: 'x' }));
      const reply = await rx.response(7);
      assert.equal(reply.error.code, code);
      assert.equal(reply.error.message, `err ${code}`);
      assert.deepEqual(reply.error.data, data);
    });
  }

  test('a 4xx without a JSON-RPC body (a legacy server) is an error response naming the status', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(405, { allow: 'GET' }).end('Method Not Allowed');
    });
    const { transport, rx } = await open(server);
    await transport.send(modern(1, 'server/discover'));
    const reply = await rx.response(1);
    assert.equal(reply.error.code, ErrorCode.InvalidRequest);
    assert.match(reply.error.message, /HTTP 405/);
    assert.deepEqual(reply.error.data, { status: 405 });
  });

  test('cancelling a request that is streaming aborts its POST; the notification is not sent', async () => {
    const server = await serve(
      holding((_req, res) => {
        message(res, {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 1, progress: 1 },
        });
      }),
    );
    const { transport, rx } = await open(server);
    await transport.send(modern(1, 'tools/call', { name: 'slow' }));
    await rx.waitFor((m) => m.method === 'notifications/progress');
    const post = server.seen('POST', 'tools/call')[0]!;
    const gone = closedByClient(post);
    await transport.send(cancelled(1));
    await gone;
    await sleep(50);
    assert.equal(server.seen('POST', 'notifications/cancelled').length, 0);
    assert.equal(server.requests.length, 1);
    assert.equal(rx.messages.filter((m) => m.id === 1).length, 0, 'no response is delivered for it');
    assert.deepEqual(rx.errors, []);
  });

  test('cancelling before the server answered aborts the fetch; send() of the request resolves', async () => {
    const server = await serve(() => undefined); // never answers
    const { transport, rx } = await open(server);
    const sending = transport.send(modern(1, 'tools/call', { name: 'slow' }));
    const post = await server.waitFor((r) => r.body?.method === 'tools/call');
    const gone = closedByClient(post);
    await transport.send(cancelled(1));
    await sending;
    await gone;
    assert.equal(server.seen('POST', 'notifications/cancelled').length, 0);
    assert.deepEqual(rx.messages, []);
  });

  test('a modern cancellation of an unknown request is dropped, a legacy one still POSTed', async () => {
    const server = await serve(mcpHandler({ session: 's' }));
    const { transport, rx } = await open(server);
    await transport.send({ ...cancelled(99), params: { requestId: 99, _meta: ENVELOPE } });
    assert.equal(server.requests.length, 0);
    await transport.send(INIT as JsonRpcMessage);
    await rx.response(1);
    await transport.send(cancelled(98));
    assert.equal(server.seen('POST', 'notifications/cancelled')[0]?.headers['mcp-session-id'], 's');
  });

  for (const how of ['destroyed', 'ended'] as const) {
    test(`a modern SSE stream ${how} before the response: an error response, no resumption`, async () => {
      const server = await serve(
        holding((_req, res) => {
          res.write('id: e1\nretry: 10\ndata: \n\n');
          message(
            res,
            { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1 } },
            'e2',
          );
          setTimeout(() => (how === 'destroyed' ? res.destroy() : res.end()), 20);
        }),
      );
      const { transport, rx } = await open(server);
      await transport.send(modern(1, 'tools/call', { name: 'x' }));
      const reply = await rx.response(1);
      assert.equal(reply.error.code, ErrorCode.InternalError);
      assert.match(
        reply.error.message,
        /broke before its response arrived.*cannot be resumed: re-issue the request/,
      );
      assert.deepEqual(reply.error.data, STREAM_BROKEN_DATA);
      await sleep(100);
      assert.equal(server.seen('GET').length, 0, 'no resumption GET');
      assert.equal(server.requests.length, 1);
    });
  }

  test('a JSON reply without the response, an unexpected type, or 202: error responses', async () => {
    const server = await serve((req, res) => {
      const id = req.body.id;
      if (id === 1)
        json(res, { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1 } });
      else if (id === 2) res.writeHead(200, { 'content-type': 'text/plain' }).end('hi');
      else res.writeHead(202).end();
    });
    const { transport, rx } = await open(server);
    for (const id of [1, 2, 3]) await transport.send(modern(id, 'tools/list'));
    assert.match((await rx.response(1)).error.message, /carried no response/);
    assert.match((await rx.response(2)).error.message, /unexpected content type "text\/plain"/);
    assert.match((await rx.response(3)).error.message, /HTTP 202/);
  });

  test('a server request on a modern stream is dropped and reported', async () => {
    const server = await serve(
      holding((req, res) => {
        message(res, { jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: {} });
        message(res, { jsonrpc: '2.0', id: req.body.id, result: {} });
        res.end();
      }),
    );
    const { transport, rx } = await open(server);
    await transport.send(modern(1, 'tools/call', { name: 'x' }));
    await rx.response(1);
    assert.equal(rx.messages.filter((m) => m.method === 'sampling/createMessage').length, 0);
    assert.match(rx.errors[0]?.message ?? '', /Dropped a server request "sampling\/createMessage"/);
  });

  test('a long-lived subscriptions/listen stream with keep-alives stays open until cancelled', async () => {
    let stream: http.ServerResponse | undefined;
    const server = await serve(
      holding((req, res) => {
        stream = res;
        const meta = { [META.subscriptionId]: req.body.id };
        message(res, {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { toolsListChanged: true }, _meta: meta },
        });
        const keepAlive = setInterval(() => res.write(':\r\n\r\n'), 50);
        res.once('close', () => clearInterval(keepAlive));
      }),
    );
    // A tiny reconnection policy: were the stream treated as resumable or idle, it would show at once.
    const { transport, rx } = await open(server, { reconnect: { initialDelayMs: 1, maxRetries: 1 } });
    await transport.send(modern(5, 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    await rx.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    await sleep(700);
    message(stream!, {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [META.subscriptionId]: 5 } },
    });
    await rx.waitFor((m) => m.method === 'notifications/tools/list_changed');
    const gone = closedByClient(server.seen('POST', 'subscriptions/listen')[0]!);
    await transport.send(cancelled(5));
    await gone;
    assert.equal(rx.messages.filter((m) => m.id === 5).length, 0);
    assert.deepEqual(rx.errors, []);
    assert.equal(server.requests.length, 1);
  });

  test('a listen stream the server ends gracefully (result) or with notifications/cancelled: no error', async () => {
    const server = await serve(
      holding((req, res) => {
        const id = req.body.id;
        const meta = { [META.subscriptionId]: id };
        message(res, {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: {}, _meta: meta },
        });
        if (id === 1) message(res, { jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: meta } });
        else message(res, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
        res.end();
      }),
    );
    const { transport, rx } = await open(server);
    await transport.send(modern(1, 'subscriptions/listen', { notifications: {} }));
    await transport.send(modern(2, 'subscriptions/listen', { notifications: {} }));
    assert.equal((await rx.response(1)).result.resultType, 'complete');
    await rx.waitFor((m) => m.method === 'notifications/cancelled' && m.params.requestId === 2);
    await sleep(50);
    assert.equal(
      rx.messages.filter((m) => m.id === 2).length,
      0,
      'no error response after the server cancelled',
    );
  });

  test('close() aborts modern requests in flight', async () => {
    const server = await serve(holding(() => undefined));
    const { transport, rx } = await open(server);
    await transport.send(modern(1, 'subscriptions/listen', { notifications: {} }));
    const gone = closedByClient(server.seen('POST')[0]!);
    await transport.close();
    await gone;
    assert.deepEqual(rx.closes, [undefined]);
    assert.equal(server.seen('DELETE').length, 0, 'no session to end');
  });
});
