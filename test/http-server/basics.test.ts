// Streamable HTTP basics over real sockets: session ids, what needs them, 202 for notifications and responses,
// DELETE, the standalone GET stream, stateless mode, MCP-Protocol-Version, and batches (2025-03-26 only).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  callTool,
  errorBody,
  initSession,
  LATEST,
  openGet,
  openPost,
  post,
  postHeaders,
  raw,
  responseOf,
  resultOf,
  resultText,
  rpcBody,
  Servers,
  TEST_TIMEOUT,
  toolCall,
  within,
} from './helpers.js';

const servers = new Servers();
after(() => servers.closeAll());

const T = { timeout: TEST_TIMEOUT };
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

describe('session ids', () => {
  test(
    'initialize hands out visible-ASCII, unpredictable session ids (100 distinct, >= 22 chars)',
    T,
    async () => {
      const { url } = await servers.start();
      const ids = await Promise.all(
        Array.from({ length: 100 }, async () => (await initSession(url)).sessionId),
      );
      assert.equal(new Set(ids).size, 100, 'every session id is distinct');
      for (const id of ids) {
        assert.match(id, /^[\x21-\x7e]+$/, `visible ASCII only: ${JSON.stringify(id)}`);
        assert.ok(id.length >= 22, `at least 22 characters (~128 bits): ${id}`);
      }
      // No shared prefix or counter-like structure: the first 8 characters alone are already all distinct.
      assert.equal(new Set(ids.map((id) => id.slice(0, 8))).size, 100);
    },
  );

  test('initialize answers with the id in the mcp-session-id header and a proper result', T, async () => {
    const { url } = await servers.start();
    const { sessionId, result, response } = await initSession(url);
    assert.equal(response.headers['mcp-session-id'], sessionId);
    assert.equal(result.protocolVersion, LATEST);
    assert.deepEqual(result.serverInfo, { name: 'http-test-server', version: '1.0.0' });
  });

  test('requests after initialize need the session id: 400 without, 404 for an unknown one', T, async () => {
    const { url } = await servers.start();
    const { sessionId } = await initSession(url);
    const without = await post(url, undefined, rpcBody(1, 'tools/list'));
    assert.equal(without.status, 400);
    assert.equal(errorBody(without).id, null);
    const unknown = await post(url, 'no-such-session-id-0000000000', rpcBody(2, 'tools/list'));
    assert.equal(unknown.status, 404);
    assert.equal(typeof errorBody(unknown).error.code, 'number');
    const ok = await post(url, sessionId, rpcBody(3, 'tools/list'));
    assert.equal(ok.status, 200);
    const tools = resultOf<{ tools: { name: string }[] }>(ok, 3).tools.map((t) => t.name);
    assert.ok(tools.includes('echo'));
  });

  test('a second initialize carrying a live session id is refused with 400', T, async () => {
    const { url } = await servers.start();
    const { sessionId } = await initSession(url);
    const again = await post(
      url,
      sessionId,
      rpcBody(9, 'initialize', {
        protocolVersion: LATEST,
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      }),
    );
    assert.equal(again.status, 400);
    errorBody(again);
  });

  for (const responseMode of ['json', 'sse', 'auto'] as const) {
    test(
      `a failed initialize (${responseMode}) answers the JSON-RPC error and hands out no session id`,
      T,
      async () => {
        const { url, running } = await servers.start({ responseMode });
        const res = await post(url, undefined, rpcBody(1, 'initialize', { capabilities: {} }), {
          'mcp-protocol-version': undefined,
        });
        assert.equal(res.status, 200);
        assert.equal(res.headers['mcp-session-id'], undefined);
        const answer = responseOf(res, 1) as { error?: { code: number } } | undefined;
        assert.equal(answer?.error?.code, -32602);
        assert.equal(running.streamable.sessionCount, 0);
      },
    );
  }
});

