// Bad input injected as raw text on the server side of an in-memory pair. After each one, a ping still answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type JsonRpcResponse, McpServer } from '../../src/index.js';
import { deadline, errorOf, gate, type RawPeer, rawClient, resultOf, settle } from './helpers.js';

function badInputServer(errors: Error[] = []): McpServer {
  const server = new McpServer({ name: 'bad-input', version: '1' }, { onerror: (e) => errors.push(e) });
  server.tool('echo', {}, () => 'ok');
  server.resource('test://broken', { name: 'broken' }, () => {
    const error = new Error('database password is hunter2 at /srv/db.sqlite');
    throw error;
  });
  server.resource('test://throws-string', { name: 'str' }, () => {
    throw 'a bare string with /etc/secret';
  });
  return server;
}

async function stillServing(raw: RawPeer): Promise<void> {
  assert.deepEqual(resultOf(await raw.request('ping')), {});
}

/** Sends raw text and returns the next message received (the server's answer to it). */
async function answerTo(raw: RawPeer, text: string): Promise<JsonRpcResponse> {
  const from = raw.messages.length;
  await raw.sendRaw(text);
  const answer = await raw.waitFor(() => true, `an answer to ${text.slice(0, 60)}`, from);
  assert.ok(!('method' in answer), `expected a response, got ${JSON.stringify(answer)}`);
  return answer;
}

test('malformed JSON is -32700 with id null', async () => {
  const { raw } = await rawClient(badInputServer());
  for (const text of [
    '{"jsonrpc":',
    'not json at all',
    '{"jsonrpc":"2.0","id":1,"method":"ping",}',
    '\u0000',
  ]) {
    const answer = await answerTo(raw, text);
    assert.equal(answer.id, null, text);
    assert.equal(errorOf(answer).code, -32700, text);
    await stillServing(raw);
  }
  await raw.transport.close();
});

test('a wrong or missing jsonrpc field is -32600, keeping a readable id', async () => {
  const { raw } = await rawClient(badInputServer());
  for (const [text, id] of [
    ['{"jsonrpc":"1.0","id":7,"method":"ping"}', 7],
    ['{"id":"x","method":"ping"}', 'x'],
    ['{"jsonrpc":2,"id":8,"method":"ping"}', 8],
  ] as const) {
    const answer = await answerTo(raw, text);
    assert.equal(answer.id, id, text);
    assert.equal(errorOf(answer).code, -32600, text);
    await stillServing(raw);
  }
  await raw.transport.close();
});

test('a missing or invalid method is -32600', async () => {
  const { raw } = await rawClient(badInputServer());
  for (const text of [
    '{"jsonrpc":"2.0","id":9}',
    '{"jsonrpc":"2.0","id":9,"params":{}}',
    '{"jsonrpc":"2.0","id":9,"method":5}',
    '{"jsonrpc":"2.0","id":9,"method":""}',
    '{"jsonrpc":"2.0","id":9,"method":"ping","params":[1,2]}',
    '"just a string"',
    'null',
  ]) {
    const answer = await answerTo(raw, text);
    assert.equal(errorOf(answer).code, -32600, text);
    await stillServing(raw);
  }
  await raw.transport.close();
});

test('an unknown method is -32601 with the request id', async () => {
  const { raw } = await rawClient(badInputServer());
  const response = await raw.request('tools/dance', {}, 'u1');
  assert.equal(response.id, 'u1');
  assert.equal(errorOf(response).code, -32601);
  assert.match(errorOf(response).message, /tools\/dance/);
  await stillServing(raw);
  await raw.transport.close();
});

test('wrong parameter types are -32602', async () => {
  const { raw } = await rawClient(badInputServer());
  const cases: [string, Record<string, unknown>][] = [
    ['tools/call', { name: 5 }],
    ['tools/call', {}],
    ['resources/read', { uri: false }],
    ['logging/setLevel', { level: 1 }],
    ['tools/list', { cursor: 12 }],
  ];
  for (const [method, params] of cases) {
    const response = await raw.request(method, params);
    assert.equal(errorOf(response).code, -32602, `${method} ${JSON.stringify(params)}`);
    await stillServing(raw);
  }
  await raw.transport.close();
});

test('a duplicate request id while the first is in flight gets an error; the first still answers', async () => {
  const server = badInputServer();
  const release = gate();
  const entered = gate();
  server.tool('slow', {}, async () => {
    entered.open();
    await release.promise;
    return 'slow done';
  });
  const { raw } = await rawClient(server);
  await raw.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'slow' } });
  await deadline(entered.promise, 'the slow handler to start');
  await raw.send({ jsonrpc: '2.0', id: 'dup', method: 'ping' });
  const first = (await raw.waitFor(
    (m) => !('method' in m) && m.id === 'dup',
    'the duplicate error',
  )) as JsonRpcResponse;
  assert.equal(errorOf(first).code, -32600);
  assert.match(errorOf(first).message, /[Dd]uplicate/);
  release.open();
  await raw.waitFor((m) => !('method' in m) && m.id === 'dup' && 'result' in m, 'the first request result');
  const answers = raw.responses('dup');
  assert.equal(answers.length, 2);
  assert.deepEqual(resultOf(answers[1]!).content, [{ type: 'text', text: 'slow done' }]);
  // Once finished, the id may be used again.
  assert.deepEqual(resultOf(await raw.request('ping', undefined, 'dup')), {});
  await raw.transport.close();
});

test('a response to an unknown id is ignored and the connection keeps serving', async () => {
  const errors: Error[] = [];
  const { raw } = await rawClient(badInputServer(errors));
  const from = raw.messages.length;
  await raw.send({ jsonrpc: '2.0', id: 424242, result: {} });
  await raw.send({ jsonrpc: '2.0', id: 'who', error: { code: -32000, message: 'nobody asked' } });
  await raw.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'null id' } });
  await stillServing(raw);
  assert.equal(raw.messages.length, from + 1, 'nothing but the ping answer');
  assert.ok(errors.length >= 1, 'reported locally');
  await raw.transport.close();
});

for (const uri of ['test://broken', 'test://throws-string']) {
  test(`an internal error in a resource handler (${uri}) is -32603 'Internal error' with no leak`, async () => {
    const errors: Error[] = [];
    const { raw } = await rawClient(badInputServer(errors));
    const response = await raw.request('resources/read', { uri });
    const error = errorOf(response);
    assert.deepEqual(error, { code: -32603, message: 'Internal error' });
    const wire = JSON.stringify(response);
    for (const secret of ['hunter2', '/srv', '/etc/secret', 'at ', 'stack', '.js']) {
      assert.ok(!wire.includes(secret), `the response leaks "${secret}": ${wire}`);
    }
    assert.ok(
      errors.some((e) => /hunter2|\/etc\/secret/.test(e.message)),
      'the server reports it locally',
    );
    await stillServing(raw);
    await raw.transport.close();
  });
}

test('notifications that are unknown or malformed get no answer', async () => {
  const { raw } = await rawClient(badInputServer());
  const from = raw.messages.length;
  await raw.notify('notifications/whatever', { x: 1 });
  await raw.notify('tools/call', { name: 'echo' });
  await raw.notify('notifications/progress', { progressToken: 'unknown', progress: 'x' });
  await settle();
  await stillServing(raw);
  assert.equal(raw.messages.length, from + 1);
  await raw.transport.close();
});
