// Terminal control sequences from servers and models never reach the person, even with stdout and stderr piped (not
// terminals: `mcpkit … | tee` shows them all the same): tool descriptions, results, errors, log messages,
// instructions, a server's stderr tail and the chat's streamed text come out without them; `--format json` keeps
// every character (JSON escapes them).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, HttpClientTransport } from '../../src/index.js';
import { type StandIn, startModelServer } from '../host/fixtures/model-server.js';
import { json, mcpkit, ROOT, type Run } from './helpers.js';
import { HOSTILE } from './hostile-text-server.js';
import { startMcpkit, stop, until } from './long-running.js';

const SERVER = ['--', process.execPath, join(ROOT, 'dist/test/cli/hostile-text-server.js')];
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** The run's output holds no control character but newlines and tabs. */
function assertClean(run: Run, what: string): void {
  for (const [name, text] of [
    ['stdout', run.stdout],
    ['stderr', run.stderr],
  ] as const) {
    const found = CONTROL.exec(text);
    assert.equal(
      found,
      null,
      `${what}: ${name} holds ${JSON.stringify(found?.[0])} in ${JSON.stringify(text)}`,
    );
  }
}

describe('server text, piped: no control sequence reaches stdout or stderr', { timeout: 120_000 }, () => {
  test('a tool description, its result, its log message, an error result, the instructions', async () => {
    const tools = await mcpkit(['tools', ...SERVER]);
    assert.equal(tools.code, 0, tools.stderr);
    assertClean(tools, 'tools');
    assert.match(tools.stdout, /Shouts \]0;pwned\[2J31mhidden/);

    const call = await mcpkit(['call', 'shout', '--log-level', 'debug', ...SERVER]);
    assert.equal(call.code, 0, call.stderr);
    assertClean(call, 'call shout');
    assert.match(call.stdout, /result \]0;pwned\[2J31mhidden end/);
    assert.match(call.stderr, /\[warning\] log \]0;pwned/);

    const fail = await mcpkit(['call', 'fail', ...SERVER]);
    assert.notEqual(fail.code, 0);
    assertClean(fail, 'call fail');
    assert.match(fail.stdout + fail.stderr, /failure \]0;pwned/);

    const discover = await mcpkit(['discover', ...SERVER]);
    assert.equal(discover.code, 0, discover.stderr);
    assertClean(discover, 'discover');
    assert.match(discover.stdout, /Instructions \]0;pwned/);
  });

  test("a server that fails to start: its stderr's last lines", async () => {
    const run = await mcpkit([
      'tools',
      '--',
      process.execPath,
      '-e',
      `process.stderr.write(${JSON.stringify(`cannot start ${HOSTILE}\n`)}); process.exit(3)`,
    ]);
    assert.equal(run.code, 2, run.stderr);
    assertClean(run, 'stderr tail');
    assert.match(run.stderr, /cannot start \]0;pwned/);
  });

  test('mcpkit bridge --from-stdio: the stderr of the server it runs', async () => {
    const bridge = await startMcpkit(
      ['bridge', '--from-stdio', '--http', '0', ...SERVER],
      /at (http:\/\/\S+\/mcp) /,
    );
    try {
      const client = new Client({ name: 'terminal-safe', version: '1.0.0' }, { onerror: () => undefined });
      await client.connect(new HttpClientTransport(bridge.match[1] as string));
      await client.callTool('shout', {});
      await client.close();
      await until(() => bridge.stderr().includes('starting'), 10_000, "the server's stderr");
    } finally {
      await stop(bridge.child);
    }
    assertClean({ code: 0, stdout: '', stderr: bridge.stderr() }, 'bridge');
    assert.match(bridge.stderr(), /starting \]0;pwned/);
  });

  test('--format json keeps every character', async () => {
    const tools = await mcpkit(['tools', '--format', 'json', ...SERVER]);
    assert.equal(tools.code, 0, tools.stderr);
    const listed = json<{ tools: { name: string; description: string }[] }>(tools);
    assert.equal(listed.tools.find((t) => t.name === 'shout')?.description, `Shouts ${HOSTILE}`);
    const call = await mcpkit(['call', 'shout', '--format', 'json', ...SERVER]);
    assert.equal(call.code, 0, call.stderr);
    const result = json<{ content: { type: string; text: string }[] }>(call);
    assert.equal(result.content[0]?.text, `result ${HOSTILE} end`);
  });
});

describe('mcpkit chat, piped: the model text and the tool results shown without control sequences', {
  timeout: 120_000,
}, () => {
  let standIn: StandIn;
  let config: string;
  before(async () => {
    standIn = await startModelServer();
    config = join(mkdtempSync(join(tmpdir(), 'mcpkit-terminal-safe-')), 'mcpkit.json');
    writeFileSync(
      config,
      JSON.stringify({
        servers: { hostile: { command: SERVER[1], args: SERVER.slice(2), approval: 'allow' } },
      }),
    );
  });
  after(async () => {
    await standIn.close();
  });

  test('a turn with a tool call', async () => {
    standIn.script(
      { kind: 'tools', calls: [{ name: 'hostile__shout', arguments: {} }] },
      { kind: 'text', text: `model says ${HOSTILE}` },
    );
    const run = await mcpkit(['chat', '--config', config, '--model', 'openai:gpt-4o'], {
      env: { OPENAI_BASE_URL: standIn.openaiBase, OPENAI_API_KEY: '' },
      input: 'go\n',
    });
    assert.equal(run.code, 0, run.stderr);
    assertClean(run, 'chat');
    assert.match(run.stdout, /model says \]0;pwned\[2J31mhidden/);
    assert.match(run.stderr, /← hostile__shout: result \]0;pwned/);
  });
});
