// host.chat end to end: a stand-in model (speaking the real Anthropic and OpenAI shapes, checking every request we
// send) asks for tool calls of real servers (the odd test server and our example server over stdio); each call goes
// through approval to its server, the result goes back, the model answers. Also: denials, unknown tools, arguments
// that are not JSON, the round limit, prompts as slash commands, resources attached as context, a failed model
// request leaving the conversation as it was, and servers' sampling answered by the host's model.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AnthropicModel,
  type ApprovalDecision,
  type ChatEvent,
  Host,
  type ModelAdapter,
  ModelError,
  OpenAIChatModel,
  type ServerConfig,
} from '../../src/host.js';
import { type StandIn, startModelServer } from './fixtures/model-server.js';
import { EXAMPLE_SERVER, ODD_SERVER, text } from './helpers.js';

function stdio(name: string, args: string[], approval: ServerConfig['approval']): ServerConfig {
  return {
    name,
    transport: { type: 'stdio', command: process.execPath, args, env: {}, namedEnv: [] },
    disabled: false,
    trusted: false,
    ...(approval ? { approval } : {}),
    source: { file: 'test', format: 'mcpkit' },
  };
}

let standIn: StandIn;
let host: Host;
let anthropic: ModelAdapter;
let openai: ModelAdapter;
let decision: ApprovalDecision = 'allow-once';
const asked: string[] = [];

before(async () => {
  standIn = await startModelServer({ apiKey: 'sk-test' });
  anthropic = new AnthropicModel({ model: 'claude-x', baseUrl: standIn.url, apiKey: 'sk-test' });
  openai = new OpenAIChatModel({ model: 'gpt-4o', baseUrl: standIn.openaiBase, apiKey: 'sk-test' });
  host = new Host(
    [
      stdio('up', [ODD_SERVER, '--name', 'up'], {
        default: 'ask',
        tools: { echo: 'allow', read_thing: 'deny' },
      }),
      stdio('example', [EXAMPLE_SERVER], { default: 'allow' }),
    ],
    {
      model: anthropic,
      approve: (request) => {
        asked.push(request.qualifiedName);
        return decision;
      },
    },
  );
  const states = await host.start();
  for (const s of states) assert.equal(s.state, 'ready', `${s.name}: ${s.reason}`);
});

after(async () => {
  await host.close();
  await standIn.close();
});

test('a tool call asked by the model is approved, runs on its server, and the model answers with its result', async () => {
  const events: ChatEvent[] = [];
  const chat = host.chat({ system: 'You help.', onevent: (e) => events.push(e) });
  asked.length = 0;
  const turn = await chat.send('call up__delete_thing {}');
  assert.equal(turn.text, 'Tool result: deleted');
  assert.equal(turn.stopReason, 'endTurn');
  assert.equal(turn.rounds, 2);
  assert.equal(turn.toolCalls, 1);
  assert.deepEqual(asked, ['up__delete_thing']);
  const kinds = events.map((e) => e.type).filter((t) => t !== 'text' && t !== 'usage');
  assert.deepEqual(kinds, [
    'model-request',
    'tool-call',
    'approval-asked',
    'approval-decided',
    'tool-result',
    'model-request',
    'done',
  ]);
  const call = events.find((e) => e.type === 'tool-call');
  assert.equal(call?.type === 'tool-call' && call.server, 'up');
  // The model saw the registry's tools under their qualified names.
  const tools = ((standIn.received.at(-1)?.body.tools ?? []) as { name: string }[]).map((t) => t.name);
  assert.ok(
    tools.includes('up__delete_thing') && tools.includes('example__test_simple_text'),
    tools.join(' '),
  );
  const log = host.log.entries().filter((e) => e.kind === 'model' || e.name === 'up__delete_thing');
  assert.deepEqual(
    log.map((e) => [e.kind, e.outcome]),
    [
      ['model', 'toolUse'],
      ['approval', 'allowed'],
      ['tool', 'ok'],
      ['model', 'endTurn'],
    ],
  );
  assert.equal(turn.messages.length, 4);
  assert.deepEqual(standIn.problems, []);
});

test('OpenAI API: an image result goes back as the API takes images; the conversation goes on', async () => {
  const chat = host.chat({ model: openai });
  const turn = await chat.send('call example__test_image_content');
  assert.match(turn.text, /^Tool result: \(1 attachment follows in the next message\)/);
  const messages = standIn.received.at(-1)?.body.messages as { role: string; content: unknown }[];
  assert.deepEqual(
    messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'user'],
  );
  const again = await chat.send('and now?');
  assert.equal(again.text, 'You said: and now?');
  assert.deepEqual(standIn.problems, []);
});

test('a denied call: the model hears it was denied, nothing runs', async () => {
  decision = 'deny';
  try {
    const chat = host.chat();
    const turn = await chat.send('call up__delete_thing');
    assert.match(turn.text, /was not run: the user denied it/);
    const denied = host.log.entries().filter((e) => e.kind === 'tool' && e.outcome === 'denied');
    assert.ok(denied.length > 0);
  } finally {
    decision = 'allow-once';
  }
  const policy = await host.chat().send('call up__read_thing');
  assert.match(policy.text, /approval policy denies this tool/);
});

