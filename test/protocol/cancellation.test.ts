// Cancellation in both directions: caller AbortSignals, notifications/cancelled, races with late responses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Client,
  createLinkedTransports,
  type JsonRpcMessage,
  McpkitError,
  McpServer,
  type RequestContext,
} from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import {
  deadline,
  eventually,
  fakeServer,
  gate,
  initializeResult,
  rawClient,
  recordSends,
  settle,
  sleep,
} from './helpers.js';

interface Waiting {
  contexts: RequestContext[];
  entered: ReturnType<typeof gate<void>>;
  answered: number;
}

function waitingServer(state: Waiting, errors: Error[] = []): McpServer {
  const server = new McpServer({ name: 'cancel', version: '1' }, { onerror: (e) => errors.push(e) });
  server.tool('wait', {}, async (_args, ctx) => {
    state.contexts.push(ctx);
    state.entered.open();
    await Promise.race([
      new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
      sleep(5000),
    ]);
    state.answered++;
    return 'answered after all'; // must not reach the wire once cancelled
  });
  server.tool('quick', {}, () => 'quick');
  return server;
}

const isCancelled = (error: unknown) => {
  assert.ok(error instanceof McpkitError, String(error));
  assert.equal(error.code, 'REQUEST_CANCELLED');
  return true;
};

async function recordedPair(server: McpServer): Promise<{ client: Client; sent: JsonRpcMessage[] }> {
  const [clientSide, serverSide] = createLinkedTransports();
  const { transport, sent } = recordSends(serverSide);
  await server.connect(transport);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  return { client, sent };
}

test('a caller AbortSignal cancels: the handler signal aborts, no response is sent, the call rejects', async () => {
  const state: Waiting = { contexts: [], entered: gate(), answered: 0 };
  const { client, sent } = await recordedPair(waitingServer(state));
  const controller = new AbortController();
  const call = client.callTool('wait', {}, { signal: controller.signal });
  await deadline(state.entered.promise, 'the handler to start');
  controller.abort('user pressed stop');
  await deadline(assert.rejects(call, isCancelled), 'the rejection');
  await assert.rejects(call, /user pressed stop/);
  await eventually(() => state.answered === 1, 'the handler to return after its abort');
  const ctx = state.contexts[0];
  assert.ok(ctx?.signal.aborted);
  assert.match(
    String(ctx.signal.reason),
    /user pressed stop/,
    'the reason travels in notifications/cancelled',
  );
  await client.ping();
  await settle();
  const responses = sent.filter((m) => !('method' in m) && m.id === ctx.requestId);
  assert.deepEqual(responses, [], 'no response for the cancelled request');
  await client.close();
});

test('an AbortSignal fired after the response changes nothing', async () => {
  const state: Waiting = { contexts: [], entered: gate(), answered: 0 };
  const { client } = await connectInMemory(waitingServer(state));
  const controller = new AbortController();
  const result = await client.callTool('quick', {}, { signal: controller.signal });
  controller.abort();
  assert.deepEqual(result.content, [{ type: 'text', text: 'quick' }]);
  await client.ping();
  await client.close();
});

test('an already-aborted signal rejects without sending the request', {}, async () => {
  const state: Waiting = { contexts: [], entered: gate(), answered: 0 };
  const errors: Error[] = [];
  const server = waitingServer(state);
  let calls = 0;
  server.use(async (request, next) => {
    if (request.method === 'tools/call') calls++;
    return next();
  });
  const { client } = await connectInMemory(server, { onerror: (e) => errors.push(e) });
  const controller = new AbortController();
  controller.abort('too late');
  await assert.rejects(() => client.callTool('quick', {}, { signal: controller.signal }), isCancelled);
  await client.ping();
  await settle();
  assert.equal(calls, 0, 'the server never saw the request');
  assert.deepEqual(
    errors.map((e) => e.message),
    [],
    'no "unknown request id" error from a response nobody waits for',
  );
  await client.close();
});

test('a cancel for an unknown id (or a malformed cancel) is ignored quietly', async () => {
  const errors: Error[] = [];
  const state: Waiting = { contexts: [], entered: gate(), answered: 0 };
  const { raw } = await rawClient(waitingServer(state, errors));
  const before = raw.messages.length;
  for (const params of [
    { requestId: 999_999, reason: 'no such request' },
    { requestId: 'nope' },
    { requestId: null },
    { reason: 'no id at all' },
    { requestId: { nested: true } },
  ]) {
    await raw.notify('notifications/cancelled', params as Record<string, unknown>);
  }
  await raw.notify('notifications/cancelled');
  await raw.request('ping');
  assert.equal(raw.messages.length, before + 1, 'only the ping was answered');
  assert.deepEqual(errors, []);
  await raw.transport.close();
});

