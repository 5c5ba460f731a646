// The mcpkit format's per-server `lazy`: read, absent by default, a value that is not a boolean refused naming the
// field; the other formats do not have it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from './config-error.js';
import { parseConfig } from './formats.js';

const OPTIONS = { env: {}, userHome: '/home/u' };

test('mcpkit format: lazy is read per server, absent by default', async () => {
  const text = JSON.stringify({
    servers: {
      big: { command: 'x', lazy: true },
      eager: { command: 'y', lazy: false },
      plain: { command: 'z' },
    },
  });
  const { servers } = await parseConfig(text, '/c/mcpkit.json', 'mcpkit', OPTIONS);
  assert.deepEqual(
    servers.map((s) => [s.name, s.lazy]),
    [
      ['big', true],
      ['eager', false],
      ['plain', undefined],
    ],
  );
});

test('a lazy that is not a boolean is refused, naming the field; other formats have none', async () => {
  const bad = JSON.stringify({ servers: { s: { command: 'x', lazy: 'yes' } } });
  await assert.rejects(parseConfig(bad, '/c/mcpkit.json', 'mcpkit', OPTIONS), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.field, 'lazy');
    return true;
  });
  const desktop = JSON.stringify({ mcpServers: { s: { command: 'x', lazy: true } } });
  await assert.rejects(
    parseConfig(desktop, '/c/claude_desktop_config.json', 'claude-desktop', OPTIONS),
    /lazy/,
  );
});