describe('notifications, responses and DELETE', () => {
  test('a notification is answered 202 with an empty body', T, async () => {
    const { url } = await servers.start();
    const { sessionId } = await initSession(url, { initialized: false });
    const res = await post(url, sessionId, INITIALIZED);
    assert.equal(res.status, 202);
    assert.equal(res.body, '');
    const cancel = await post(
      url,
      sessionId,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }),
    );
    assert.equal(cancel.status, 202);
    assert.equal(cancel.body, '');
  });

  test('a JSON-RPC response from the client is answered 202 with an empty body', T, async () => {
    const { url } = await servers.start();
    const { sessionId } = await initSession(url);
    const res = await post(url, sessionId, JSON.stringify({ jsonrpc: '2.0', id: 12345, result: {} }));
    assert.equal(res.status, 202);
    assert.equal(res.body, '');
    // The session still serves requests afterwards.
    assert.equal((await callTool(url, sessionId, 1, 'echo', { text: 'after' })).text, 'echo: after');
  });

  test('DELETE ends the session: its GET stream ends and the id gets 404 afterwards', T, async () => {
    const { url, running } = await servers.start();
    const { sessionId } = await initSession(url);
    const other = await initSession(url);
    const stream = await openGet(url, sessionId);
    assert.equal(stream.status, 200);
    const del = await raw(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST },
    });
    assert.ok(del.status >= 200 && del.status < 300, `DELETE answered ${del.status}`);
    await stream.waitEnd();
    assert.equal((await post(url, sessionId, rpcBody(1, 'tools/list'))).status, 404);
    assert.equal((await openGet(url, sessionId)).status, 404);
    const again = await raw(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST },
    });
    assert.equal(again.status, 404);
    assert.equal(running.streamable.sessionCount, 1);
    assert.equal(
      (await callTool(url, other.sessionId, 2, 'echo', { text: 'still here' })).text,
      'echo: still here',
    );
  });

  test('DELETE ends requests still in flight in that session (their POST gets 404)', T, async () => {
    const { url, gates } = await servers.start();
    const { sessionId } = await initSession(url);
    const pending = post(url, sessionId, toolCall(1, 'gated', { key: 'inflight' }));
    await gates.arrived('inflight');
    const del = await raw(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    assert.equal(del.status, 200);
    const ended = await pending;
    assert.equal(ended.status, 404);
    errorBody(ended);
    gates.release('inflight');
  });

  test('DELETE without a session id is 400; with allowDelete:false it is 405', T, async () => {
    const { url } = await servers.start();
    const missing = await raw(url, { method: 'DELETE', headers: { 'mcp-protocol-version': LATEST } });
    assert.equal(missing.status, 400);
    const closed = await servers.start({ allowDelete: false });
    const { sessionId } = await initSession(closed.url);
    const res = await raw(closed.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    assert.equal(res.status, 405);
    assert.ok(res.headers.allow !== undefined, 'a 405 names the allowed methods');
    assert.equal((await callTool(closed.url, sessionId, 1, 'echo', { text: 'alive' })).text, 'echo: alive');
  });
});

