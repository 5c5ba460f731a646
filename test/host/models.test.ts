// The two model adapters against a local stand-in that speaks the real request and response shapes of the OpenAI
// Chat Completions and Anthropic Messages APIs: the bodies we send are checked against what those APIs require,
// streamed and whole answers, tool calls with fragmented arguments, usage, errors with the provider's message,
// 429 with retry-after honoured and bounded, chunks that are not JSON skipped, an error event mid-stream.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  AnthropicModel,
  createModel,
  type ModelAdapter,
  ModelError,
  type ModelStreamEvent,
  OpenAIChatModel,
  parseModelSpec,
} from '../../src/host.js';
import { McpkitError, type SamplingMessage } from '../../src/index.js';
import { type StandIn, startModelServer } from './fixtures/model-server.js';

const standIn: StandIn = await startModelServer({ apiKey: 'sk-test' });
after(async () => {
  await standIn.close();
});

const TOOLS = [
  {
    name: 'files__read_file',
    description: 'Reads a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

function adapters(stream: boolean): [string, ModelAdapter][] {
  return [
    [
      'openai',
      new OpenAIChatModel({ model: 'gpt-4o', baseUrl: standIn.openaiBase, apiKey: 'sk-test', stream }),
    ],
    ['anthropic', new AnthropicModel({ model: 'claude-x', baseUrl: standIn.url, apiKey: 'sk-test', stream })],
  ];
}

function user(text: string): SamplingMessage {
  return { role: 'user', content: { type: 'text', text } };
}

for (const stream of [true, false]) {
  for (const [api, model] of adapters(stream)) {
    test(`${api} ${stream ? 'streamed' : 'whole'}: a text answer, with usage`, async () => {
      const events: ModelStreamEvent[] = [];
      const response = await model.complete({
        messages: [user('hello there')],
        system: 'Be brief.',
        maxTokens: 100,
        temperature: 0.2,
        onevent: (e) => events.push(e),
      });
      assert.deepEqual(response.content, [{ type: 'text', text: 'You said: hello there' }]);
      assert.equal(response.stopReason, 'endTurn');
      assert.ok(response.usage && response.usage.inputTokens > 0 && response.usage.outputTokens > 0);
      const streamed = events.filter((e) => e.type === 'text').map((e) => (e.type === 'text' ? e.text : ''));
      if (stream) {
        assert.ok(streamed.length > 1, 'the text came in pieces');
        assert.equal(streamed.join(''), 'You said: hello there');
      } else assert.equal(streamed.length, 0);
      const body = standIn.received.at(-1)?.body ?? {};
      assert.equal(body.stream === true, stream);
      if (api === 'openai') {
        assert.deepEqual((body.messages as unknown[])[0], { role: 'system', content: 'Be brief.' });
        assert.equal(body.max_completion_tokens, 100);
        if (stream) assert.deepEqual(body.stream_options, { include_usage: true });
        else assert.equal(body.stream_options, undefined);
      } else {
        assert.equal(body.system, 'Be brief.');
        assert.equal(body.max_tokens, 100);
        assert.equal(standIn.received.at(-1)?.headers['anthropic-version'], '2023-06-01');
      }
      assert.deepEqual(standIn.problems, []);
    });

    test(`${api} ${stream ? 'streamed' : 'whole'}: tool calls come back whole, and their results go back in the API's shape`, async () => {
      standIn.script({
        kind: 'tools',
        text: 'Let me look.',
        calls: [
          { name: 'files__read_file', arguments: { path: '/tmp/a.txt' } },
          { name: 'files__read_file', arguments: { path: '/tmp/b.txt' } },
        ],
      });
      const events: ModelStreamEvent[] = [];
      const first = await model.complete({
        messages: [user('read two files')],
        tools: TOOLS,
        onevent: (e) => events.push(e),
      });
      assert.equal(first.stopReason, 'toolUse');
      const calls = first.content.filter((c) => c.type === 'tool_use');
      assert.deepEqual(
        calls.map((c) => (c.type === 'tool_use' ? c.input : undefined)),
        [{ path: '/tmp/a.txt' }, { path: '/tmp/b.txt' }],
      );
      if (stream) {
        assert.equal(events.filter((e) => e.type === 'tool-use-start').length, 2);
        assert.ok(events.filter((e) => e.type === 'tool-use-delta').length > 2, 'arguments in fragments');
      }
      const sent = standIn.received.at(-1)?.body ?? {};
      if (api === 'openai') {
        assert.deepEqual(sent.tools, [
          {
            type: 'function',
            function: {
              name: TOOLS[0]?.name,
              description: 'Reads a file',
              parameters: TOOLS[0]?.inputSchema,
            },
          },
        ]);
        assert.equal(sent.tool_choice, 'auto');
      } else {
        assert.deepEqual(sent.tools, [
          { name: TOOLS[0]?.name, description: 'Reads a file', input_schema: TOOLS[0]?.inputSchema },
        ]);
        assert.deepEqual(sent.tool_choice, { type: 'auto' });
      }
      // The results: text, an image, a resource link, structured content, an error.
      const [a, b] = calls.map((c) => (c.type === 'tool_use' ? c.id : ''));
      const second = await model.complete({
        tools: TOOLS,
        messages: [
          user('read two files'),
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                toolUseId: a as string,
                content: [
                  { type: 'text', text: 'contents of a' },
                  { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
                  { type: 'resource_link', uri: 'file:///tmp/c.txt', name: 'c.txt', mimeType: 'text/plain' },
                ],
                structuredContent: { lines: 1 },
              },
              {
                type: 'tool_result',
                toolUseId: b as string,
                content: [{ type: 'text', text: 'no such file' }],
                isError: true,
              },
            ],
          },
        ],
      });
      assert.equal(second.stopReason, 'endTurn');
      const answer = second.content[0];
      assert.ok(answer?.type === 'text');
      assert.match(answer.text, /^Tool result: /);
      assert.match(answer.text, /contents of a/);
      assert.match(answer.text, /Resource link: c.txt <file:\/\/\/tmp\/c.txt> \(text\/plain\)/);
      assert.match(answer.text, /Structured content: \{"lines":1\}/);
      assert.match(answer.text, /no such file/);
      const body = standIn.received.at(-1)?.body ?? {};
      const messages = body.messages as Record<string, unknown>[];
      if (api === 'openai') {
        assert.deepEqual(
          messages.map((m) => m.role),
          ['user', 'assistant', 'tool', 'tool', 'user'],
        );
        assert.match(String(messages[3]?.content), /^Error: no such file/);
        // The image of a tool result follows as a user message (tool messages carry text only).
        const parts = messages[4]?.content as Record<string, unknown>[];
        assert.deepEqual(parts[1], {
          type: 'image_url',
          image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' },
        });
      } else {
        assert.deepEqual(
          messages.map((m) => m.role),
          ['user', 'assistant', 'user'],
        );
        const results = (messages[2]?.content ?? []) as Record<string, unknown>[];
        assert.deepEqual(((results[0]?.content ?? []) as unknown[])[1], {
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
        });
        assert.equal(results[1]?.is_error, true);
      }
      assert.deepEqual(standIn.problems, []);
    });
  }
}