test('an unknown tool and arguments that are not JSON become error results; the turn still ends', async () => {
  const chat = host.chat();
  const unknown = await chat.send('call nobody__nothing {}');
  assert.match(unknown.text, /There is no tool named nobody__nothing/);
  standIn.script({ kind: 'tools', calls: [{ name: 'up__echo', arguments: '{"text": "unterminated' }] });
  const broken = await chat.send('go');
  assert.match(broken.text, /The arguments of up__echo were not a JSON object/);
  assert.deepEqual(standIn.problems, []);
});

test('the round limit: the last request turns tool use off, and calls still asked for are dropped', async () => {
  const chat = host.chat({ maxRounds: 2 });
  const always = () => ({
    kind: 'tools' as const,
    calls: [{ name: 'up__echo', arguments: { text: 'again' } }],
  });
  standIn.script(always, always);
  const turn = await chat.send('loop');
  assert.equal(turn.stopReason, 'maxRounds');
  assert.equal(turn.rounds, 2);
  assert.equal(turn.toolCalls, 1);
  assert.deepEqual(standIn.received.at(-1)?.body.tool_choice, { type: 'none' });
  // The conversation stays valid: the next turn is accepted by the API.
  assert.equal((await chat.send('stop')).text, 'You said: stop');
  assert.deepEqual(standIn.problems, []);
});

test('prompts as slash commands: expanded into the conversation and answered', async () => {
  const events: ChatEvent[] = [];
  const chat = host.chat({ onevent: (e) => events.push(e) });
  const turn = await chat.command('/example__test_prompt_with_arguments arg1=one arg2="two words"');
  assert.equal(turn.text, "You said: Prompt with arguments: arg1='one', arg2='two words'");
  assert.ok(events.some((e) => e.type === 'prompt' && e.name === 'example__test_prompt_with_arguments'));
  // By the server's own name when only one server has it; a prompt embedding a resource becomes text.
  const embedded = await chat.command('/test_prompt_with_embedded_resource test://x');
  assert.match(
    embedded.text,
    /You said: Resource test:\/\/x \(text\/plain\):\nEmbedded resource content for testing\./,
  );
  await assert.rejects(chat.command('/test_prompt_with_arguments arg1=only'), /missing arg2/);
  await assert.rejects(chat.command('/no_such_prompt'), /no prompt named no_such_prompt/);
  assert.deepEqual(standIn.problems, []);
});

test('a resource attached as context goes with the next message', async () => {
  const chat = host.chat();
  await chat.attach('odd://up/info');
  const turn = await chat.send('what is this?');
  assert.equal(turn.text, 'You said: Resource odd://up/info (text/plain):\ninfo of up\n\nwhat is this?');
  await chat.attach('test://static-binary');
  await chat.send('and this picture?');
  const last = standIn.received.at(-1)?.body.messages as { content: { type: string }[] }[];
  assert.deepEqual(
    last.at(-1)?.content.map((b) => b.type),
    ['image', 'text'],
  );
  assert.deepEqual(standIn.problems, []);
});

test('a failed model request leaves the conversation as it was', async () => {
  const chat = host.chat();
  await chat.send('first');
  const before = chat.messages.length;
  standIn.script({
    kind: 'error',
    status: 400,
    type: 'invalid_request_error',
    message: 'prompt is too long',
  });
  await assert.rejects(
    chat.send('second'),
    (e: unknown) => e instanceof ModelError && /prompt is too long/.test(e.message),
  );
  assert.equal(chat.messages.length, before);
  assert.equal((await chat.send('third')).text, 'You said: third');
});

test("a server's sampling request is answered by the host's model", async () => {
  const result = await host.callTool('example__test_sampling', { prompt: 'pick a colour' });
  assert.equal(text(result), 'LLM response: You said: pick a colour');
  const sent = standIn.received.at(-1)?.body;
  assert.equal(sent?.max_tokens, 100);
  const sampling = host.log.entries().filter((e) => e.kind === 'sampling');
  assert.equal(sampling.at(-1)?.outcome, 'ok');
});

test("a tool's time is the call's, not the person's thinking over its approval", async () => {
  const events: ChatEvent[] = [];
  let thinking = 0;
  const chat = host.chat({
    onevent: (e) => events.push(e),
    // The person takes a while to answer.
    approve: async (): Promise<ApprovalDecision> => {
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      thinking = performance.now() - started;
      return 'allow-once';
    },
  });
  const started = performance.now();
  await chat.send('call up__delete_thing {}');
  const turn = performance.now() - started;
  const result = events.find((e) => e.type === 'tool-result');
  assert.ok(result?.type === 'tool-result');
  // Whatever the machine's speed: the whole turn, less the thinking, bounds the call (it counted the thinking too).
  assert.ok(result.durationMs <= turn - thinking, `${result.durationMs} ms of a ${turn} ms turn`);
});
