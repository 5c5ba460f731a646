// Results from the peer are checked before use: a malformed one is McpkitError INVALID_RESULT naming what is
// wrong, never a crash later or a silently wrong value. The client against a scripted server (resources/read,
// prompts/get, tools/call, completion/complete, initialize), the server against a scripted client
// (ctx.sample, ctx.elicit, ctx.listRoots), statefully and through 2026-07-28 inputResponses.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, McpkitError, McpServer } from '../../src/index.js';
import type { JsonObject, JsonRpcRequest } from '../../src/jsonrpc/types.js';
import { META } from '../../src/spec/modern.js';
import { fakeServer, initializeResult, type RawAnswer, rawClient, resultOf } from './helpers.js';

function invalidResult(pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof McpkitError, String(error));
    assert.equal(error.code, 'INVALID_RESULT');
    assert.match(error.message, pattern);
    return true;
  };
}

/** A client connected to a fake server that answers `method` with `result` (and initializes normally). */
async function clientAnswered(method: string, result: unknown): Promise<Client> {
  const { clientTransport } = await fakeServer((request: JsonRpcRequest): RawAnswer => {
    if (request.method === 'initialize')
      return initializeResult('2025-11-25', { resources: {}, prompts: {}, tools: {}, completions: {} });
    return { result: request.method === method ? (result as JsonObject) : {} };
  });
  const client = new Client({ name: 'checking-client', version: '1' });
  await client.connect(clientTransport, { era: 'stateful' });
  return client;
}

describe('the client checks what the server answers', () => {
  test('resources/read: contents must be an array of text or blob contents with a uri', async () => {
    const bad: [unknown, RegExp][] = [
      [{}, /resources\/read result is malformed: result\.contents must be an array/],
      [{ contents: 'text' }, /result\.contents must be an array/],
      [{ contents: [{ uri: 'a://b' }] }, /result\.contents\[0\] must be resource contents/],
      [{ contents: [{ text: 'no uri' }] }, /result\.contents\[0\] must be resource contents/],
      [
        {
          contents: [
            { uri: 'a://b', text: 'ok' },
            { uri: 'a://c', blob: 7 },
          ],
        },
        /result\.contents\[1\]/,
      ],
      [{ contents: [null] }, /result\.contents\[0\]/],
    ];
    for (const [result, pattern] of bad) {
      const client = await clientAnswered('resources/read', result);
      await assert.rejects(client.readResource('a://b'), invalidResult(pattern), JSON.stringify(result));
      await client.close();
    }
    const good = {
      contents: [
        { uri: 'a://b', text: 'hi', extra: 1 },
        { uri: 'a://c', blob: 'AAAA' },
      ],
    };
    const client = await clientAnswered('resources/read', good);
    assert.deepEqual(await client.readResource('a://b'), good);
    await client.close();
  });

  test('prompts/get: messages need a role and a well-formed content block', async () => {
    const bad: [unknown, RegExp][] = [
      [{}, /prompts\/get result is malformed: result\.messages must be an array/],
      [
        { messages: [{ role: 'bot', content: { type: 'text', text: 'x' } }] },
        /messages\[0\]\.role must be one of/,
      ],
      [
        { messages: [{ role: 'user', content: { type: 'text', text: 5 } }] },
        /messages\[0\]\.content\.text must be a string/,
      ],
      [
        { messages: [{ role: 'user', content: { type: 'video' } }] },
        /messages\[0\]\.content\.type must be one of/,
      ],
      [{ messages: [{ role: 'user' }] }, /messages\[0\]\.content must be an object/],
      [
        { messages: [{ role: 'user', content: { type: 'image', data: 'AAAA' } }] },
        /messages\[0\]\.content\.mimeType must be a string/,
      ],
      [
        { messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'a://b' } } }] },
        /messages\[0\]\.content\.resource must be resource contents/,
      ],
      [{ description: 3, messages: [] }, /result\.description must be a string/],
    ];
    for (const [result, pattern] of bad) {
      const client = await clientAnswered('prompts/get', result);
      await assert.rejects(client.getPrompt('p'), invalidResult(pattern), JSON.stringify(result));
      await client.close();
    }
    const good = {
      description: 'd',
      messages: [
        { role: 'user', content: { type: 'text', text: 'hi' } },
        { role: 'assistant', content: { type: 'resource_link', uri: 'a://b', name: 'b' } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'a://b', blob: 'AAAA' } } },
      ],
    };
    const client = await clientAnswered('prompts/get', good);
    assert.deepEqual(await client.getPrompt('p'), good);
    await client.close();
  });

  test('tools/call and completion/complete are checked too', async () => {
    const tool = await clientAnswered('tools/call', { content: [{ type: 'text' }] });
    await assert.rejects(
      tool.callTool('t'),
      invalidResult(/tools\/call result is malformed: result\.content\[0\]\.text must be a string/),
    );
    await tool.close();
    const flag = await clientAnswered('tools/call', { content: [], isError: 'yes' });
    await assert.rejects(flag.callTool('t'), invalidResult(/result\.isError must be a boolean/));
    await flag.close();
    const completion = await clientAnswered('completion/complete', { completion: { values: [1] } });
    await assert.rejects(
      completion.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' }),
      invalidResult(/result\.completion\.values\[0\] must be a string/),
    );
    await completion.close();
  });

  test('initialize: a result without serverInfo is refused', async () => {
    const { clientTransport } = await fakeServer((request) =>
      request.method === 'initialize'
        ? { result: { protocolVersion: '2025-11-25', capabilities: {} } }
        : { result: {} },
    );
    const client = new Client({ name: 'checking-client', version: '1' });
    await assert.rejects(
      client.connect(clientTransport, { era: 'stateful' }),
      invalidResult(/initialize result is malformed: result\.serverInfo must be an object/),
    );
  });
});

