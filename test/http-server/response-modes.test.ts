// Response modes over real sockets: 'json', 'sse' (priming event, retry, closed after the response) and 'auto' (JSON
// unless the handler streams first); where progress, logs, server requests and unrelated notifications travel.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import type { JsonRpcMessage } from '../../src/jsonrpc/types.js';
import {
  callTool,
  initSession,
  isNotification,
  isResponse,
  isServerRequest,
  messagesOf,
  openGet,
  openPost,
  paramsOf,
  parseSse,
  post,
  responseOf,
  resultText,
  rpcBody,
  Servers,
  type SseConnection,
  TEST_TIMEOUT,
  toolCall,
} from './helpers.js';

const servers = new Servers();
after(() => servers.closeAll());

const T = { timeout: TEST_TIMEOUT };
const CLIENT_CAPS = { sampling: {}, elicitation: { form: {} } };

function isJson(type: unknown): boolean {
  return /^application\/json/.test(String(type));
}
function isSse(type: unknown): boolean {
  return /^text\/event-stream/.test(String(type));
}

/** Opens the GET stream and reads its priming event, so the stream is surely attached. */
async function openStandalone(url: string, sessionId: string): Promise<SseConnection> {
  const get = await openGet(url, sessionId);
  assert.equal(get.status, 200);
  const priming = await get.next();
  assert.equal(priming.data, '');
  return get;
}

describe("responseMode 'json'", () => {
  test('every request is answered application/json, even one that reports progress', T, async () => {
    const { url } = await servers.start({ responseMode: 'json' });
    const { sessionId, response } = await initSession(url);
    assert.ok(isJson(response.headers['content-type']));
    const echo = await callTool(url, sessionId, 1, 'echo', { text: 'j' });
    assert.ok(isJson(echo.res.headers['content-type']));
    assert.equal(echo.text, 'echo: j');
    const slow = await post(url, sessionId, toolCall(2, 'slow_progress', { steps: 2, delayMs: 5 }, 'tok'));
    assert.ok(isJson(slow.headers['content-type']));
    assert.equal(resultText(responseOf(slow, 2)), 'done after 2 steps');
  });

  test(
    'progress and server requests of a request travel on the GET stream; the answer is JSON',
    T,
    async () => {
      const { url } = await servers.start({ responseMode: 'json' });
      const { sessionId } = await initSession(url, { capabilities: CLIENT_CAPS });
      const get = await openStandalone(url, sessionId);

      const slow = await post(url, sessionId, toolCall(1, 'slow_progress', { steps: 3, delayMs: 5 }, 'p1'));
      assert.ok(isJson(slow.headers['content-type']));
      assert.equal(resultText(responseOf(slow, 1)), 'done after 3 steps');
      const progress = (await get.messagesAtLeast(3)).filter(isNotification('notifications/progress'));
      assert.deepEqual(
        progress.map((m) => paramsOf<{ progressToken: string }>(m).progressToken),
        ['p1', 'p1', 'p1'],
      );

      const pending = post(url, sessionId, toolCall(2, 'sample', { prompt: 'hi' }));
      const request = await get.waitForMessage<{ id: number }>(
        isServerRequest('sampling/createMessage'),
        'sampling request',
      );
      const ack = await post(
        url,
        sessionId,
        JSON.stringify({
          jsonrpc: '2.0',
          id: request.id,
          result: { role: 'assistant', content: { type: 'text', text: 'from GET' }, model: 'm' },
        }),
      );
      assert.equal(ack.status, 202);
      const answer = await pending;
      assert.ok(isJson(answer.headers['content-type']));
      assert.equal(resultText(responseOf(answer, 2)), 'sampled: from GET');
      assert.ok(
        !get.messages.some((m) => !('method' in m)),
        'no JSON-RPC response ever travels on the GET stream',
      );
      get.cut();
    },
  );
});

