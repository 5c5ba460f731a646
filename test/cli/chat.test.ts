// `mcpkit chat` against the stand-in model (OpenAI's API shape) and real stdio servers: in a pseudo-terminal (tmux)
// the servers' status shows, a tool call is shown and approved inline, a server's sampling request and its answer
// are reviewed inline, a form is filled in inline, /tools and /log work, /quit ends it; with stdin not a terminal it
// is scriptable (answers on stdout, approvals by the policy only, exit code of a model failure).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type StandIn, startModelServer } from '../host/fixtures/model-server.js';
import { EXAMPLE, mcpkit, ROOT, tempHome } from './helpers.js';
import { chatCommand, Tmux } from './tmux.js';

const ODD = join(ROOT, 'dist/test/host/fixtures/odd-server.js');
let standIn: StandIn;
let config: string;

before(async () => {
  standIn = await startModelServer();
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-chat-'));
  config = join(dir, '.mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        up: { command: process.execPath, args: [ODD, '--name', 'up'] },
        example: { command: process.execPath, args: [EXAMPLE] },
      },
    }),
  );
});

after(async () => {
  await standIn.close();
});

test('in a terminal: status, a tool call approved inline, sampling and a form answered inline, /tools, /log, /quit', {
  timeout: 120_000,
}, async () => {
  const tmux = new Tmux();
  tmux.start(chatCommand(config, standIn.openaiBase));
  try {
    await tmux.waitFor(/model: openai:gpt-4o/, 'the chat to start');
    const start = tmux.screen();
    assert.match(start, /✓ up: ready, \d+ tools/);
    assert.match(start, /✓ example: ready, \d+ tools/);

    tmux.type('call up__delete_thing {}');
    await tmux.waitFor(
      /up__delete_thing \(destructive\) on up wants to run[\s\S]*allow \[o\]nce/,
      'the approval question',
    );
    assert.match(tmux.screen(), /→ up__delete_thing \{\}/);
    tmux.type('o');
    await tmux.waitFor(/Tool result: deleted/, "the model's answer");
    assert.match(tmux.screen(), /← up__delete_thing: deleted/);

    tmux.type('call example__test_sampling {"prompt":"pick a colour"}');
    await tmux.waitFor(/example__test_sampling on example wants to run/, 'the approval of the sampling tool');
    tmux.type('s');
    await tmux.waitFor(
      /example asks the model: "pick a colour"[\s\S]*send it to the model\? \[y\/n\]/,
      'the sampling request',
    );
    tmux.type('y');
    await tmux.waitFor(
      /the model answered: "You said: pick a colour"[\s\S]*give this answer to example\?/,
      'the sampling answer',
    );
    tmux.type('y');
    await tmux.waitFor(
      /Tool result: LLM response: You said: pick a colour/,
      "the model's answer after sampling",
    );

    tmux.type('call example__test_elicitation {"message":"Who are you?"}');
    await tmux.waitFor(/example__test_elicitation on example wants to run/, 'the approval of the form tool');
    tmux.type('o');
    await tmux.waitFor(/example asks: Who are you\?[\s\S]*answer\? \[y\]es/, 'the form');
    tmux.type('y');
    await tmux.waitFor(/Username\*/, 'the first field');
    tmux.type('ada');
    await tmux.waitFor(/E-mail\*/, 'the second field');
    tmux.type('ada@example.com');
    await tmux.waitFor(/Tool result: User response: .*ada/, 'the answer with the form');

    tmux.type('/tools');
    await tmux.waitFor(/up__echo\s+ask/, 'the tools table');
    tmux.type('/log 30');
    await tmux.waitFor(/approval up up__delete_thing allowed \(once\)/, 'the log');
    assert.match(tmux.screen(), /model openai:gpt-4o toolUse/);
    tmux.type('/quit');
    await tmux.waitFor(/exited 0/, 'the chat to end with 0');
    assert.deepEqual(standIn.problems, []);
  } finally {
    tmux.kill();
  }
});

test('scripted (stdin not a terminal): answers on stdout, approvals by the policy only', async () => {
  const run = await mcpkit(['chat', '--config', config, '--model', 'openai:gpt-4o'], {
    env: { OPENAI_BASE_URL: standIn.openaiBase, OPENAI_API_KEY: '' },
    input: 'call up__delete_thing {}\nhello there\n/example__test_simple_prompt\n',
  });
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.match(
    lines[0] ?? '',
    /^Tool result: Error: The call to up__delete_thing was not run: it needs approval and no one is there/,
  );
  assert.equal(lines[1], 'You said: hello there');
  assert.equal(lines[2], 'You said: This is a simple prompt for testing.');
  assert.match(run.stderr, /✓ up: ready/);
  assert.doesNotMatch(run.stderr, /allow \[o\]nce/);
});

test('scripted with --tool-search: the model sees two tools, searches, and calls through call_tool and approval; bad modes refused', async () => {
  const start = standIn.received.length;
  const run = await mcpkit(['chat', '--config', config, '--model', 'openai:gpt-4o', '--tool-search'], {
    env: { OPENAI_BASE_URL: standIn.openaiBase, OPENAI_API_KEY: '', XDG_CACHE_HOME: tempHome() },
    input:
      'call search_tools {"query":"echo a message back"}\ncall call_tool {"name":"up__echo","arguments":{"text":"hi"}}\n',
  });
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.match(lines[0] ?? '', /^Tool result: \{"tools":\[\{"name":"up__echo"/);
  // Through approval like any call: with no one to ask, the config's policy (ask) denies it.
  assert.match(lines[1] ?? '', /^Tool result: Error: The call to up__echo was not run: it needs approval/);
  assert.match(run.stderr, /\(tool search over \d+ tools, about \d+ tokens of definitions not sent\)/);
  assert.match(run.stderr, /→ up__echo \{"text":"hi"\}/);
  const first = standIn.received[start]?.body.tools as { function: { name: string } }[];
  assert.deepEqual(
    first.map((t) => t.function.name),
    ['search_tools', 'call_tool'],
  );
  const bad = await mcpkit(
    ['chat', '--config', config, '--model', 'openai:gpt-4o', '--tool-search', 'always'],
    {
      env: { OPENAI_BASE_URL: standIn.openaiBase },
      input: '',
    },
  );
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--tool-search takes search, auto or provider, got always/);
  const provider = await mcpkit(
    ['chat', '--config', config, '--model', 'openai:gpt-4o', '--tool-search', 'provider'],
    {
      env: { OPENAI_BASE_URL: standIn.openaiBase, XDG_CACHE_HOME: tempHome() },
      input: 'hello\n',
    },
  );
  assert.notEqual(provider.code, 0);
  assert.match(provider.stderr, /built for anthropic and openai-responses/);
});

test('scripted: a model failure ends the chat with its exit code and the provider message', async () => {
  standIn.script({
    kind: 'error',
    status: 401,
    type: 'invalid_api_key',
    message: 'Incorrect API key provided',
  });
  const run = await mcpkit(['chat', '--config', config, '--model', 'openai:gpt-4o'], {
    env: { OPENAI_BASE_URL: standIn.openaiBase, OPENAI_API_KEY: 'sk-wrong' },
    input: 'hello\n',
  });
  assert.equal(run.code, 4, run.stderr);
  assert.match(run.stderr, /error: openai answered HTTP 401 invalid_api_key: Incorrect API key provided/);
});

test('a model spec that cannot work is a usage error', async () => {
  const run = await mcpkit(['chat', '--config', config, '--model', 'gpt-4o'], { env: { MCPKIT_MODEL: '' } });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /provider:name/);
});
