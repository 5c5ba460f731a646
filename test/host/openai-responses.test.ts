// The OpenAI Responses API adapter against a local stand-in that speaks the API's documented request and response
// shapes (test/host/fixtures/responses-server.ts): text and function calls, streamed and whole, usage, the system
// prompt as `instructions`, tool results as `function_call_output`; OpenAI's hosted tool search with every tool
// deferred (`toolExposure: 'provider'`), its `tool_search_call` / `tool_search_output` items sent back in place (the
// stand-in refuses a call of a deferred function no search of the input loaded), through the host's approval; bad
// input: error bodies, rate limits, an `error` event, a failed response, a chunk that is not JSON, a stream cut short.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  type ApprovalRequest,
  createModel,
  type Host,
  ModelError,
  type ModelStreamEvent,
  OpenAIResponsesModel,
  parseModelSpec,
  responsesInput,
} from '../../src/host.js';
import type { SamplingMessage } from '../../src/index.js';
import { type ResponsesStandIn, startResponsesServer } from './fixtures/responses-server.js';
import { allowingHost, ODD_SERVER, stdioServer } from './helpers.js';

let standIn: ResponsesStandIn;
let host: Host;
const asked: ApprovalRequest[] = [];

before(async () => {
  standIn = await startResponsesServer({ apiKey: 'sk-test' });
  host = await allowingHost([stdioServer('up', ODD_SERVER, [], { approval: { default: 'ask' } })], asked);
});

after(async () => {
  await host.close();
  await standIn.close();
});

function model(stream = true, maxRetries = 0): OpenAIResponsesModel {
  return new OpenAIResponsesModel({
    model: 'gpt-5.4',
    baseUrl: standIn.url,
    apiKey: 'sk-test',
    stream,
    maxRetries,
  });
}

function user(text: string): SamplingMessage {
  return { role: 'user', content: { type: 'text', text } };
}

type Item = Record<string, unknown>;

function lastBody(): Item {
  return standIn.received.at(-1)?.body ?? {};
}

for (const stream of [true, false]) {
  const how = stream ? 'streamed' : 'whole';

  test(`${how}: a text answer with usage; the system prompt is the instructions`, async () => {
    const events: ModelStreamEvent[] = [];
    const response = await model(stream).complete({
      messages: [user('hello there')],
      system: 'Be brief.',
      maxTokens: 100,
      temperature: 0.2,
      stopSequences: ['END'],
      onevent: (e) => events.push(e),
    });
    assert.deepEqual(standIn.problems, []);
    assert.deepEqual(response.content, [{ type: 'text', text: 'You said: hello there' }]);
    assert.equal(response.stopReason, 'endTurn');
    assert.equal(response.model, 'gpt-5.4-2026-03-05');
    assert.deepEqual(response.usage, { inputTokens: 21, outputTokens: 9 });
    const body = lastBody();
    assert.equal(body.instructions, 'Be brief.');
    assert.equal(body.max_output_tokens, 100);
    assert.equal(body.temperature, 0.2);
    assert.equal(body.stream === true, stream);
    assert.deepEqual(body.input, [{ role: 'user', content: 'hello there' }]);
    const texts = events.filter((e) => e.type === 'text').map((e) => (e.type === 'text' ? e.text : ''));
    if (stream) {
      assert.ok(texts.length > 1, 'the text came in pieces');
      assert.equal(texts.join(''), 'You said: hello there');
      assert.deepEqual(
        events.filter((e) => e.type === 'usage'),
        [{ type: 'usage', usage: { inputTokens: 21, outputTokens: 9 } }],
      );
    } else assert.deepEqual(texts, []);
  });

  test(`${how}: host.chat calls a function through approval; the call and its output go back as items`, async () => {
    const chat = host.chat({ model: model(stream) });
    asked.length = 0;
    const start = standIn.received.length;
    const turn = await chat.send('call up__delete_thing {}');
    assert.deepEqual(standIn.problems, []);
    assert.equal(turn.text, 'Tool result: deleted');
    assert.deepEqual(
      asked.map((r) => r.qualifiedName),
      ['up__delete_thing'],
    );
    const [first, second] = standIn.received.slice(start).map((r) => r.body);
    const tools = first?.tools as Item[];
    // Flat functions, not strict (MCP schemas rarely meet strict mode's rules), none deferred without provider search.
    const tool = tools.find((t) => t.name === 'up__delete_thing') as Item;
    assert.equal(tool.type, 'function');
    assert.equal(tool.strict, false);
    assert.equal(typeof tool.parameters, 'object');
    assert.ok(tools.every((t) => t.type === 'function' && t.defer_loading === undefined));
    assert.equal(first?.tool_choice, 'auto');
    const input = second?.input as Item[];
    assert.deepEqual(
      input.slice(-2).map((i) => i.type),
      ['function_call', 'function_call_output'],
    );
    const [call, output] = input.slice(-2) as [Item, Item];
    assert.equal(call.name, 'up__delete_thing');
    assert.equal(call.arguments, '{}');
    assert.equal(output.call_id, call.call_id);
    assert.equal(output.output, 'deleted');
  });

  test(`${how}: provider tool search: every tool deferred, the API searches, the call found runs through approval`, async () => {
    const chat = host.chat({ model: model(stream), toolExposure: 'provider' });
    asked.length = 0;
    const start = standIn.received.length;
    standIn.script({
      kind: 'tool-search',
      query: 'delete',
      call: { name: 'up__delete_thing', arguments: {} },
    });
    const turn = await chat.send('Delete the thing');
    assert.deepEqual(standIn.problems, []);
    assert.equal(turn.text, 'Tool result: deleted');
    assert.deepEqual(
      asked.map((r) => r.qualifiedName),
      ['up__delete_thing'],
    );
    const [first, second] = standIn.received.slice(start).map((r) => r.body);
    const tools = first?.tools as Item[];
    assert.deepEqual(tools[0], { type: 'tool_search' });
    assert.ok(tools.length > 3);
    assert.ok(tools.slice(1).every((t) => t.type === 'function' && t.defer_loading === true));
    // The hosted search's items went back in place, before the call they led to; its reasoning item did not.
    const input = second?.input as Item[];
    assert.deepEqual(
      input.map((i) => i.type ?? 'message'),
      ['message', 'tool_search_call', 'tool_search_output', 'function_call', 'function_call_output'],
    );
    const output = input[2] as Item;
    assert.deepEqual(
      (output.tools as Item[]).map((t) => t.name),
      ['up__delete_thing'],
    );
    // The conversation keeps them for the next turns as well (the stand-in refuses the old call otherwise).
    standIn.script({ kind: 'text', text: 'Done before.' });
    const next = await chat.send('And now?');
    assert.equal(next.text, 'Done before.');
    assert.deepEqual(standIn.problems, []);
  });
}