test('a cancel for a request that already finished is ignored', async () => {
  const errors: Error[] = [];
  const state: Waiting = { contexts: [], entered: gate(), answered: 0 };
  const { raw } = await rawClient(waitingServer(state, errors));
  const response = await raw.request('tools/call', { name: 'quick' }, 42);
  assert.ok('result' in response);
  await raw.notify('notifications/cancelled', { requestId: 42 });
  await raw.request('ping');
  assert.equal(raw.responses(42).length, 1);
  assert.deepEqual(errors, []);
  await raw.transport.close();
});

test('a response arriving after the cancel is tolerated by the client', async () => {
  const errors: Error[] = [];
  const called = gate<number | string>();
  const { raw, clientTransport } = await fakeServer((request) => {
    if (request.method === 'initialize') return initializeResult();
    if (request.method === 'tools/call') {
      called.open(request.id);
      return undefined; // answered by hand below, after the cancel
    }
    return { result: {} };
  });
  const client = new Client({ name: 'c', version: '1' }, { onerror: (e) => errors.push(e) });
  await client.connect(clientTransport);
  const controller = new AbortController();
  const call = client.callTool('slow', {}, { signal: controller.signal });
  const id = await deadline(called.promise, 'the tools/call to arrive');
  controller.abort();
  await assert.rejects(call, isCancelled);
  const cancel = await raw.waitFor(
    (m) => 'method' in m && m.method === 'notifications/cancelled',
    'the cancel',
  );
  assert.equal('params' in cancel ? cancel.params?.requestId : undefined, id);
  // The fake server ignores the cancel and answers anyway.
  await raw.send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'late' }] } });
  await settle();
  await client.ping();
  assert.deepEqual(errors, [], 'a late response to a cancelled request is not an error');
  await client.close();
});

test('server → client: a cancelled tool call cancels the sampling request it was waiting on', async () => {
  const server = new McpServer({ name: 'nested', version: '1' });
  const toolEntered = gate();
  server.tool('ask', {}, async (_args, ctx) => {
    toolEntered.open();
    await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 });
    return 'sampled';
  });
  const samplingAborted = gate<unknown>();
  const { client } = await connectInMemory(server, {
    sampling: async (_params, ctx) => {
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      samplingAborted.open(ctx.signal.reason);
      return { role: 'assistant', content: { type: 'text', text: 'too late' }, model: 'm' };
    },
  });
  const controller = new AbortController();
  const call = client.callTool('ask', {}, { signal: controller.signal });
  await deadline(toolEntered.promise, 'the tool to start');
  await settle();
  controller.abort('stop');
  await assert.rejects(call, isCancelled);
  await deadline(samplingAborted.promise, 'the client sampling handler to be cancelled');
  await client.ping();
  await client.close();
});

test('server → client: session.request with a signal cancels the client handler', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  const rootsEntered = gate();
  const rootsAborted = gate();
  const { client, session } = await connectInMemory(server, {
    rootsHandler: async (ctx) => {
      rootsEntered.open();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      rootsAborted.open();
      return [];
    },
  });
  const controller = new AbortController();
  const request = session.request('roots/list', undefined, { signal: controller.signal });
  await deadline(rootsEntered.promise, 'the roots handler to start');
  controller.abort();
  await assert.rejects(request, isCancelled);
  await deadline(rootsAborted.promise, 'the client roots handler to see the cancel');
  await client.close();
});

test('closing the connection aborts in-flight handlers and fails pending calls with CONNECTION_CLOSED', async () => {
  const state: Waiting = { contexts: [], entered: gate(), answered: 0 };
  const { client } = await connectInMemory(waitingServer(state));
  const call = client.callTool('wait');
  await deadline(state.entered.promise, 'the handler to start');
  await client.close();
  await assert.rejects(call, { code: 'CONNECTION_CLOSED' });
  await eventually(() => state.contexts[0]?.signal.aborted === true, 'the handler signal to abort');
  assert.equal((state.contexts[0]?.signal.reason as McpkitError | undefined)?.code, 'CONNECTION_CLOSED');
});