describe("responseMode 'sse'", () => {
  for (const [what, body, id] of [
    ['tools/list', rpcBody(5, 'tools/list'), 5],
    ['tools/call echo', toolCall(6, 'echo', { text: 's' }), 6],
    ['ping', rpcBody('p', 'ping'), 'p'],
  ] as const) {
    test(
      `${what} is answered as an event stream: priming event (id, retry, empty data), the answer, then the end`,
      T,
      async () => {
        const { url } = await servers.start({ responseMode: 'sse', retryMs: 1234 });
        const { sessionId, response } = await initSession(url);
        assert.ok(isSse(response.headers['content-type']), 'initialize itself is answered as SSE');
        const res = await post(url, sessionId, body);
        assert.equal(res.status, 200);
        assert.ok(isSse(res.headers['content-type']));
        assert.equal(res.complete, true, 'the server ended the stream properly');
        const events = parseSse(res.body);
        const first = events[0];
        assert.ok(first, 'at least one event');
        assert.equal(first.data, '');
        assert.ok(first.id !== undefined && first.id !== '', 'the priming event has an id');
        assert.equal(first.retry, 1234);
        const messages = messagesOf(res);
        assert.equal(messages.length, 1);
        assert.ok(isResponse(id)(messages[0] as JsonRpcMessage));
        const ids = events.map((e) => e.id);
        assert.equal(new Set(ids).size, ids.length, 'event ids are unique');
      },
    );
  }

  test(
    'sessions of revisions before 2025-11-25 get no priming event (their clients may not expect empty data)',
    T,
    async () => {
      const { url } = await servers.start({ responseMode: 'sse' });
      for (const version of ['2025-03-26', '2025-06-18']) {
        const { sessionId } = await initSession(url, { protocolVersion: version });
        const res = await post(url, sessionId, toolCall(8, 'echo', { text: 'old' }), {
          'mcp-protocol-version': version,
        });
        assert.ok(isSse(res.headers['content-type']));
        const events = parseSse(res.body);
        assert.ok(events.length > 0);
        assert.ok(
          events.every((e) => e.data !== ''),
          `${version}: no event with empty data (${JSON.stringify(events)})`,
        );
        assert.equal(resultText(responseOf(res, 8)), 'echo: old');
      }
    },
  );

  test('an answer ready at once leaves with its head and priming event in one socket write', T, async () => {
    const { url, running } = await servers.start({ responseMode: 'sse' });
    const { sessionId } = await initSession(url);
    let writes = 0;
    running.httpServer.on('connection', (socket: Socket & { _write: unknown; _writev: unknown }) => {
      for (const key of ['_write', '_writev'] as const) {
        const original = socket[key] as (...args: unknown[]) => unknown;
        socket[key] = (...args: unknown[]) => {
          writes++;
          return original.apply(socket, args);
        };
      }
    });
    // Every raw request opens its own connection, so the new socket carries exactly this exchange.
    const res = await post(url, sessionId, toolCall(7, 'echo', { text: 'one write' }));
    assert.equal(resultText(responseOf(res, 7)), 'echo: one write');
    assert.equal(writes, 1);
  });

  test(
    'an answer ready when its stream is attached goes out whole (Content-Length, no chunks); a later one streams',
    T,
    async () => {
      const { url } = await servers.start({ responseMode: 'sse' });
      const { sessionId } = await initSession(url);
      const res = await post(url, sessionId, toolCall(9, 'echo', { text: 'whole' }));
      assert.equal(res.headers['transfer-encoding'], undefined);
      assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.body)));
      assert.equal(parseSse(res.body)[0]?.data, '', 'the priming event comes first');
      assert.equal(resultText(responseOf(res, 9)), 'echo: whole');
      // Whole, it has a JSON reply's headers: nothing about buffering or transforming a stream that goes on.
      assert.ok(isSse(res.headers['content-type']));
      assert.equal(res.headers['mcp-session-id'], sessionId);
      assert.equal(res.headers['x-accel-buffering'], undefined);
      assert.equal(res.headers['cache-control'], undefined);
      // A handler still at work when the stream is attached: its events are written as they come.
      const slow = await post(url, sessionId, toolCall(10, 'slow_progress', { steps: 2, delayMs: 5 }, 't'));
      assert.equal(slow.headers['transfer-encoding'], 'chunked');
      assert.equal(
        slow.headers['x-accel-buffering'],
        'no',
        'a proxy must not hold back a stream that goes on',
      );
      assert.equal(slow.headers['cache-control'], 'no-cache, no-transform');
      assert.equal(slow.complete, true);
      assert.equal(resultText(responseOf(slow, 10)), 'done after 2 steps');
    },
  );

  test('a notification is still 202 with an empty body in sse mode', T, async () => {
    const { url } = await servers.start({ responseMode: 'sse' });
    const { sessionId } = await initSession(url, { initialized: false });
    const res = await post(
      url,
      sessionId,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    );
    assert.equal(res.status, 202);
    assert.equal(res.body, '');
  });

  test('progress precedes the answer on the request stream, which closes after the answer', T, async () => {
    const { url } = await servers.start({ responseMode: 'sse' });
    const { sessionId } = await initSession(url);
    const res = await post(url, sessionId, toolCall(3, 'slow_progress', { steps: 3, delayMs: 5 }, 'tok'));
    assert.equal(res.complete, true);
    const messages = messagesOf(res);
    assert.deepEqual(
      messages.map((m) => ('method' in m ? m.method : 'response')),
      ['notifications/progress', 'notifications/progress', 'notifications/progress', 'response'],
    );
    assert.equal(resultText(responseOf(res, 3)), 'done after 3 steps');
  });
});

