// Protocol-revision interplay with the OFFICIAL SDK 1.x over real stdio processes: our client pinned to each
// stateful revision against the official server, and the official client against our server.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { Client, type JsonRpcMessage, type LoggingMessageParams, McpkitError } from '../../src/index.js';
import { StdioClientTransport } from '../../src/stdio.js';
import {
  CALL,
  firstText,
  isAlive,
  MCPKIT_SERVER,
  OFFICIAL_SERVER,
  Pids,
  TapTransport,
  TEST_TIMEOUT,
} from './helpers.js';

const pids = new Pids();
after(() => pids.killAll());

type Json = Record<string, unknown>;

function initializeRequest(messages: readonly JsonRpcMessage[]): Json | undefined {
  const found = messages.find((m) => 'method' in m && m.method === 'initialize');
  return found && 'params' in found ? (found.params as Json) : undefined;
}

/** Our client, pinned to `protocolVersion`, connected to the official server through a tap. */
async function connectOurs(protocolVersion: string) {
  const inner = new StdioClientTransport({ command: process.execPath, args: [OFFICIAL_SERVER] });
  const tap = new TapTransport(inner);
  const client = new Client(
    { name: 'mcpkit-interop-client', version: '1.0.0' },
    {
      protocolVersion,
      sampling: () => ({
        role: 'assistant',
        content: { type: 'text', text: 'sampled' },
        model: 'fixture-model',
        stopReason: 'endTurn',
      }),
      elicitation: () => ({ action: 'accept', content: { name: 'Ada', age: 36 } }),
      onlog: (params) => logs.push(params),
      onerror: () => {},
    },
  );
  const logs: LoggingMessageParams[] = [];
  try {
    await client.connect(tap, CALL);
  } finally {
    pids.add(inner.pid);
  }
  return { client, tap, logs, pid: inner.pid! };
}

describe('our client pinned to a revision, against the official server', { timeout: 30_000 }, () => {
  for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    test(`${revision}: asked, negotiated, and tools work`, { timeout: TEST_TIMEOUT }, async () => {
      const { client, tap, logs, pid } = await connectOurs(revision);
      try {
        assert.equal(initializeRequest(tap.sent)?.protocolVersion, revision, 'the revision we asked for');
        assert.equal(client.protocolVersion, revision, 'the official server accepted it');
        assert.equal(firstText(await client.callTool('echo', { text: revision }, CALL)), `echo: ${revision}`);
        await client.listTools(CALL);
        assert.deepEqual((await client.callTool('add', { a: 20, b: 22 }, CALL)).structuredContent, {
          sum: 42,
        });
        assert.equal(firstText(await client.callTool('ask_sampling', { prompt: 'x' }, CALL)), 'sampled');
        const elicited = await client.callTool('ask_elicitation', {}, CALL);
        assert.deepEqual(JSON.parse(firstText(elicited) ?? ''), {
          action: 'accept',
          content: { name: 'Ada', age: 36 },
        });
        await client.setLoggingLevel('info', CALL);
        await client.callTool('log', {}, CALL);
        assert.deepEqual(logs, [{ level: 'info', logger: 'fixture', data: 'hello from the log tool' }]);
        // 2024-11-05 had completions without a capability; our client must still ask.
        const names = await client.complete(
          { type: 'ref/prompt', name: 'greet' },
          { name: 'name', value: 'G' },
        );
        assert.deepEqual(names.values, ['Grace']);
      } finally {
        await client.close();
      }
      assert.equal(isAlive(pid), false);
    });
  }

  test('a client cannot be pinned to a revision it does not speak', () => {
    for (const revision of ['2099-01-01', '2024-10-07']) {
      assert.throws(
        () => new Client({ name: 'mcpkit-interop-client', version: '1.0.0' }, { protocolVersion: revision }),
        (e: unknown) => e instanceof McpkitError && e.code === 'UNSUPPORTED_PROTOCOL_VERSION',
      );
    }
  });

  test('the official server answering a revision we do not speak (2024-10-07) fails connect and stops it', {
    timeout: TEST_TIMEOUT,
  }, async () => {
    const inner = new StdioClientTransport({ command: process.execPath, args: [OFFICIAL_SERVER] });
    // The official server would echo 2024-10-07 if asked; make its answer say so.
    const tap = new TapTransport(inner, (m) =>
      'result' in m && typeof m.result.protocolVersion === 'string'
        ? { ...m, result: { ...m.result, protocolVersion: '2024-10-07' } }
        : m,
    );
    const client = new Client({ name: 'mcpkit-interop-client', version: '1.0.0' });
    await assert.rejects(
      client.connect(tap, CALL),
      (e: unknown) => e instanceof McpkitError && e.code === 'UNSUPPORTED_PROTOCOL_VERSION',
    );
    pids.add(inner.pid);
    assert.equal(isAlive(inner.pid!), false, 'the server process was stopped');
  });
});

