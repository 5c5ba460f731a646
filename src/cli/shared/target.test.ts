import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandLabel, parseEnv, parseHeaders, resolveTarget, urlLabel } from './target.js';

test('urlLabel: origin and path, query values redacted, no userinfo or fragment', () => {
  assert.equal(
    urlLabel('https://u:pw@example.com/mcp?api_key=SECRET&x=1#frag'),
    'https://example.com/mcp?api_key=[redacted]&x=[redacted]',
  );
  assert.equal(urlLabel('http://127.0.0.1:8080/mcp'), 'http://127.0.0.1:8080/mcp');
  assert.equal(urlLabel('not a url SECRET'), '[redacted]');
});

test('commandLabel: secret-looking flag values, assignments and credentials redacted', () => {
  const label = commandLabel([
    'node',
    'server.js',
    '--token=SECRET1',
    '--api-key',
    'SECRET2',
    'API_KEY=SECRET3',
    'sk-abcdefghijklmnopqrstuvwx',
    'https://example.com/x?key=SECRET4',
    '--verbose',
    'plain',
  ]);
  assert.doesNotMatch(label, /SECRET|sk-abc/);
  assert.equal(
    label,
    'node server.js --token=[redacted] --api-key [redacted] API_KEY=[redacted] [redacted] https://example.com/x?key=[redacted] --verbose plain',
  );
});

test('resolveTarget: a URL with userinfo is a usage error that does not echo the password; labels are safe', async () => {
  await assert.rejects(
    resolveTarget('https://me:hunter2@example.com/mcp', undefined, {}),
    (e: Error & { exitCode?: number }) => {
      assert.equal(e.exitCode, 1);
      assert.doesNotMatch(e.message, /hunter2|me:/);
      assert.match(e.message, /--header "Authorization/);
      return true;
    },
  );
  const url = await resolveTarget('https://example.com/mcp?api_key=SECRET', undefined, {});
  assert.equal(url.label, 'https://example.com/mcp?api_key=[redacted]');
  assert.equal(url.kind === 'url' ? url.url : '', 'https://example.com/mcp?api_key=SECRET');
  const stdio = await resolveTarget(undefined, ['node', 'server.js', '--token=SECRET'], {});
  assert.equal(stdio.label, 'node server.js --token=[redacted]');
});

test('-e and --header named __proto__ are kept as values, never taken as a prototype', () => {
  const env = parseEnv(['__proto__=x', 'A=1']);
  assert.deepEqual(Object.keys(env), ['__proto__', 'A']);
  assert.equal(Object.getPrototypeOf(env), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(parseHeaders(['__proto__: y']), '__proto__')?.value, 'y');
});