test("a search that finds nothing to call keeps its items too (the answer's text carries them)", async () => {
  const chat = host.chat({ model: model(), toolExposure: 'provider' });
  standIn.script({ kind: 'tool-search', query: 'nothing here' });
  const turn = await chat.send('Anything?');
  assert.equal(turn.text, 'Nothing to call.');
  await chat.send('next');
  const types = (lastBody().input as Item[]).map((i) => i.type ?? 'message');
  assert.deepEqual(types, ['message', 'tool_search_call', 'tool_search_output', 'message', 'message']);
  assert.deepEqual(standIn.problems, []);
});

test('without provider search the tool search tool is not sent, and no function is deferred', () => {
  const body = model().body({
    messages: [user('x')],
    tools: [{ name: 'a', inputSchema: { type: 'object' }, defer: true }],
  });
  assert.deepEqual(body.tools, [
    { type: 'function', name: 'a', parameters: { type: 'object' }, strict: false },
  ]);
});

test('a stream whose completed response has an empty output is read from its items', async () => {
  standIn.script({
    kind: 'tools',
    text: 'Calling.',
    calls: [{ name: 'files__read', arguments: { path: '/x' } }],
    bare: true,
  });
  const events: ModelStreamEvent[] = [];
  const response = await model().complete({ messages: [user('read')], onevent: (e) => events.push(e) });
  assert.deepEqual(response.content, [
    { type: 'text', text: 'Calling.' },
    {
      type: 'tool_use',
      id: response.content[1]?.type === 'tool_use' ? response.content[1].id : '',
      name: 'files__read',
      input: { path: '/x' },
    },
  ]);
  assert.equal(response.stopReason, 'toolUse');
  const start = events.find((e) => e.type === 'tool-use-start');
  assert.ok(start && start.type === 'tool-use-start' && start.name === 'files__read');
  const json = events
    .filter((e) => e.type === 'tool-use-delta')
    .map((e) => (e.type === 'tool-use-delta' ? e.json : ''));
  assert.ok(json.length > 1);
  assert.equal(json.join(''), '{"path":"/x"}');
});

test('tool results: images as input_image parts, errors said, arguments that were not JSON sent back as they came', () => {
  const input = responsesInput([
    user('look'),
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'c1', name: 'shot', input: {} },
        { type: 'tool_use', id: 'c2', name: 'bad', input: {}, _meta: { 'mcpkit/invalidArguments': '{oops' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: 'c1',
          content: [
            { type: 'text', text: 'here' },
            { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          ],
        },
        { type: 'tool_result', toolUseId: 'c2', content: [{ type: 'text', text: 'no' }], isError: true },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ],
    },
  ]);
  assert.deepEqual(input.slice(1), [
    { type: 'function_call', call_id: 'c1', name: 'shot', arguments: '{}' },
    { type: 'function_call', call_id: 'c2', name: 'bad', arguments: '{oops' },
    {
      type: 'function_call_output',
      call_id: 'c1',
      output: [
        { type: 'input_text', text: 'here' },
        { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
      ],
    },
    { type: 'function_call_output', call_id: 'c2', output: 'Error: no' },
    {
      role: 'user',
      content: [{ type: 'input_text', text: '[audio of type audio/wav, not supported by this API]' }],
    },
  ]);
});

