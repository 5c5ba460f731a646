// The model API's own tool search (`toolExposure: 'provider'`): Anthropic's tool search tool with every tool deferred
// (`defer_loading`), its beta header, the server blocks of its answer kept in the conversation and sent back as they
// came (the stand-in refuses a call of a deferred tool no search of the conversation loaded), the call itself through
// approval to the real server; streamed and whole answers. The OpenAI adapter refuses it clearly.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AnthropicModel,
  type ApprovalRequest,
  anthropicMessages,
  type Host,
  OpenAIChatModel,
} from '../../src/host.js';
import { McpkitError } from '../../src/index.js';
import { type Received, type StandIn, startModelServer } from './fixtures/model-server.js';
import { allowingHost, EXAMPLE_SERVER, ODD_SERVER, stdioServer } from './helpers.js';

let standIn: StandIn;
let host: Host;
const asked: ApprovalRequest[] = [];

before(async () => {
  standIn = await startModelServer({ apiKey: 'sk-test' });
  host = await allowingHost(
    [
      stdioServer('up', ODD_SERVER, [], { approval: { default: 'ask' } }),
      {
        ...stdioServer('example', EXAMPLE_SERVER),
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [EXAMPLE_SERVER],
          env: {},
          namedEnv: [],
        },
        approval: { default: 'allow' },
      },
    ],
    asked,
  );
});

after(async () => {
  await host.close();
  await standIn.close();
});

for (const stream of [true, false]) {
  test(`anthropic (${stream ? 'streamed' : 'whole'}): tools deferred, the API searches, the call found runs through approval`, async () => {
    const model = new AnthropicModel({ model: 'claude-x', baseUrl: standIn.url, apiKey: 'sk-test', stream });
    const chat = host.chat({ model, toolExposure: 'provider' });
    const start = standIn.received.length;
    asked.length = 0;
    standIn.script({
      kind: 'tool-search',
      query: 'delete thing',
      call: { name: 'up__delete_thing', arguments: {} },
    });
    const turn = await chat.send('Delete the thing');
    assert.deepEqual(standIn.problems, []);
    assert.equal(turn.text, 'Tool result: deleted');
    assert.deepEqual(
      asked.map((r) => r.qualifiedName),
      ['up__delete_thing'],
    );
    const [first, second] = standIn.received.slice(start) as [Received, Received];
    assert.match(String(first.headers['anthropic-beta']), /advanced-tool-use-2025-11-20/);
    const tools = first.body.tools as Record<string, unknown>[];
    assert.deepEqual(tools[0], { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    assert.ok(tools.length > 5);
    assert.ok(tools.slice(1).every((t) => t.defer_loading === true));
    // The answer's server blocks went back in place, before the call they led to.
    const messages = second.body.messages as { role: string; content: { type: string }[] }[];
    const assistant = messages[messages.length - 2] as (typeof messages)[number];
    assert.deepEqual(
      assistant.content.map((b) => b.type),
      ['server_tool_use', 'tool_search_tool_result', 'tool_use'],
    );
    // The conversation kept them for the next turns as well.
    standIn.script({ kind: 'text', text: 'Done before.' });
    await chat.send('And now?');
    assert.deepEqual(standIn.problems, []);
  });
}

test('a search whose answer ends the turn keeps its blocks too (an empty text carries them)', async () => {
  const model = new AnthropicModel({ model: 'claude-x', baseUrl: standIn.url, apiKey: 'sk-test' });
  const chat = host.chat({ model, toolExposure: 'provider' });
  standIn.script({ kind: 'tool-search', query: 'nothing here' });
  const turn = await chat.send('Anything?');
  assert.equal(turn.text, 'Nothing to call.');
  standIn.script({ kind: 'text', text: 'ok' });
  await chat.send('next');
  const last = standIn.received[standIn.received.length - 1] as Received;
  const types = (last.body.messages as { content: { type: string }[] }[]).flatMap((m) =>
    m.content.map((b) => b.type),
  );
  assert.ok(types.includes('server_tool_use') && types.includes('tool_search_tool_result'), types.join(' '));
  assert.deepEqual(standIn.problems, []);
  // Without the blocks (another adapter's conversation), nothing provider-specific is invented.
  assert.deepEqual(anthropicMessages([{ role: 'assistant', content: [{ type: 'text', text: 'hi' }] }]), [
    { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
  ]);
});

test('the regex variant and an anthropic-beta header of the app are merged, not replaced', async () => {
  const model = new AnthropicModel({
    model: 'claude-x',
    baseUrl: standIn.url,
    apiKey: 'sk-test',
    toolSearch: 'regex',
    headers: { 'anthropic-beta': 'some-other-beta' },
  });
  const chat = host.chat({ model, toolExposure: 'provider' });
  standIn.script({ kind: 'text', text: 'fine' });
  await chat.send('hi');
  const last = standIn.received[standIn.received.length - 1] as Received;
  assert.equal(last.headers['anthropic-beta'], 'some-other-beta,advanced-tool-use-2025-11-20');
  assert.deepEqual((last.body.tools as unknown[])[0], {
    type: 'tool_search_tool_regex_20251119',
    name: 'tool_search_tool_regex',
  });
});

test('OpenAI: the provider mode is refused, naming what to use instead; the adapter refuses a request asking for it', () => {
  const model = new OpenAIChatModel({ model: 'gpt-4o', baseUrl: standIn.openaiBase, apiKey: 'sk-test' });
  assert.throws(
    () => host.chat({ model, toolExposure: 'provider' }),
    (e: unknown) =>
      e instanceof McpkitError &&
      e.code === 'MODEL_CONFIG_INVALID' &&
      /built for anthropic and openai-responses.*"search"/.test(e.message),
  );
  assert.throws(
    () =>
      model.body({
        messages: [{ role: 'user', content: { type: 'text', text: 'x' } }],
        toolSearch: 'provider',
      }),
    /no tool search of its own; use the Responses API \(model openai-responses:NAME/,
  );
});
