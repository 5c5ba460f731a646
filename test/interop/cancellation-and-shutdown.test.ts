// Cancellation and shutdown across implementations over real stdio processes: a tool call cancelled in either direction
// (our server must pass the cancel on to the sampling request its handler made), and either client closing while the
// server waits on a server-to-client request (no process may outlive close()).
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { Client, type CreateMessageResult, McpkitError } from '../../src/index.js';
import { StdioClientTransport } from '../../src/stdio.js';
import {
  CALL,
  isAlive,
  MCPKIT_SERVER,
  OFFICIAL_SERVER,
  Pids,
  TapTransport,
  TEST_TIMEOUT,
  within,
} from './helpers.js';

const pids = new Pids();
after(() => pids.killAll());

test('official client cancels ask_sampling on our server: the sampling request is cancelled too, no response follows', {
  timeout: TEST_TIMEOUT,
}, async () => {
  const transport = new SdkStdioClientTransport({
    command: process.execPath,
    args: [MCPKIT_SERVER],
    stderr: 'pipe',
  });
  const client = new SdkClient(
    { name: 'official-interop-client', version: '1.0.0' },
    { capabilities: { sampling: {} } },
  );
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  let samplingArrived!: (id: string | number) => void;
  const arrived = new Promise<string | number>((resolve) => {
    samplingArrived = resolve;
  });
  let samplingAborted!: () => void;
  const aborted = new Promise<void>((resolve) => {
    samplingAborted = resolve;
  });
  client.setRequestHandler(
    CreateMessageRequestSchema,
    (_request, extra) =>
      new Promise((_resolve, reject) => {
        samplingArrived(extra.requestId);
        extra.signal.addEventListener('abort', () => {
          samplingAborted();
          reject(new Error('sampling aborted'));
        });
      }),
  );
  await client.connect(transport, CALL);
  pids.add(transport.pid);
  const received: JSONRPCMessage[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message) => {
    received.push(message);
    deliver?.(message);
  };
  try {
    const controller = new AbortController();
    const call = client.callTool({ name: 'ask_sampling', arguments: { prompt: 'x' } }, CallToolResultSchema, {
      ...CALL,
      signal: controller.signal,
    });
    const samplingId = await arrived;
    controller.abort('user stopped');
    await assert.rejects(call);
    // Our server must pass the cancellation on to the request its handler made.
    await within(aborted, 2_000, 'the sampling request was never cancelled');
    const cancelled = received.find((m) => 'method' in m && m.method === 'notifications/cancelled');
    assert.ok(cancelled && 'params' in cancelled);
    assert.equal(cancelled.params?.requestId, samplingId);
    // The connection still works, and the cancelled tools/call was never answered.
    await client.ping(CALL);
    const responses = received.filter((m) => 'result' in m || 'error' in m);
    assert.deepEqual(
      responses.map((m) => ('result' in m ? m.result : m)),
      [{}],
      'the only response received is the ping',
    );
    assert.deepEqual(protocolErrors, []);
  } finally {
    await client.close();
  }
});

test('our client cancels a tool call on the official server: cancel sent, call rejects, connection stays healthy', {
  timeout: TEST_TIMEOUT,
}, async () => {
  let release!: (result: CreateMessageResult) => void;
  let samplingArrived!: () => void;
  const arrived = new Promise<void>((resolve) => {
    samplingArrived = resolve;
  });
  const errors: Error[] = [];
  const inner = new StdioClientTransport({ command: process.execPath, args: [OFFICIAL_SERVER] });
  const tap = new TapTransport(inner);
  const client = new Client(
    { name: 'mcpkit-interop-client', version: '1.0.0' },
    {
      sampling: () =>
        new Promise<CreateMessageResult>((resolve) => {
          release = resolve;
          samplingArrived();
        }),
      onerror: (error) => errors.push(error),
    },
  );
  await client.connect(tap, CALL);
  pids.add(inner.pid);
  try {
    const controller = new AbortController();
    const call = client.callTool('ask_sampling', { prompt: 'x' }, { ...CALL, signal: controller.signal });
    await arrived;
    controller.abort('user stopped');
    await assert.rejects(call, (e: unknown) => e instanceof McpkitError && e.code === 'REQUEST_CANCELLED');
    const request = tap.sent.find((m) => 'method' in m && m.method === 'tools/call');
    const cancel = tap.sent.find((m) => 'method' in m && m.method === 'notifications/cancelled');
    assert.ok(request && 'id' in request && cancel && 'params' in cancel);
    assert.equal(cancel.params?.requestId, request.id);
    // Answer the sampling request the official server is still waiting on; whatever it then does with the dropped
    // tool call must not upset our client.
    release({
      role: 'assistant',
      content: { type: 'text', text: 'late' },
      model: 'm',
      stopReason: 'endTurn',
    });
    await client.ping(CALL);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(
      errors.map((e) => e.message),
      [],
    );
  } finally {
    await client.close();
  }
  assert.equal(isAlive(inner.pid!), false);
});

