// Raw HTTP against the dual-era server behind `serve()` (127.0.0.1): the Streamable HTTP rules of 2026-07-28 —
// the MCP-Protocol-Version / Mcp-Method / Mcp-Name headers checked against the body, x-mcp-header parameter
// mirrors, status codes (400 for envelope/header/capability/version errors, 404 for unknown methods, 405 for
// GET/DELETE, 202 for notifications), no sessions, and cancellation by closing the response stream. The same
// endpoint still serves initialize (the stateful era) beside it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { type RunningServer, serve } from '../../src/node.js';
import { META } from '../../src/spec/modern.js';
import { createDualServer, DUAL_INFO } from './fixtures/dual-server.js';
import { envelope, eventually, SUITE_TIMEOUT, sleep, within } from './helpers.js';

const dual = createDualServer();
let running: RunningServer;
let nextId = 1;

before(async () => {
  running = await serve(dual.server);
});
after(async () => {
  await running?.close();
});

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** The standard headers a conforming client sends with `message`. */
function headersFor(method: string, name?: string): Record<string, string> {
  const h: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  if (name !== undefined) h['mcp-name'] = name;
  return h;
}

/** A modern request body. */
function request(method: string, params: JsonObject = {}, caps: JsonObject = {}): JsonObject {
  return { jsonrpc: '2.0', id: nextId++, method, params: { _meta: envelope(caps), ...params } };
}