describe('the standalone GET stream', () => {
  test('GET opens an SSE stream that starts with a priming event', T, async () => {
    const { url } = await servers.start();
    const { sessionId } = await initSession(url);
    const stream = await openGet(url, sessionId);
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    const first = await stream.next();
    assert.equal(first.data, '');
    assert.ok(first.id !== undefined && first.id !== '', 'the priming event has an id');
    stream.cut();
  });

  test('a second concurrent GET is refused with 409; once the first is gone a new GET works', T, async () => {
    const { url } = await servers.start();
    const { sessionId } = await initSession(url);
    const first = await openGet(url, sessionId);
    assert.equal(first.status, 200);
    const second = await openGet(url, sessionId);
    assert.equal(second.status, 409);
    await second.waitEnd();
    first.cut();
    let third = await openGet(url, sessionId);
    for (let i = 0; third.status === 409 && i < 50; i++) {
      await third.waitEnd();
      await new Promise((resolve) => setTimeout(resolve, 20));
      third = await openGet(url, sessionId);
    }
    assert.equal(third.status, 200);
    third.cut();
  });

  test(
    'GET without Accept: text/event-stream is 406; without a session id 400; unknown id 404',
    T,
    async () => {
      const { url } = await servers.start();
      const { sessionId } = await initSession(url);
      const noAccept = await raw(url, {
        headers: { 'mcp-session-id': sessionId, accept: 'application/json' },
      });
      assert.equal(noAccept.status, 406);
      const noId = await raw(url, { headers: { accept: 'text/event-stream' } });
      assert.equal(noId.status, 400);
      const unknown = await raw(url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'nope-nope-nope-nope-nope' },
      });
      assert.equal(unknown.status, 404);
    },
  );

  test('getStream:false answers GET with 405 and an Allow header', T, async () => {
    const { url } = await servers.start({ getStream: false });
    const { sessionId } = await initSession(url);
    const res = await raw(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    assert.equal(res.status, 405);
    assert.ok(res.headers.allow?.includes('POST'));
    assert.ok(!res.headers.allow?.includes('GET'), 'GET is not offered');
    errorBody(res);
    assert.equal(
      (await callTool(url, sessionId, 1, 'echo', { text: 'post works' })).text,
      'echo: post works',
    );
  });

  test(
    'the Allow header of a 405 lists exactly the methods the endpoint accepts (getStream:false keeps DELETE)',
    T,
    async () => {
      const { url } = await servers.start({ getStream: false });
      const { sessionId } = await initSession(url);
      const res = await raw(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
      assert.equal(res.status, 405);
      const allowed = new Set((res.headers.allow ?? '').split(',').map((m) => m.trim()));
      assert.deepEqual(allowed, new Set(['POST', 'DELETE']));
      const del = await raw(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      assert.equal(del.status, 200, 'DELETE is indeed accepted');
    },
  );
});

describe('stateless mode (sessions:false)', () => {
  test('no session id; every POST works alone; GET and DELETE are 405', T, async () => {
    const { url, running } = await servers.start({ sessions: false });
    const init = await post(
      url,
      undefined,
      rpcBody(0, 'initialize', {
        protocolVersion: LATEST,
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      }),
      { 'mcp-protocol-version': undefined },
    );
    assert.equal(init.status, 200);
    assert.equal(init.headers['mcp-session-id'], undefined);
    assert.equal(resultOf<{ protocolVersion: string }>(init, 0).protocolVersion, LATEST);

    // No handshake needed, no id carried: each request stands alone.
    const call = await callTool(url, undefined, 1, 'echo', { text: 'alone' });
    assert.equal(call.res.status, 200);
    assert.equal(call.res.headers['mcp-session-id'], undefined);
    assert.equal(call.text, 'echo: alone');
    const list = await post(url, undefined, rpcBody(2, 'tools/list'));
    assert.ok(resultOf<{ tools: unknown[] }>(list, 2).tools.length > 0);
    const note = await post(url, undefined, INITIALIZED);
    assert.equal(note.status, 202);
    assert.equal(note.body, '');

    const get = await raw(url, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    assert.ok(get.headers.allow !== undefined);
    const del = await raw(url, { method: 'DELETE' });
    assert.equal(del.status, 405);
    assert.ok(del.headers.allow !== undefined);
    assert.equal(running.streamable.sessionCount, 0);
  });

  test(
    'stateless requests run concurrently and independently (same JSON-RPC id from two clients)',
    T,
    async () => {
      const { url } = await servers.start({ sessions: false });
      const [a, b] = await Promise.all([
        callTool(url, undefined, 7, 'slow_progress', { steps: 2, delayMs: 20, tag: 'a:' }),
        callTool(url, undefined, 7, 'slow_progress', { steps: 2, delayMs: 20, tag: 'b:' }),
      ]);
      assert.equal(a.text, 'a:done after 2 steps');
      assert.equal(b.text, 'b:done after 2 steps');
    },
  );

  test('stateless SSE mode answers each request on its own stream that then closes', T, async () => {
    const { url } = await servers.start({ sessions: false, responseMode: 'sse' });
    const call = await callTool(url, undefined, 1, 'echo', { text: 'sse' });
    assert.match(String(call.res.headers['content-type']), /^text\/event-stream/);
    assert.equal(call.res.complete, true);
    assert.equal(call.text, 'echo: sse');
  });
});

describe('MCP-Protocol-Version', () => {
  test('an unsupported version on POST is 400; missing is accepted (as 2025-03-26)', T, async () => {
    const { url } = await servers.start();
    const { sessionId } = await initSession(url);
    const bad = await post(url, sessionId, toolCall(1, 'echo', { text: 'x' }), {
      'mcp-protocol-version': '1999-01-01',
    });
    assert.equal(bad.status, 400);
    errorBody(bad);
    const missing = await callTool(
      url,
      sessionId,
      2,
      'echo',
      { text: 'no header' },
      { 'mcp-protocol-version': undefined },
    );
    assert.equal(missing.res.status, 200);
    assert.equal(missing.text, 'echo: no header');
  });

  test('a 2025-03-26 header inside a session negotiated at 2025-11-25 is accepted', T, async () => {
    const { url } = await servers.start();
    const { sessionId, result } = await initSession(url);
    assert.equal(result.protocolVersion, '2025-11-25');
    const call = await callTool(
      url,
      sessionId,
      1,
      'echo',
      { text: 'old header' },
      { 'mcp-protocol-version': '2025-03-26' },
    );
    assert.equal(call.res.status, 200);
    assert.equal(call.text, 'echo: old header');
  });

  test(
    'an unsupported version on GET and DELETE is 400 too (the header is checked on every request)',
    T,
    async () => {
      const { url } = await servers.start();
      const { sessionId } = await initSession(url);
      const get = await openGet(url, sessionId, undefined, { 'mcp-protocol-version': '1999-01-01' });
      get.cut();
      assert.equal(get.status, 400);
      const del = await raw(url, {
        method: 'DELETE',
        headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '1999-01-01' },
      });
      assert.equal(del.status, 400);
    },
  );
});

describe('JSON-RPC batches', () => {
  test('a 2025-03-26 session accepts a batch and answers every request in one array', T, async () => {
    const { url } = await servers.start();
    const { sessionId, result } = await initSession(url, { protocolVersion: '2025-03-26' });
    assert.equal(result.protocolVersion, '2025-03-26');
    const body = `[${toolCall(1, 'echo', { text: 'one' })},${toolCall(2, 'echo', { text: 'two' })},${JSON.stringify(
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 77 },
      },
    )}]`;
    const res = await post(url, sessionId, body, { 'mcp-protocol-version': '2025-03-26' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const answers = JSON.parse(res.body) as { id: number }[];
    assert.ok(Array.isArray(answers));
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2]);
    assert.equal(resultText(responseOf(res, 1)), 'echo: one');
    assert.equal(resultText(responseOf(res, 2)), 'echo: two');
    const notes = await post(url, sessionId, `[${INITIALIZED},${INITIALIZED}]`, {
      'mcp-protocol-version': '2025-03-26',
    });
    assert.equal(notes.status, 202);
  });

  test(
    'in sse mode a batch is answered on one event stream that closes after the last response',
    T,
    async () => {
      const { url } = await servers.start({ responseMode: 'sse' });
      const { sessionId } = await initSession(url, { protocolVersion: '2025-03-26' });
      const body = `[${toolCall(1, 'echo', { text: 'one' })},${toolCall(2, 'slow_progress', { steps: 1, delayMs: 20 })}]`;
      const res = await post(url, sessionId, body, { 'mcp-protocol-version': '2025-03-26' });
      assert.match(String(res.headers['content-type']), /^text\/event-stream/);
      assert.equal(res.complete, true);
      assert.equal(resultText(responseOf(res, 1)), 'echo: one');
      assert.equal(resultText(responseOf(res, 2)), 'done after 1 steps');
    },
  );

  test('a 2025-11-25 (or 2025-06-18) session refuses batches with 400', T, async () => {
    const { url } = await servers.start();
    for (const version of ['2025-11-25', '2025-06-18']) {
      const { sessionId } = await initSession(url, { protocolVersion: version });
      const res = await post(
        url,
        sessionId,
        `[${toolCall(1, 'echo', { text: 'a' })},${toolCall(2, 'echo', { text: 'b' })}]`,
        {
          'mcp-protocol-version': version,
        },
      );
      assert.equal(res.status, 400, `batch refused for ${version}`);
      errorBody(res);
      // A single request still works.
      assert.equal(
        (await callTool(url, sessionId, 3, 'echo', { text: 'single' }, { 'mcp-protocol-version': version }))
          .text,
        'echo: single',
      );
    }
  });

  test('initialize inside a batch and an empty batch are refused with 400', T, async () => {
    const { url } = await servers.start();
    const init = rpcBody(0, 'initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    const res = await post(url, undefined, `[${init},${rpcBody(1, 'ping')}]`, {
      'mcp-protocol-version': undefined,
    });
    assert.equal(res.status, 400);
    assert.equal(res.headers['mcp-session-id'], undefined);
    const { sessionId } = await initSession(url, { protocolVersion: '2025-03-26' });
    const empty = await post(url, sessionId, '[]', { 'mcp-protocol-version': '2025-03-26' });
    assert.equal(empty.status, 400);
    assert.equal(errorBody(empty).error.code, -32600);
  });
});

