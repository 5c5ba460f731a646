// OUR Client + StdioClientTransport against the OFFICIAL SDK stdio server (test/fixtures/official-stdio-server.ts),
// over a real process: every feature of the fixture contract, then close() leaving no process behind.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';
import {
  Client,
  type CreateMessageParams,
  type ElicitParams,
  type JsonRpcMessage,
  type LoggingMessageParams,
  McpkitError,
  type ProgressParams,
} from '../../src/index.js';
import { StdioClientTransport } from '../../src/stdio.js';
import { CALL, firstText, isAlive, OFFICIAL_SERVER, Pids, TapTransport, TEST_TIMEOUT } from './helpers.js';

const pids = new Pids();
after(() => pids.killAll());

/** Our client's sampling handler, as the official fixture client's: echoes the first user text. */
function sampling(params: CreateMessageParams) {
  const first = params.messages.find((m) => m.role === 'user');
  const blocks = first === undefined ? [] : Array.isArray(first.content) ? first.content : [first.content];
  const text = blocks.find((b) => b.type === 'text');
  return {
    role: 'assistant' as const,
    content: { type: 'text' as const, text: `sampled: ${text?.type === 'text' ? text.text : ''}` },
    model: 'fixture-model',
    stopReason: 'endTurn',
  };
}

