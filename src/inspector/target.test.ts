import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeTarget, splitCommandLine } from './target.js';

test('splitCommandLine: words, quotes and escapes', () => {
  assert.deepEqual(splitCommandLine('node  server.js --http 0'), ['node', 'server.js', '--http', '0']);
  assert.deepEqual(splitCommandLine(`npx -y "my server" 'a "b"' c\\ d ""`), [
    'npx',
    '-y',
    'my server',
    'a "b"',
    'c d',
    '',
  ]);
  assert.deepEqual(splitCommandLine('   '), []);
  assert.throws(() => splitCommandLine('node "unterminated'), /Unterminated/);
});

test('describeTarget never carries header values', () => {
  const described = describeTarget({
    kind: 'http',
    url: 'http://127.0.0.1:3000/mcp',
    headers: { Authorization: 'Bearer secret-token' },
  });
  assert.deepEqual(described, {
    kind: 'http',
    label: 'http://127.0.0.1:3000/mcp',
    headerNames: ['Authorization'],
  });
  assert.doesNotMatch(JSON.stringify(described), /secret-token/);
  assert.equal(
    describeTarget({ kind: 'stdio', command: 'node', args: ['a b.js', '--x=1'] }).label,
    'node "a b.js" --x=1',
  );
});
