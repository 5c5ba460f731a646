// The docs check itself must fail on a broken page: a type error, a run whose output differs from its text block, a
// block with no language. Each is reported at the page's own line.
import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkPages } from './check.js';
import { codeBlocks } from './markdown.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

test('code blocks: language, run, file=, the hidden preamble and the page line', () => {
  const page = [
    '# Page', // 1
    '', // 2
    '<!-- preamble', // 3
    "import type { McpServer } from 'mcpkit';", // 4
    'declare const server: McpServer;', // 5
    '-->', // 6
    '', // 7
    '```ts run file=main.ts', // 8
    "server.tool('a', {}, () => 'b');", // 9
    '```', // 10
    '', // 11
    '- a list item', // 12
    '  ```text', // 13
    '  out', // 14
    '  ```', // 15
  ].join('\n');
  const [code, text] = codeBlocks(page);
  assert.deepEqual(code, {
    lang: 'ts',
    run: true,
    file: 'main.ts',
    text: "server.tool('a', {}, () => 'b');",
    line: 9,
    preamble: "import type { McpServer } from 'mcpkit';\ndeclare const server: McpServer;",
  });
  assert.deepEqual(text, { lang: 'text', run: false, file: undefined, text: 'out', line: 14, preamble: '' });
  assert.throws(() => codeBlocks('text\n```ts\nnever closed\n'), /line 2: a code fence that never closes/);
});

test('the docs check fails on a type error, a wrong output and a block without a language, at the page line', () => {
  const good = [
    '```ts run',
    "import { McpServer } from 'mcpkit';",
    "import { connectInMemory } from 'mcpkit/testing';",
    "const server = new McpServer({ name: 'x', version: '1.0.0' });",
    "server.tool('hi', {}, () => 'hello');",
    'const { client } = await connectInMemory(server);',
    "console.log((await client.callTool('hi')).content);",
    'await client.close();',
    '```',
    '',
    '```text',
    "[ { type: 'text', text: 'hello' } ]",
    '```',
  ].join('\n');
  const passing = checkPages([{ name: 'good.md', text: good }], { root });
  assert.deepEqual(passing.failures, []);
  assert.equal(passing.checked, 1);
  assert.equal(passing.ran, 1);

  const broken = [
    '# Broken', // 1
    '```ts', // 2
    "import { McpServer } from 'mcpkit';", // 3
    "const server = new McpServer({ name: 'x' });", // 4: version is required
    'void server;', // 5
    '```', // 6
    '```', // 7
    'no language', // 8
    '```', // 9
  ].join('\n');
  const wrongOutput = good.replace("text: 'hello'", "text: 'goodbye'");
  const result = checkPages(
    [
      { name: 'docs/broken.md', text: broken },
      { name: 'docs/output.md', text: wrongOutput },
    ],
    { root, keepOnFailure: false },
  );
  const messages = result.failures.join('\n');
  assert.match(messages, /^docs\/broken\.md:4:\d+: error TS\d+: .*version/m);
  assert.match(messages, /^docs\/broken\.md:8: a code block without a language/m);
  assert.match(
    messages,
    /^docs\/output\.md:2: the output differs from the text block at docs\/output\.md:12/m,
  );
  assert.match(messages, /goodbye/);
});