describe('mcpkit client vs official stdio server', { timeout: 30_000 }, () => {
  const logs: LoggingMessageParams[] = [];
  const errors: Error[] = [];
  const closes: (Error | undefined)[] = [];
  const samplingRequests: CreateMessageParams[] = [];
  const elicitationRequests: ElicitParams[] = [];
  let transport: StdioClientTransport;
  let client: Client;
  let pid: number;

  before(async () => {
    client = new Client(
      { name: 'mcpkit-interop-client', version: '1.0.0' },
      {
        sampling: (params) => {
          samplingRequests.push(params);
          return sampling(params);
        },
        // Omits `name`: the client must fill in the schema default ('anon') before answering.
        elicitation: (params) => {
          elicitationRequests.push(params);
          return { action: 'accept', content: { age: 36 } };
        },
        onlog: (params) => logs.push(params),
        onerror: (error) => errors.push(error),
        onclose: (error) => closes.push(error),
      },
    );
    transport = new StdioClientTransport({ command: process.execPath, args: [OFFICIAL_SERVER] });
    await client.connect(transport, CALL);
    pid = transport.pid!;
    pids.add(pid);
  });

  after(async () => {
    await client?.close();
  });

  test('handshake: official server info, capabilities and the latest revision', () => {
    assert.deepEqual(client.serverInfo, { name: 'official-fixture-server', version: '1.0.0' });
    const caps = client.serverCapabilities ?? {};
    for (const cap of ['tools', 'resources', 'prompts', 'logging', 'completions'] as const) {
      assert.ok(caps[cap] !== undefined, `capability ${cap} is declared`);
    }
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.equal(typeof pid, 'number');
    assert.equal(isAlive(pid), true);
  });

  test('listTools: names, input schemas and the outputSchema of add', async () => {
    const tools = await client.listTools(CALL);
    assert.deepEqual(
      tools.map((t) => t.name),
      ['echo', 'add', 'ask_sampling', 'ask_elicitation', 'progress', 'log'],
    );
    const add = tools.find((t) => t.name === 'add');
    assert.deepEqual(add?.inputSchema.properties, { a: { type: 'number' }, b: { type: 'number' } });
    assert.deepEqual(add?.inputSchema.required, ['a', 'b']);
    const out = add?.outputSchema as Record<string, unknown> | undefined;
    assert.equal(out?.type, 'object');
    assert.deepEqual(out?.properties, { sum: { type: 'number' } });
    assert.deepEqual(out?.required, ['sum']);
    // The official SDK 1.x lists draft-07 schemas; our client must compile that dialect, not only 2020-12.
    assert.equal(out?.$schema, 'http://json-schema.org/draft-07/schema#');
  });

  test('callTool(add): structuredContent passes the listed outputSchema', async () => {
    const result = await client.callTool('add', { a: 2, b: 3 }, CALL);
    assert.deepEqual(result.structuredContent, { sum: 5 });
    assert.equal(firstText(result), '{"sum":5}');
    assert.notEqual(result.isError, true);
  });

  test('callTool(add) with bad arguments: an isError result without structuredContent is accepted', async () => {
    const result = await client.callTool('add', { a: 'two', b: 3 }, CALL);
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined);
    assert.match(firstText(result) ?? '', /Input validation error/);
  });

  test('callTool(echo)', async () => {
    const result = await client.callTool('echo', { text: 'hello' }, CALL);
    assert.deepEqual(result.content, [{ type: 'text', text: 'echo: hello' }]);
  });

  test('callTool(ask_sampling): our sampling handler answers the official server', async () => {
    const result = await client.callTool('ask_sampling', { prompt: 'What is MCP?' }, CALL);
    assert.equal(firstText(result), 'sampled: What is MCP?');
    assert.equal(samplingRequests.length, 1);
    assert.deepEqual(samplingRequests[0]?.messages, [
      { role: 'user', content: { type: 'text', text: 'What is MCP?' } },
    ]);
    assert.equal(samplingRequests[0]?.maxTokens, 100);
  });

  test('callTool(ask_elicitation): the omitted name arrives as the schema default "anon"', async () => {
    const result = await client.callTool('ask_elicitation', {}, CALL);
    assert.notEqual(result.isError, true, firstText(result));
    // What the official server received from us, as it reports it back.
    assert.deepEqual(JSON.parse(firstText(result) ?? ''), {
      action: 'accept',
      content: { name: 'anon', age: 36 },
    });
    assert.equal(elicitationRequests.length, 1);
    const request = elicitationRequests[0]!;
    assert.equal(request.message, 'Who are you?');
    assert.ok(!('mode' in request) || request.mode === 'form');
    assert.deepEqual('requestedSchema' in request ? request.requestedSchema.required : undefined, ['age']);
  });

  test('callTool(progress): onprogress is called 3 times with increasing values', async () => {
    const events: ProgressParams[] = [];
    const result = await client.callTool('progress', {}, { ...CALL, onprogress: (p) => events.push(p) });
    assert.equal(firstText(result), 'progress: sent 3');
    assert.deepEqual(
      events.map(({ progress, total, message }) => ({ progress, total, message })),
      [1, 2, 3].map((n) => ({ progress: n, total: 3, message: `step ${n}` })),
    );
    assert.equal(new Set(events.map((e) => e.progressToken)).size, 1, 'one progress token');
  });

  test('callTool(progress) without onprogress sends no progress token', async () => {
    const result = await client.callTool('progress', {}, CALL);
    assert.equal(firstText(result), 'progress: no token');
  });

  test('setLoggingLevel: warning filters the info message, info lets it through to onlog', async () => {
    await client.setLoggingLevel('warning', CALL);
    assert.equal(firstText(await client.callTool('log', {}, CALL)), 'log: sent info');
    assert.deepEqual(logs, []);
    await client.setLoggingLevel('info', CALL);
    assert.equal(firstText(await client.callTool('log', {}, CALL)), 'log: sent info');
    // The official server writes the log notification before the response, so it is here already.
    assert.deepEqual(logs, [{ level: 'info', logger: 'fixture', data: 'hello from the log tool' }]);
  });

  test('listResources / readResource: text and blob exact', async () => {
    const resources = await client.listResources(CALL);
    assert.deepEqual(
      resources.map(({ uri, name, mimeType }) => ({ uri, name, mimeType })),
      [
        { uri: 'test://static', name: 'static', mimeType: 'text/plain' },
        { uri: 'test://blob', name: 'blob', mimeType: 'application/octet-stream' },
      ],
    );
    assert.deepEqual(await client.readResource('test://static', CALL), {
      contents: [{ uri: 'test://static', mimeType: 'text/plain', text: 'static text' }],
    });
    assert.deepEqual(await client.readResource('test://blob', CALL), {
      contents: [{ uri: 'test://blob', mimeType: 'application/octet-stream', blob: '3q2+7w==' }],
    });
  });

  test('listResourceTemplates + readResource(test://items/beta)', async () => {
    const templates = await client.listResourceTemplates(CALL);
    assert.deepEqual(
      templates.map(({ uriTemplate, name, mimeType }) => ({ uriTemplate, name, mimeType })),
      [{ uriTemplate: 'test://items/{id}', name: 'item', mimeType: 'text/plain' }],
    );
    assert.deepEqual(await client.readResource('test://items/beta', CALL), {
      contents: [{ uri: 'test://items/beta', mimeType: 'text/plain', text: 'item beta' }],
    });
  });

  test("listPrompts / getPrompt('greet', { name: 'Bob' })", async () => {
    const prompts = await client.listPrompts(CALL);
    assert.deepEqual(
      prompts.map(({ name, arguments: args }) => ({ name, arguments: args })),
      [{ name: 'greet', arguments: [{ name: 'name', required: true }] }],
    );
    const prompt = await client.getPrompt('greet', { name: 'Bob' }, CALL);
    assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Bob!' } }]);
  });

  test('complete(): the prompt argument and the template variable', async () => {
    const names = await client.complete(
      { type: 'ref/prompt', name: 'greet' },
      { name: 'name', value: 'a' },
      undefined,
      CALL,
    );
    assert.deepEqual(names.values, ['Ada', 'Alan']);
    const ids = await client.complete(
      { type: 'ref/resource', uri: 'test://items/{id}' },
      { name: 'id', value: 'b' },
      undefined,
      CALL,
    );
    assert.deepEqual(ids.values, ['beta']);
  });

  test('ping', async () => {
    await client.ping(CALL);
  });

  test('no problems were reported to onerror', () => {
    assert.deepEqual(
      errors.map((e) => e.message),
      [],
    );
  });

  test('close() ends the official server: its pid and process group are gone', {
    timeout: TEST_TIMEOUT,
  }, async () => {
    await client.close();
    assert.equal(isAlive(pid), false, `server pid ${pid} is gone once close() resolved`);
    assert.throws(() => process.kill(-pid, 0), { code: 'ESRCH' }, 'no process of its group is left');
    assert.deepEqual(closes, [undefined]);
    await assert.rejects(
      client.ping(CALL),
      (e: unknown) => e instanceof McpkitError && e.code === 'NOT_CONNECTED',
    );
  });
});

