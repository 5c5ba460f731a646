// `mcpkit chat --model openai-responses:NAME` against the stand-in of the OpenAI Responses API and a real stdio server,
// scripted (stdin not a terminal): a plain answer, and `--tool-search provider`, where every tool is deferred to the
// API's hosted tool search, its items come back in the next request, and the call it finds still goes through the
// config's approval policy (ask = deny with no one there).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ResponsesStandIn, startResponsesServer } from '../host/fixtures/responses-server.js';
import { mcpkit, ROOT, tempHome } from './helpers.js';

const ODD = join(ROOT, 'dist/test/host/fixtures/odd-server.js');
type Item = Record<string, unknown>;
let standIn: ResponsesStandIn;
let config: string;

before(async () => {
  standIn = await startResponsesServer({ apiKey: 'sk-test' });
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-chat-responses-'));
  config = join(dir, '.mcp.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { up: { command: process.execPath, args: [ODD, '--name', 'up'] } } }),
  );
});

after(async () => {
  await standIn.close();
});

test('scripted with --tool-search provider: the API searches the deferred tools; its call is denied by the policy', async () => {
  const start = standIn.received.length;
  standIn.script({
    kind: 'tool-search',
    query: 'echo',
    call: { name: 'up__echo', arguments: { text: 'hi' } },
  });
  const run = await mcpkit(
    ['chat', '--config', config, '--model', 'openai-responses:gpt-5.4', '--tool-search', 'provider'],
    {
      env: { OPENAI_BASE_URL: standIn.url, OPENAI_API_KEY: 'sk-test', XDG_CACHE_HOME: tempHome() },
      input: 'Echo hi\nhello there\n',
    },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(standIn.problems, []);
  const lines = run.stdout.trim().split('\n');
  assert.match(lines[0] ?? '', /^Tool result: Error: The call to up__echo was not run: it needs approval/);
  assert.equal(lines[1], 'You said: hello there');
  assert.match(run.stderr, /model: openai-responses:gpt-5\.4/);
  assert.match(run.stderr, /\(the model API's own tool search over \d+ tools/);
  const [first, , third] = standIn.received.slice(start).map((r) => r.body) as [Item, Item, Item];
  assert.deepEqual((first.tools as unknown[])[0], { type: 'tool_search' });
  // The third request (the next line) still carries the search's items before the call they led to.
  const types = (third.input as Item[]).map((i) => i.type ?? 'message');
  assert.deepEqual(types, [
    'message',
    'tool_search_call',
    'tool_search_output',
    'function_call',
    'function_call_output',
    'message',
    'message',
  ]);
});