describe("responseMode 'auto'", () => {
  test('JSON when the handler streams nothing first', T, async () => {
    const { url } = await servers.start({ responseMode: 'auto' });
    const { sessionId } = await initSession(url);
    const echo = await callTool(url, sessionId, 1, 'echo', { text: 'a' });
    assert.ok(isJson(echo.res.headers['content-type']));
    assert.equal(echo.text, 'echo: a');
    // Without a progress token there is no progress to send: still JSON.
    const slow = await callTool(url, sessionId, 2, 'slow_progress', { steps: 2, delayMs: 5 });
    assert.ok(isJson(slow.res.headers['content-type']));
    assert.equal(slow.text, 'done after 2 steps');
  });

  test('SSE once the handler sends progress: priming event first, progress, then the answer', T, async () => {
    const { url } = await servers.start({ responseMode: 'auto' });
    const { sessionId } = await initSession(url);
    const res = await post(url, sessionId, toolCall(1, 'slow_progress', { steps: 3, delayMs: 5 }, 'tok'));
    assert.ok(isSse(res.headers['content-type']));
    assert.equal(res.complete, true);
    const events = parseSse(res.body);
    assert.equal(events[0]?.data, '');
    assert.ok(events[0]?.id);
    assert.equal(typeof events[0]?.retry, 'number');
    assert.deepEqual(
      messagesOf(res).map((m) => ('method' in m ? m.method : 'response')),
      ['notifications/progress', 'notifications/progress', 'notifications/progress', 'response'],
    );
  });

  test('SSE once the handler logs; JSON again when the log level filters the messages out', T, async () => {
    const { url } = await servers.start({ responseMode: 'auto' });
    const { sessionId } = await initSession(url);
    const logged = await post(url, sessionId, toolCall(1, 'log', { count: 2, level: 'info' }));
    assert.ok(isSse(logged.headers['content-type']));
    const logs = messagesOf(logged).filter(isNotification('notifications/message'));
    assert.equal(logs.length, 2);
    const level = await post(url, sessionId, rpcBody(2, 'logging/setLevel', { level: 'error' }));
    assert.equal(level.status, 200);
    const quiet = await post(url, sessionId, toolCall(3, 'log', { count: 2, level: 'info' }));
    assert.ok(isJson(quiet.headers['content-type']));
    assert.equal(resultText(responseOf(quiet, 3)), 'logged 2');
  });

  test(
    'a sampling request travels on the request stream; the client answers by POST (202); the result follows',
    T,
    async () => {
      const { url } = await servers.start({ responseMode: 'auto' });
      const { sessionId } = await initSession(url, { capabilities: CLIENT_CAPS });
      const get = await openStandalone(url, sessionId);
      const call = await openPost(url, sessionId, toolCall(1, 'sample', { prompt: 'hello' }));
      assert.ok(isSse(call.headers['content-type']));
      const request = await call.waitForMessage<{
        id: number;
        params: { messages: { content: { text: string } }[] };
      }>(isServerRequest('sampling/createMessage'), 'sampling request');
      assert.equal(request.params.messages[0]?.content.text, 'hello');
      const ack = await post(
        url,
        sessionId,
        JSON.stringify({
          jsonrpc: '2.0',
          id: request.id,
          result: { role: 'assistant', content: { type: 'text', text: 'world' }, model: 'm' },
        }),
      );
      assert.equal(ack.status, 202);
      assert.equal(ack.body, '');
      await call.waitEnd();
      assert.equal(resultText(call.messages.find(isResponse(1))), 'sampled: world');
      assert.deepEqual(get.messages, [], 'nothing of this request leaked onto the GET stream');
      get.cut();
    },
  );

  test(
    'an elicitation request travels on the request stream (sse mode) and its answer completes the call',
    T,
    async () => {
      const { url } = await servers.start({ responseMode: 'sse' });
      const { sessionId } = await initSession(url, { capabilities: CLIENT_CAPS });
      const call = await openPost(url, sessionId, toolCall(1, 'elicit'));
      const request = await call.waitForMessage<{ id: number; params: { mode?: string; message: string } }>(
        isServerRequest('elicitation/create'),
        'elicitation request',
      );
      assert.equal(request.params.message, 'Your name?');
      const ack = await post(
        url,
        sessionId,
        JSON.stringify({
          jsonrpc: '2.0',
          id: request.id,
          result: { action: 'accept', content: { name: 'Ada' } },
        }),
      );
      assert.equal(ack.status, 202);
      await call.waitEnd();
      const text = resultText(call.messages.find(isResponse(1)));
      assert.equal(text, `elicited: ${JSON.stringify({ action: 'accept', content: { name: 'Ada' } })}`);
    },
  );
});