interface Outcome {
  value?: unknown;
  error?: unknown;
}

/** A server whose tools ask the client for sampling, elicitation and roots, recording what they got. */
function askingServer(outcomes: Outcome[]): McpServer {
  const server = new McpServer({ name: 'asking', version: '1' });
  const record = async (ask: () => Promise<unknown>) => {
    try {
      outcomes.push({ value: await ask() });
    } catch (error) {
      if (error instanceof Error && error.name === 'InputRequiredSignal') throw error;
      outcomes.push({ error });
    }
    return 'done';
  };
  const sampling = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }] };
  server.tool('sample', {}, (_a, ctx) => record(() => ctx.sample({ ...sampling, maxTokens: 5 })));
  server.tool('elicit', {}, (_a, ctx) =>
    record(() => ctx.elicit({ message: 'm', requestedSchema: { type: 'object', properties: {} } })),
  );
  server.tool('roots', {}, (_a, ctx) => record(() => ctx.listRoots()));
  return server;
}

const CLIENT_CAPS = { sampling: {}, elicitation: { form: {} }, roots: {} };

/** Calls `tool` on a stateful session whose raw client answers the server's request with `answer`. */
async function statefulOutcome(tool: string, answer: unknown): Promise<Outcome> {
  const outcomes: Outcome[] = [];
  const { raw } = await rawClient(askingServer(outcomes), { capabilities: CLIENT_CAPS });
  raw.answer = () => ({ result: answer as JsonObject });
  await raw.request('tools/call', { name: tool });
  await raw.transport.close();
  assert.equal(outcomes.length, 1);
  return outcomes[0] as Outcome;
}