test('the model spec openai-responses:NAME selects this adapter, with the OpenAI key and base URL', () => {
  assert.deepEqual(parseModelSpec('openai-responses:gpt-5.4'), {
    provider: 'openai-responses',
    model: 'gpt-5.4',
  });
  const adapter = createModel('openai-responses:gpt-5.4', {
    env: { OPENAI_BASE_URL: standIn.url, OPENAI_API_KEY: 'sk-test' },
  });
  assert.ok(adapter instanceof OpenAIResponsesModel);
  assert.equal(adapter.provider, 'openai-responses');
  assert.equal(adapter.baseUrl, standIn.url);
  assert.equal(adapter.deferredToolSearch, true);
  assert.throws(() => createModel('openai-responses:gpt-5.4', { env: {} }), /OPENAI_API_KEY/);
  assert.throws(() => parseModelSpec('responses:gpt-5.4'), /openai-responses/);
});

// ---- bad input -----------------------------------------------------------------------------------------------

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ModelError, String(e));
    return e;
  }
  assert.fail('no error');
}

test('an error body is a ModelError with the API message and type; a 429 is MODEL_RATE_LIMITED', async () => {
  standIn.script({ kind: 'error', status: 400, type: 'invalid_request_error', message: 'Model not found' });
  const bad = await failure(model().complete({ messages: [user('x')] }));
  assert.equal(bad.code, 'MODEL_REQUEST_FAILED');
  assert.equal(bad.status, 400);
  assert.equal(bad.type, 'invalid_request_error');
  assert.match(bad.message, /openai-responses answered HTTP 400 invalid_request_error: Model not found/);
  standIn.script({ kind: 'error', status: 429, type: 'rate_limit_exceeded', message: 'Slow down' });
  const limited = await failure(model().complete({ messages: [user('x')] }));
  assert.equal(limited.code, 'MODEL_RATE_LIMITED');
});

test('a request the API refuses (here: too few max_output_tokens) says the API rule', async () => {
  const refused = await failure(model().complete({ messages: [user('x')], maxTokens: 3 }));
  assert.match(refused.message, /max_output_tokens must be an integer of at least 16/);
  standIn.problems.length = 0;
});

for (const stream of [true, false])
  test(`${stream ? 'streamed' : 'whole'}: a failed response is an error with its code; an incomplete one stops at maxTokens`, async () => {
    standIn.script({ kind: 'failed', code: 'server_error', message: 'The model crashed' });
    const failed = await failure(model(stream).complete({ messages: [user('x')] }));
    assert.equal(failed.code, 'MODEL_REQUEST_FAILED');
    assert.match(failed.message, /response failed server_error: The model crashed/);
    standIn.script({ kind: 'failed', code: 'rate_limit_exceeded', message: 'Too many' });
    assert.equal(
      (await failure(model(stream).complete({ messages: [user('x')] }))).code,
      'MODEL_RATE_LIMITED',
    );
    standIn.script({ kind: 'incomplete', text: 'Half an ans' });
    const cut = await model(stream).complete({ messages: [user('x')] });
    assert.equal(cut.stopReason, 'maxTokens');
    assert.deepEqual(cut.content, [{ type: 'text', text: 'Half an ans' }]);
  });

test('a stream: a chunk that is not JSON is skipped and told; an error event fails; a stream cut short is invalid', async () => {
  const events: ModelStreamEvent[] = [];
  standIn.script({ kind: 'garbage', text: 'Still fine.' });
  const response = await model().complete({ messages: [user('x')], onevent: (e) => events.push(e) });
  assert.deepEqual(response.content, [{ type: 'text', text: 'Still fine.' }]);
  assert.ok(events.some((e) => e.type === 'skipped'));
  standIn.script({ kind: 'stream-error', code: 'server_error', message: 'Overloaded' });
  const broken = await failure(model().complete({ messages: [user('x')] }));
  assert.equal(broken.code, 'MODEL_REQUEST_FAILED');
  assert.match(broken.message, /server_error: Overloaded/);
  standIn.script({ kind: 'cut', text: 'Never ends' });
  const cut = await failure(model().complete({ messages: [user('x')] }));
  assert.equal(cut.code, 'MODEL_INVALID_RESPONSE');
  assert.match(cut.message, /ended before response.completed/);
});

test('a whole answer without an output array is invalid', async () => {
  const adapter = new OpenAIResponsesModel({
    model: 'gpt-5.4',
    baseUrl: 'http://127.0.0.1:1/v1',
    fetch: async () => new Response(JSON.stringify({ object: 'response', status: 'completed' })),
    stream: false,
  });
  const odd = await failure(adapter.complete({ messages: [user('x')] }));
  assert.equal(odd.code, 'MODEL_INVALID_RESPONSE');
  assert.match(odd.message, /no output array/);
});