/** POSTs `body` with exactly `headers`; reads a JSON body, or the SSE events' messages. */
async function post(body: unknown, headers: Record<string, string>): Promise<Reply> {
  const response = await fetch(running.url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  let parsed: unknown;
  if (type.startsWith('text/event-stream')) {
    parsed = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)));
  } else if (text !== '') {
    parsed = JSON.parse(text);
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

type Reader = { read(): Promise<{ done: boolean; value?: Uint8Array }> };

/** Reads one chunk of a response body as text (bounded); throws when the stream ended. */
async function readChunk(reader: Reader, what: string): Promise<string> {
  const chunk = await within(reader.read(), what);
  if (chunk.done) throw new Error(`the stream ended while waiting for ${what}`);
  return new TextDecoder().decode(chunk.value);
}

function assertRejected(reply: Reply, status: number, code: number, id?: unknown): void {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  assert.equal(reply.body?.error?.code, code, JSON.stringify(reply.body));
  if (id !== undefined) assert.equal(reply.body.id, id);
}

describe('Streamable HTTP, 2026-07-28, raw', { timeout: SUITE_TIMEOUT }, () => {
  test('a conforming request: 200, JSON, resultType and serverInfo, no session id', async () => {
    const body = request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const reply = await post(body, headersFor('tools/call', 'echo'));
    assert.equal(reply.status, 200);
    assert.equal(reply.body.id, body.id);
    assert.equal(reply.body.result.resultType, 'complete');
    assert.deepEqual(reply.body.result._meta[META.serverInfo], DUAL_INFO);
    assert.equal(reply.headers.get('mcp-session-id'), null, 'no session in the stateless era');
  });

  test('header mismatches: 400 with -32020 and the request id', async () => {
    const call = () => request('tools/call', { name: 'echo', arguments: { text: 'x' } });
    const cases: [string, Record<string, string | undefined>][] = [
      ['MCP-Protocol-Version missing', { 'mcp-protocol-version': undefined }],
      ['MCP-Protocol-Version differs from _meta', { 'mcp-protocol-version': '2025-11-25' }],
      ['Mcp-Method missing', { 'mcp-method': undefined }],
      ['Mcp-Method differs from the body', { 'mcp-method': 'tools/list' }],
      ['Mcp-Name missing', { 'mcp-name': undefined }],
      ['Mcp-Name differs from params.name', { 'mcp-name': 'add' }],
      ['Mcp-Name differs only in case', { 'mcp-name': 'ECHO' }],
      ['Mcp-Name with a malformed Base64 sentinel', { 'mcp-name': '=?base64?@@@?=' }],
    ];
    for (const [what, change] of cases) {
      const body = call();
      const headers: Record<string, string> = { ...headersFor('tools/call', 'echo') };
      for (const [k, v] of Object.entries(change)) {
        if (v === undefined) delete headers[k];
        else headers[k] = v;
      }
      const reply = await post(body, headers);
      assert.equal(reply.status, 400, `${what}: ${JSON.stringify(reply.body)}`);
      assert.equal(
        reply.body?.error?.code,
        ErrorCode.HeaderMismatch,
        `${what}: ${JSON.stringify(reply.body)}`,
      );
      assert.equal(reply.body.id, body.id, what);
    }
    const read = request('resources/read', { uri: 'eras://static' });
    assertRejected(
      await post(read, headersFor('resources/read', 'eras://counter')),
      400,
      ErrorCode.HeaderMismatch,
    );
    const prompt = request('prompts/get', { name: 'greet', arguments: { name: 'Ada' } });
    assertRejected(await post(prompt, headersFor('prompts/get', 'introduce')), 400, ErrorCode.HeaderMismatch);
  });

  test('header values are decoded before comparing: a Base64-sentinel Mcp-Name matches', async () => {
    const b64 = `=?base64?${Buffer.from('eras://static').toString('base64')}?=`;
    const reply = await post(
      request('resources/read', { uri: 'eras://static' }),
      headersFor('resources/read', b64),
    );
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.result.contents[0].text, 'static text');
  });

  test('x-mcp-header parameters: Mcp-Param-Region must mirror the argument (400 -32020 otherwise)', async () => {
    const call = (region: string) => request('tools/call', { name: 'region', arguments: { region } });
    const base = headersFor('tools/call', 'region');
    assertRejected(await post(call('eu-west'), base), 400, ErrorCode.HeaderMismatch);
    assertRejected(
      await post(call('eu-west'), { ...base, 'mcp-param-region': 'us-east' }),
      400,
      ErrorCode.HeaderMismatch,
    );
    const ok = await post(call('eu-west'), { ...base, 'mcp-param-region': 'eu-west' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.result.content[0].text, 'region eu-west');
    const zurich = `=?base64?${Buffer.from('Zürich').toString('base64')}?=`;
    const encoded = await post(call('Zürich'), { ...base, 'mcp-param-region': zurich });
    assert.equal(encoded.status, 200, JSON.stringify(encoded.body));
    assert.equal(encoded.body.result.content[0].text, 'region Zürich');
  });

  test('status codes: unknown method 404 -32601; envelope 400 -32602; version 400 -32022; capability 400 -32021', async () => {
    const unknown = request('nope/nothing');
    assertRejected(
      await post(unknown, headersFor('nope/nothing')),
      404,
      ErrorCode.MethodNotFound,
      unknown.id,
    );

    const noCaps = {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/list',
      params: { _meta: { [META.protocolVersion]: '2026-07-28' } },
    };
    assertRejected(await post(noCaps, headersFor('tools/list')), 400, ErrorCode.InvalidParams, noCaps.id);

    const future = {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/list',
      params: { _meta: { ...envelope(), [META.protocolVersion]: '2099-01-01' } },
    };
    const old = await post(future, { ...headersFor('tools/list'), 'mcp-protocol-version': '2099-01-01' });
    assertRejected(old, 400, ErrorCode.UnsupportedProtocolVersion, future.id);
    assert.equal(old.body.error.data.requested, '2099-01-01');
    assert.ok(old.body.error.data.supported.includes('2026-07-28'));

    const interact = request('tools/call', { name: 'interact', arguments: { topic: 'x' } }, {});
    const missing = await post(interact, headersFor('tools/call', 'interact'));
    assertRejected(missing, 400, ErrorCode.MissingClientCapability, interact.id);
    assert.ok(missing.body.error.data.requiredCapabilities.elicitation);

    const notFound = request('resources/read', { uri: 'eras://nowhere' });
    assertRejected(
      await post(notFound, headersFor('resources/read', 'eras://nowhere')),
      400,
      ErrorCode.InvalidParams,
    );
  });

  test('a modern notification is accepted with 202 and no body; a modern batch is refused', async () => {
    const response = await fetch(running.url, {
      method: 'POST',
      headers: headersFor('notifications/cancelled'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 12345, _meta: envelope() },
      }),
    });
    assert.equal(response.status, 202);
    assert.equal(await response.text(), '');
    const batch = await post([request('tools/list'), request('prompts/list')], headersFor('tools/list'));
    assert.equal(batch.status, 400);
  });

  test('GET and DELETE with a 2026-07-28 version header: 405 with Allow', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(running.url, {
        method,
        headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' },
      });
      await response.text();
      assert.equal(response.status, 405, method);
      assert.match(response.headers.get('allow') ?? '', /POST/);
    }
  });

  test('an Mcp-Session-Id on a modern request is ignored (no session, no error)', async () => {
    const reply = await post(request('tools/list'), {
      ...headersFor('tools/list'),
      'mcp-session-id': 'bogus',
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.headers.get('mcp-session-id'), null);
  });

  test('closing a modern SSE response cancels the handler (its ctx.signal aborts)', async () => {
    const before = { ...dual.aborted };
    const controller = new AbortController();
    const body = request('tools/call', { name: 'wait_abort', arguments: {} });
    (body.params as { _meta: JsonObject })._meta.progressToken = 'cancel-me';
    const response = await fetch(running.url, {
      method: 'POST',
      headers: headersFor('tools/call', 'wait_abort'),
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(response.headers.get('x-accel-buffering'), 'no');
    assert.equal(response.headers.get('mcp-session-id'), null);
    const reader = response.body?.getReader();
    assert.ok(reader);
    let seen = '';
    while (!seen.includes('notifications/progress')) seen += await readChunk(reader, 'the first SSE event');
    assert.doesNotMatch(seen, /^id:/m, 'stateless SSE events carry no ids (no resumption)');
    assert.equal(dual.aborted.count, before.count, 'still running');
    controller.abort();
    await reader.cancel().catch(() => undefined);
    await eventually(() => dual.aborted.count === before.count + 1, 'the handler to see its signal abort');
    assert.equal(dual.aborted.started, before.started + 1);
  });

  test('subscriptions/listen over HTTP: an SSE stream, ack first, tagged updates; closing it unsubscribes', async () => {
    const size = dual.server.subscriptions.size;
    const controller = new AbortController();
    const body = request('subscriptions/listen', {
      notifications: { resourceSubscriptions: ['eras://counter'] },
    });
    const response = await fetch(running.url, {
      method: 'POST',
      headers: headersFor('subscriptions/listen'),
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = response.body?.getReader();
    assert.ok(reader);
    const messages: JsonObject[] = [];
    let buffer = '';
    const pump = async (until: (m: JsonObject) => boolean) => {
      while (!messages.some(until)) {
        buffer += await readChunk(reader, 'an SSE event on the listen stream');
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          for (const line of buffer.slice(0, end).split('\n')) {
            if (line.startsWith('data:')) messages.push(JSON.parse(line.slice(5)) as JsonObject);
          }
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      }
    };
    await pump((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.equal(messages[0]?.method, 'notifications/subscriptions/acknowledged', 'the ack comes first');
    const touch = request('tools/call', { name: 'touch', arguments: { uri: 'eras://counter' } });
    assert.equal((await post(touch, headersFor('tools/call', 'touch'))).status, 200);
    await pump((m) => m.method === 'notifications/resources/updated');
    const update = messages.find((m) => m.method === 'notifications/resources/updated') as {
      params: JsonObject;
    };
    assert.equal(update.params.uri, 'eras://counter');
    assert.equal((update.params._meta as JsonObject)[META.subscriptionId], body.id);
    assert.equal(dual.server.subscriptions.size, size + 1);
    controller.abort();
    await reader.cancel().catch(() => undefined);
    await eventually(() => dual.server.subscriptions.size === size, 'the subscription to be dropped');
  });

  test('a 2026-07-28 MCP-Protocol-Version header on a body without the _meta envelope: 400 with -32602 and the id', async () => {
    const reply = await post(
      { jsonrpc: '2.0', id: 'bare', method: 'tools/list', params: {} },
      headersFor('tools/list'),
    );
    assert.equal(reply.status, 400);
    const body = reply.body as { id: unknown; error: { code: number } };
    assert.equal(body.id, 'bare');
    assert.equal(body.error.code, -32602);
  });

  test("subscriptions/listen on a server with responseMode 'json': still an SSE stream with its ack", async () => {
    const jsonOnly = await serve(createDualServer().server, { responseMode: 'json' });
    const controller = new AbortController();
    try {
      const response = await fetch(jsonOnly.url, {
        method: 'POST',
        headers: headersFor('subscriptions/listen'),
        body: JSON.stringify(request('subscriptions/listen', { notifications: { toolsListChanged: true } })),
        signal: controller.signal,
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      const reader = response.body?.getReader();
      assert.ok(reader);
      let text = '';
      while (!text.includes('notifications/subscriptions/acknowledged')) {
        text += await readChunk(reader, 'the acknowledgement');
      }
      controller.abort();
      await reader.cancel().catch(() => undefined);
    } finally {
      await jsonOnly.close();
    }
  });

  test('a change right after the acknowledgement is delivered (no gap between ack and registration)', async () => {
    for (let round = 0; round < 20; round++) {
      const controller = new AbortController();
      const body = request('subscriptions/listen', {
        notifications: { resourceSubscriptions: ['eras://counter'] },
      });
      const response = await fetch(running.url, {
        method: 'POST',
        headers: headersFor('subscriptions/listen'),
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      const reader = response.body?.getReader();
      assert.ok(reader);
      let text = '';
      while (!text.includes('acknowledged')) text += await readChunk(reader, 'the ack');
      // No waiting at all between the ack and the change.
      void post(
        request('tools/call', { name: 'touch', arguments: { uri: 'eras://counter' } }),
        headersFor('tools/call', 'touch'),
      );
      while (!text.includes('notifications/resources/updated')) {
        text += await readChunk(reader, `the update in round ${round}`);
      }
      controller.abort();
      await reader.cancel().catch(() => undefined);
    }
    await sleep(20);
  });

  test('the same endpoint still serves the stateful era: initialize gets a session', async () => {
    const init = await post(
      {
        jsonrpc: '2.0',
        id: nextId++,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'legacy', version: '1' },
        },
      },
      { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    );
    assert.equal(init.status, 200);
    const result = Array.isArray(init.body) ? init.body[0].result : init.body.result;
    assert.equal(result.protocolVersion, '2025-11-25');
    assert.equal(result.resultType, undefined);
    const session = init.headers.get('mcp-session-id');
    assert.ok(session);
    const del = await fetch(running.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    });
    await del.text();
    assert.equal(del.status, 200, 'a stateful session can still be ended with DELETE');
  });
});