test('official client closes while our handler waits on its sampling answer: our server exits on stdin end', {
  timeout: TEST_TIMEOUT,
}, async () => {
  const transport = new SdkStdioClientTransport({
    command: process.execPath,
    args: [MCPKIT_SERVER],
    stderr: 'pipe',
  });
  const client = new SdkClient(
    { name: 'official-interop-client', version: '1.0.0' },
    { capabilities: { sampling: {} } },
  );
  client.onerror = () => {};
  let samplingArrived!: () => void;
  const arrived = new Promise<void>((resolve) => {
    samplingArrived = resolve;
  });
  client.setRequestHandler(CreateMessageRequestSchema, () => {
    samplingArrived();
    return new Promise(() => {});
  });
  await client.connect(transport, CALL);
  const pid = transport.pid!;
  pids.add(pid);
  const call = client
    .callTool({ name: 'ask_sampling', arguments: { prompt: 'x' } }, CallToolResultSchema, CALL)
    .then(
      (result) => result,
      () => 'rejected' as const,
    );
  await arrived;
  const started = Date.now();
  await client.close();
  const closedIn = Date.now() - started;
  // On stdin end our server still answers what it can: the sampling can no longer be answered, so the call ends
  // as an isError result. The official client may read that answer while closing, or reject the call first.
  const outcome = await call;
  if (typeof outcome !== 'string') {
    assert.equal(outcome.isError, true);
    assert.match(JSON.stringify(outcome.content), /closed/);
  }
  assert.equal(isAlive(pid), false);
  // The SDK waits 2 s before SIGTERM: a pending server-to-client request must not keep our server alive.
  assert.ok(closedIn < 1_500, `our server left on stdin end (close took ${closedIn} ms)`);
});

test('our client closes while the official server waits on our sampling answer: the tree is stopped anyway', {
  timeout: TEST_TIMEOUT,
}, async () => {
  let handlerSignal: AbortSignal | undefined;
  let samplingArrived!: () => void;
  const arrived = new Promise<void>((resolve) => {
    samplingArrived = resolve;
  });
  // The official server keeps running after stdin ends while its own request is pending, so close() must escalate.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [OFFICIAL_SERVER],
    closeTimeoutMs: 300,
  });
  const closes: (Error | undefined)[] = [];
  const client = new Client(
    { name: 'mcpkit-interop-client', version: '1.0.0' },
    {
      sampling: (_params, ctx) => {
        handlerSignal = ctx.signal;
        samplingArrived();
        return new Promise<CreateMessageResult>(() => {});
      },
      onerror: () => {},
      onclose: (error) => closes.push(error),
    },
  );
  await client.connect(transport, CALL);
  const pid = transport.pid!;
  pids.add(pid);
  const call = client.callTool('ask_sampling', { prompt: 'x' }, CALL).then(
    () => undefined,
    (e: unknown) => e,
  );
  await arrived;
  const started = Date.now();
  await client.close();
  const closedIn = Date.now() - started;
  assert.equal(isAlive(pid), false, 'the official server is gone once close() resolved');
  assert.throws(() => process.kill(-pid, 0), { code: 'ESRCH' }, 'nothing of its process group is left');
  assert.ok(closedIn < 2_000, `close() escalated within its own timeouts (${closedIn} ms)`);
  const error = await call;
  assert.ok(error instanceof McpkitError && error.code === 'CONNECTION_CLOSED', String(error));
  assert.equal(handlerSignal?.aborted, true, "the sampling handler's signal was aborted");
  assert.equal(closes.length, 1);
});