/** Calls `tool` statelessly, then retries with `answer` as the response to its one input request. */
async function statelessOutcome(tool: string, answer: unknown): Promise<Outcome> {
  const outcomes: Outcome[] = [];
  const { raw } = await rawClient(askingServer(outcomes), { version: false });
  const meta = {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: CLIENT_CAPS,
    [META.clientInfo]: { name: 'raw', version: '1' },
  };
  const first = resultOf(await raw.request('tools/call', { name: tool, _meta: meta }));
  assert.equal(first.resultType, 'input_required', JSON.stringify(first));
  const keys = Object.keys(first.inputRequests as JsonObject);
  assert.equal(keys.length, 1);
  const retry = resultOf(
    await raw.request('tools/call', {
      name: tool,
      _meta: meta,
      requestState: first.requestState,
      inputResponses: { [keys[0] as string]: answer },
    }),
  );
  assert.notEqual(retry.resultType, 'input_required', JSON.stringify(retry));
  await raw.transport.close();
  assert.equal(outcomes.length, 1);
  return outcomes[0] as Outcome;
}

function assertInvalid(outcome: Outcome, pattern: RegExp): void {
  assert.ok(outcome.error instanceof McpkitError, `got ${JSON.stringify(outcome)}`);
  assert.equal(outcome.error.code, 'INVALID_RESULT');
  assert.match(outcome.error.message, pattern);
}

describe('the server checks what the client answers', () => {
  const goodSample = { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' };
  const badSamples: [unknown, RegExp][] = [
    [{}, /sampling\/createMessage result is malformed: result\.role must be one of "user", "assistant"/],
    [{ ...goodSample, model: undefined }, /result\.model must be a string/],
    [{ ...goodSample, content: { type: 'text' } }, /result\.content\.text must be a string/],
    [
      { ...goodSample, content: [goodSample.content, { type: 'tool_use', id: 'x' }] },
      /result\.content\[1\]\.name/,
    ],
    [{ ...goodSample, stopReason: 4 }, /result\.stopReason must be a string/],
  ];

  test('ctx.sample (stateful): a malformed sampling result is INVALID_RESULT; a good one comes through', async () => {
    for (const [answer, pattern] of badSamples)
      assertInvalid(await statefulOutcome('sample', answer), pattern);
    assert.deepEqual((await statefulOutcome('sample', goodSample)).value, goodSample);
  });

  test('ctx.sample (stateless): a malformed input response is INVALID_RESULT, not a crash', async () => {
    for (const [answer, pattern] of [
      ...badSamples,
      [null, /result must be an object/] as [unknown, RegExp],
    ]) {
      assertInvalid(await statelessOutcome('sample', answer), pattern);
    }
    assertInvalid(await statelessOutcome('sample', 'text'), /result must be an object/);
    assert.deepEqual((await statelessOutcome('sample', goodSample)).value, goodSample);
  });

  test('ctx.elicit: a non-object answer or content of the wrong kind is INVALID_RESULT', async () => {
    assertInvalid(
      await statelessOutcome('elicit', null),
      /elicitation\/create result is malformed: result must/,
    );
    assertInvalid(await statelessOutcome('elicit', { action: 'yes' }), /result\.action must be one of/);
    assertInvalid(
      await statefulOutcome('elicit', { action: 'accept', content: { a: { nested: true } } }),
      /result\.content\.a must be a string, number, boolean or array of strings/,
    );
    assert.deepEqual((await statefulOutcome('elicit', { action: 'decline' })).value, { action: 'decline' });
  });

  test('ctx.listRoots: roots must be an array of objects with a uri', async () => {
    assertInvalid(
      await statefulOutcome('roots', {}),
      /roots\/list result is malformed: result\.roots must be an array/,
    );
    assertInvalid(
      await statefulOutcome('roots', { roots: [{ name: 'x' }] }),
      /result\.roots\[0\]\.uri must be a string/,
    );
    assertInvalid(await statelessOutcome('roots', 42), /result must be an object/);
    const roots = [{ uri: 'file:///a', name: 'a' }];
    assert.deepEqual((await statefulOutcome('roots', { roots })).value, roots);
  });
});