describe('routing: each message on exactly one stream', () => {
  for (const responseMode of ['auto', 'sse'] as const) {
    test(
      `(${responseMode}) progress and logs stay on the request stream; list_changed goes on the GET stream`,
      T,
      async () => {
        const served = await servers.start({ responseMode });
        const { url, gates, target } = served;
        const { sessionId } = await initSession(url);
        const get = await openStandalone(url, sessionId);

        const call = await (async () => {
          const pending = openPost(url, sessionId, toolCall(1, 'gated', { key: 'route', steps: 2 }, 'rt'));
          await gates.arrived('route', 1);
          gates.release('route'); // progress 1
          return pending;
        })();
        assert.ok(isSse(call.headers['content-type']));
        await call.messagesAtLeast(1);
        target.disable(); // an unrelated change: notifications/tools/list_changed
        await get.waitForMessage(isNotification('notifications/tools/list_changed'), 'list_changed on GET');
        gates.release('route'); // progress 2
        await call.messagesAtLeast(2);
        gates.release('route'); // the answer
        await call.waitEnd();

        const onPost = call.messages.map((m) => ('method' in m ? m.method : 'response'));
        assert.deepEqual(onPost, ['notifications/progress', 'notifications/progress', 'response']);
        // Give a stray duplicate every chance to show up before checking the GET stream.
        const late = await callTool(url, sessionId, 2, 'echo', { text: 'barrier' });
        assert.equal(late.text, 'echo: barrier');
        const onGet = get.messages.map((m) => ('method' in m ? m.method : 'response'));
        assert.deepEqual(onGet, ['notifications/tools/list_changed']);
        get.cut();
      },
    );
  }

  test('list_changed reaches every session on its own GET stream, exactly once each', T, async () => {
    const { url, target } = await servers.start();
    const a = await initSession(url);
    const b = await initSession(url);
    const getA = await openStandalone(url, a.sessionId);
    const getB = await openStandalone(url, b.sessionId);
    target.disable();
    target.enable();
    await getA.messagesAtLeast(1);
    await getB.messagesAtLeast(1);
    await callTool(url, a.sessionId, 1, 'echo', { text: 'barrier' });
    // Changes made in one tick are announced once per kind.
    assert.equal(getA.messages.filter(isNotification('notifications/tools/list_changed')).length, 1);
    assert.equal(getB.messages.filter(isNotification('notifications/tools/list_changed')).length, 1);
    getA.cut();
    getB.cut();
  });
});