describe('our client checks structuredContent against the outputSchema the server listed', {
  timeout: 30_000,
}, () => {
  let client: Client;
  let tap: TapTransport;

  before(async () => {
    const inner = new StdioClientTransport({ command: process.execPath, args: [OFFICIAL_SERVER] });
    // Rewrites the listed outputSchema of add so {sum: 5} no longer matches it; nothing else changes.
    tap = new TapTransport(inner, (message: JsonRpcMessage) => {
      if (!('result' in message)) return message;
      const tools = (message.result as { tools?: { name: string; outputSchema?: Record<string, unknown> }[] })
        .tools;
      const add = tools?.find((t) => t.name === 'add');
      if (add?.outputSchema) {
        add.outputSchema = { ...add.outputSchema, properties: { sum: { type: 'string' } } };
      }
      return message;
    });
    client = new Client({ name: 'mcpkit-interop-client', version: '1.0.0' }, { onerror: () => {} });
    await client.connect(tap, CALL);
    pids.add(inner.pid);
  });

  after(async () => {
    await client?.close();
  });

  test('before listTools no schema is known, so the result is accepted', async () => {
    const result = await client.callTool('add', { a: 2, b: 3 }, CALL);
    assert.deepEqual(result.structuredContent, { sum: 5 });
  });

  test('after listTools a result that breaks the listed schema is rejected with INVALID_RESULT', async () => {
    const tools = await client.listTools(CALL);
    assert.deepEqual(
      (tools.find((t) => t.name === 'add')?.outputSchema as { properties?: unknown } | undefined)?.properties,
      { sum: { type: 'string' } },
    );
    await assert.rejects(
      client.callTool('add', { a: 2, b: 3 }, CALL),
      (e: unknown) => e instanceof McpkitError && e.code === 'INVALID_RESULT',
    );
    // The wire carried the official server's real answer.
    const last = tap.received.at(-1) as { result?: { structuredContent?: unknown } } | undefined;
    assert.deepEqual(last?.result?.structuredContent, { sum: 5 });
  });
});