describe('cancellation', () => {
  for (const responseMode of ['auto', 'sse'] as const) {
    test(`(${responseMode}) a cancelled request's POST exchange still ends, and its id is free again`, {
      ...T,
    }, async () => {
      const { url, gates } = await servers.start({ responseMode });
      const { sessionId } = await initSession(url);
      const pending = post(url, sessionId, toolCall(7, 'gated', { key: 'c' }));
      await gates.arrived('c');
      const cancel = await post(
        url,
        sessionId,
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 7, reason: 'user' },
        }),
      );
      assert.equal(cancel.status, 202);
      gates.release('c'); // the handler returns; its result must not be sent
      const ended = await pending;
      assert.equal(responseOf(ended, 7), undefined, 'no response to a cancelled request');
      const reuse = await callTool(url, sessionId, 7, 'echo', { text: 'reused' });
      assert.equal(reuse.res.status, 200);
      assert.equal(reuse.text, 'echo: reused');
    });
  }
});

describe('shutdown', () => {
  test('close() ends open GET and POST streams and stops listening', T, async () => {
    const extra = new Servers();
    const { url, running, gates } = await extra.start({ responseMode: 'sse' });
    const { sessionId } = await initSession(url);
    const get = await openGet(url, sessionId);
    const call = await openPost(url, sessionId, toolCall(1, 'gated', { key: 'shutdown' }));
    await gates.arrived('shutdown');
    await within(running.close(), 'close() to resolve');
    await get.waitEnd();
    await call.waitEnd();
    assert.equal(running.httpServer.listening, false);
    await assert.rejects(raw(url, { method: 'POST', headers: postHeaders(undefined), body: '{}' }));
    gates.releaseAll();
    await extra.closeAll();
  });
});