/** Wraps the SDK's stdio transport to record (and optionally rewrite) messages in both directions. */
class SdkTap implements SdkTransport {
  readonly sent: JSONRPCMessage[] = [];
  readonly received: JSONRPCMessage[] = [];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly inner: SdkStdioClientTransport;
  readonly #rewriteOutgoing: (message: JSONRPCMessage) => JSONRPCMessage;

  constructor(
    inner: SdkStdioClientTransport,
    rewriteOutgoing: (message: JSONRPCMessage) => JSONRPCMessage = (m) => m,
  ) {
    this.inner = inner;
    this.#rewriteOutgoing = rewriteOutgoing;
  }

  start(): Promise<void> {
    this.inner.onmessage = (message) => {
      this.received.push(message);
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }

  // The SDK's stdio transport takes no send options (they route HTTP streams), so none are accepted here.
  send(message: JSONRPCMessage): Promise<void> {
    const out = this.#rewriteOutgoing(message);
    this.sent.push(out);
    return this.inner.send(out);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The official client connected to our server; `ask` rewrites the revision its initialize asks for. */
async function connectOfficial(ask?: string) {
  const inner = new SdkStdioClientTransport({
    command: process.execPath,
    args: [MCPKIT_SERVER],
    stderr: 'pipe',
  });
  const tap = new SdkTap(inner, (message) => {
    if (ask === undefined || !('method' in message) || message.method !== 'initialize') return message;
    return { ...message, params: { ...message.params, protocolVersion: ask } } as JSONRPCMessage;
  });
  const client = new SdkClient(
    { name: 'official-interop-client', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  client.setRequestHandler(CreateMessageRequestSchema, () => ({
    role: 'assistant',
    content: { type: 'text', text: 'sampled' },
    model: 'fixture-model',
    stopReason: 'endTurn',
  }));
  client.setRequestHandler(ElicitRequestSchema, () => ({
    action: 'accept',
    content: { name: 'Ada', age: 36 },
  }));
  try {
    await client.connect(tap, CALL);
  } finally {
    pids.add(inner.pid);
  }
  return { client, tap, pid: inner.pid!, protocolErrors };
}

function initializeResult(
  messages: readonly JSONRPCMessage[],
  request: readonly JSONRPCMessage[],
): Json | undefined {
  const init = request.find((m) => 'method' in m && m.method === 'initialize');
  if (!init || !('id' in init)) return undefined;
  const response = messages.find((m) => 'result' in m && m.id === init.id);
  return response && 'result' in response ? (response.result as Json) : undefined;
}

/** The params of the first request (or notification) named `method` among `messages`. */
function paramsOf(messages: readonly JSONRPCMessage[], method: string): Json | undefined {
  const found = messages.find((m) => 'method' in m && m.method === method);
  return found && 'params' in found ? (found.params as Json) : undefined;
}

describe('the official client against our server', { timeout: 30_000 }, () => {
  test('it asks 2025-11-25 and gets it; tools work; close ends our server promptly', {
    timeout: TEST_TIMEOUT,
  }, async () => {
    const { client, tap, pid, protocolErrors } = await connectOfficial();
    let closedIn: number;
    try {
      assert.equal(paramsOf(tap.sent, 'initialize')?.protocolVersion, '2025-11-25');
      assert.equal(initializeResult(tap.received, tap.sent)?.protocolVersion, '2025-11-25');
      assert.deepEqual(client.getServerVersion(), { name: 'mcpkit-fixture-server', version: '1.0.0' });
      const echo = await client.callTool(
        { name: 'echo', arguments: { text: 'hi' } },
        CallToolResultSchema,
        CALL,
      );
      assert.deepEqual(echo.content, [{ type: 'text', text: 'echo: hi' }]);
      await client.listTools(undefined, CALL);
      const add = await client.callTool(
        { name: 'add', arguments: { a: 1, b: 2 } },
        CallToolResultSchema,
        CALL,
      );
      assert.deepEqual(add.structuredContent, { sum: 3 });
      // The SDK demands structuredContent from a tool with an outputSchema unless the result is an error.
      const bad = await client.callTool(
        { name: 'add', arguments: { a: 'one', b: 2 } },
        CallToolResultSchema,
        CALL,
      );
      assert.equal(bad.isError, true);
      assert.equal(bad.structuredContent, undefined);
      const elicited = await client.callTool(
        { name: 'ask_elicitation', arguments: {} },
        CallToolResultSchema,
        CALL,
      );
      assert.equal(
        firstText(elicited as { content: { type: string; text?: string }[] }),
        JSON.stringify({ action: 'accept', content: { name: 'Ada', age: 36 } }),
      );
      // On 2025-11-25 our server names the elicitation mode.
      assert.equal(paramsOf(tap.received, 'elicitation/create')?.mode, 'form');
      assert.deepEqual(protocolErrors, []);
    } finally {
      const started = Date.now();
      await client.close();
      closedIn = Date.now() - started;
    }
    assert.equal(isAlive(pid), false);
    // The SDK waits 2 s for a voluntary exit before SIGTERM; our server leaves as soon as stdin ends.
    assert.ok(closedIn < 1_500, `our server exited on stdin end (close took ${closedIn} ms)`);
  });

  for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18']) {
    test(`asked for ${revision} (initialize rewritten), our server agrees and speaks it`, {
      timeout: TEST_TIMEOUT,
    }, async () => {
      const { client, tap, pid, protocolErrors } = await connectOfficial(revision);
      try {
        assert.equal(paramsOf(tap.sent, 'initialize')?.protocolVersion, revision);
        assert.equal(initializeResult(tap.received, tap.sent)?.protocolVersion, revision);
        const echo = await client.callTool(
          { name: 'echo', arguments: { text: 'hi' } },
          CallToolResultSchema,
          CALL,
        );
        assert.deepEqual(echo.content, [{ type: 'text', text: 'echo: hi' }]);
        const sampled = await client.callTool(
          { name: 'ask_sampling', arguments: { prompt: 'x' } },
          CallToolResultSchema,
          CALL,
        );
        assert.deepEqual(sampled.content, [{ type: 'text', text: 'sampled' }]);
        const elicited = await client.callTool(
          { name: 'ask_elicitation', arguments: {} },
          CallToolResultSchema,
          CALL,
        );
        assert.notEqual(elicited.isError, true);
        // `mode` arrived in 2025-11-25; older revisions must not see it.
        const elicitation = paramsOf(tap.received, 'elicitation/create');
        assert.ok(elicitation !== undefined, 'our server sent elicitation/create');
        assert.equal('mode' in elicitation, false);
        assert.deepEqual(protocolErrors, []);
      } finally {
        await client.close();
      }
      assert.equal(isAlive(pid), false);
    });
  }
});