for (const [api, model] of adapters(true)) {
  test(`${api}: a 4xx is a typed ModelError with the provider's message`, async () => {
    standIn.script({
      kind: 'error',
      status: 400,
      type: 'invalid_request_error',
      message: 'messages: too long',
    });
    const e = await model.complete({ messages: [user('x')] }).then(
      () => assert.fail('no error'),
      (error: unknown) => error,
    );
    assert.ok(e instanceof ModelError && e instanceof McpkitError);
    assert.equal(e.code, 'MODEL_REQUEST_FAILED');
    assert.equal(e.status, 400);
    assert.equal(e.type, 'invalid_request_error');
    assert.match(e.message, new RegExp(`${api} answered HTTP 400 invalid_request_error: messages: too long`));
  });

  test(`${api}: 429 with retry-after is retried after the wait it asks`, async () => {
    standIn.script({
      kind: 'error',
      status: 429,
      type: 'rate_limit_error',
      message: 'slow down',
      headers: { 'retry-after': '1' },
    });
    const events: ModelStreamEvent[] = [];
    const started = Date.now();
    const response = await model.complete({ messages: [user('again')], onevent: (e) => events.push(e) });
    assert.ok(Date.now() - started >= 950, 'waited the second retry-after asked for');
    assert.deepEqual(response.content, [{ type: 'text', text: 'You said: again' }]);
    assert.deepEqual(
      events.filter((e) => e.type === 'retry'),
      [{ type: 'retry', attempt: 1, status: 429, delayMs: 1000 }],
    );
  });

  test(`${api}: 429 every time gives up after the bounded retries, as MODEL_RATE_LIMITED`, async () => {
    const limited = {
      kind: 'error' as const,
      status: 429,
      type: 'rate_limit_error',
      message: 'quota',
      headers: { 'retry-after-ms': '10' },
    };
    standIn.script(limited, limited, limited);
    const before = standIn.received.length;
    await assert.rejects(model.complete({ messages: [user('x')] }), (e: unknown) => {
      assert.ok(e instanceof ModelError);
      assert.equal(e.code, 'MODEL_RATE_LIMITED');
      assert.match(e.message, /HTTP 429 rate_limit_error \(after 3 tries\): quota/);
      return true;
    });
    assert.equal(standIn.received.length - before, 3, 'one try and two retries');
  });

  test(`${api}: a retry-after longer than allowed fails at once`, async () => {
    const slow = new (api === 'openai' ? OpenAIChatModel : AnthropicModel)({
      model: 'm',
      baseUrl: api === 'openai' ? standIn.openaiBase : standIn.url,
      apiKey: 'sk-test',
      maxRetryDelayMs: 5000,
    });
    standIn.script({
      kind: 'error',
      status: 429,
      type: 'rate_limit_error',
      message: 'later',
      headers: { 'retry-after': '3600' },
    });
    await assert.rejects(slow.complete({ messages: [user('x')] }), /HTTP 429.*later/);
  });

  test(`${api}: a chunk that is not JSON is skipped, the answer still complete`, async () => {
    standIn.script({ kind: 'garbage', text: 'all of it arrived' });
    const events: ModelStreamEvent[] = [];
    const response = await model.complete({ messages: [user('x')], onevent: (e) => events.push(e) });
    assert.deepEqual(response.content, [{ type: 'text', text: 'all of it arrived' }]);
    assert.equal(events.filter((e) => e.type === 'skipped').length, 1);
  });
}

