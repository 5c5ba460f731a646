// The mcpkit format's per-server `toolChanges` (ask, refuse, accept): read, absent by default, anything else refused
// naming the field; the other formats do not have it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from './config-error.js';
import { parseConfig } from './formats.js';

const OPTIONS = { env: {}, userHome: '/home/u' };

test('mcpkit format: toolChanges is read per server, absent by default', async () => {
  const text = JSON.stringify({
    servers: {
      mine: { command: 'my-server', toolChanges: 'accept' },
      theirs: { url: 'https://example.com/mcp', toolChanges: 'refuse' },
      plain: { command: 'x' },
    },
  });
  const { servers } = await parseConfig(text, '/c/mcpkit.json', 'mcpkit', OPTIONS);
  assert.deepEqual(
    servers.map((s) => [s.name, s.toolChanges]),
    [
      ['mine', 'accept'],
      ['theirs', 'refuse'],
      ['plain', undefined],
    ],
  );
});

test('a toolChanges that is not ask, refuse or accept is refused, naming the field; other formats have none', async () => {
  const bad = JSON.stringify({ servers: { s: { command: 'x', toolChanges: 'always' } } });
  await assert.rejects(parseConfig(bad, '/c/mcpkit.json', 'mcpkit', OPTIONS), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.field, 'toolChanges');
    assert.match(e.message, /ask, refuse, accept/);
    return true;
  });
  const cursor = JSON.stringify({ mcpServers: { s: { command: 'x', toolChanges: 'accept' } } });
  await assert.rejects(parseConfig(cursor, '/p/.cursor/mcp.json', 'cursor', OPTIONS), /toolChanges/);
});