test('anthropic: an error event mid-stream is a typed error', async () => {
  const model = new AnthropicModel({ model: 'claude-x', baseUrl: standIn.url, apiKey: 'sk-test' });
  standIn.script({ kind: 'stream-error', type: 'overloaded_error', message: 'Overloaded' });
  await assert.rejects(model.complete({ messages: [user('x')] }), (e: unknown) => {
    assert.ok(e instanceof ModelError);
    assert.equal(e.type, 'overloaded_error');
    assert.match(e.message, /Overloaded/);
    return true;
  });
});

test('a model server that is not there is a typed error, not a crash', async () => {
  const model = new OpenAIChatModel({ model: 'm', baseUrl: 'http://127.0.0.1:1/v1', maxRetries: 0 });
  await assert.rejects(model.complete({ messages: [user('x')] }), (e: unknown) => {
    assert.ok(e instanceof ModelError);
    assert.equal(e.code, 'MODEL_REQUEST_FAILED');
    return true;
  });
});

test('model specs: provider:name, with base URLs and keys from the environment', () => {
  assert.deepEqual(parseModelSpec('openai:gpt-4o'), { provider: 'openai', model: 'gpt-4o' });
  assert.deepEqual(parseModelSpec('ollama:llama3:8b'), { provider: 'ollama', model: 'llama3:8b' });
  assert.deepEqual(parseModelSpec('Anthropic:claude-sonnet-4-5'), {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
  });
  for (const bad of ['gpt-4o', 'openai:', 'mystery:model', ''])
    assert.throws(
      () => parseModelSpec(bad),
      (e: unknown) => e instanceof McpkitError && e.code === 'MODEL_CONFIG_INVALID',
    );
  assert.throws(() => createModel('openai:gpt-4o', { env: {} }), /OPENAI_API_KEY/);
  assert.throws(() => createModel('anthropic:claude', { env: {} }), /ANTHROPIC_API_KEY/);
  const openai = createModel('openai:gpt-4o', { env: { OPENAI_API_KEY: 'k' } });
  assert.ok(openai instanceof OpenAIChatModel);
  assert.equal(openai.provider, 'openai');
  const ollama = createModel('ollama:llama3', { env: {} });
  assert.ok(ollama instanceof OpenAIChatModel);
  assert.equal(ollama.provider, 'ollama');
  assert.equal(
    (ollama as OpenAIChatModel).body({ messages: [user('x')] }).max_tokens,
    4096,
    'the older field for other servers',
  );
  const local = createModel('anthropic:claude', { env: { ANTHROPIC_BASE_URL: standIn.url } });
  assert.ok(local instanceof AnthropicModel, 'a key is not needed for another server');
});

test('ollama: the OpenAI-compatible API at OLLAMA_HOST, no key', async () => {
  const keyless = await startModelServer();
  try {
    const model = createModel('ollama:llama3', { env: { OLLAMA_HOST: keyless.url.replace('http://', '') } });
    const response = await model.complete({ messages: [user('local')] });
    assert.deepEqual(response.content, [{ type: 'text', text: 'You said: local' }]);
    assert.equal(keyless.received.at(-1)?.body.model, 'llama3');
    assert.equal(keyless.received.at(-1)?.headers.authorization, undefined);
    assert.deepEqual(keyless.problems, []);
  } finally {
    await keyless.close();
  }
});
