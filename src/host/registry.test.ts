import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServerConfig } from './config/types.js';
import { Registry } from './registry.js';

function config(name: string, extra: Partial<ServerConfig> = {}): ServerConfig {
  return {
    name,
    transport: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: {} },
    disabled: false,
    trusted: false,
    source: { file: 'test', format: 'mcpkit' },
    ...extra,
  };
}

test('a resource two servers offer: the first by name keeps it, the clash is reported once', () => {
  const problems: string[] = [];
  const registry = new Registry(
    '__',
    () => 'allow',
    (server, message) => problems.push(`${server}: ${message}`),
  );
  const resources = [{ uri: 'x://shared', name: 'shared' }];
  registry.set(config('b'), { resources });
  registry.set(config('a'), { resources });
  registry.set(config('a'), { tools: [{ name: 't', inputSchema: { type: 'object' } }] });
  assert.equal(registry.ownerOf('x://shared'), 'a');
  assert.deepEqual(problems, ['b: resource x://shared is also offered by a, which keeps it']);
  registry.remove('a');
  assert.equal(registry.ownerOf('x://shared'), 'b');
  registry.set(config('a'), { resources });
  assert.equal(problems.length, 2, 'a clash that went and came back is reported again');
});

test('allowedTools and disabledTools filter what is offered', () => {
  const registry = new Registry(
    '__',
    () => 'ask',
    () => undefined,
  );
  const tools = ['a', 'b', 'c'].map((name) => ({ name, inputSchema: { type: 'object' } }));
  registry.set(config('s', { allowedTools: ['a', 'b'], disabledTools: ['b'] }), { tools });
  assert.deepEqual(
    registry.tools().map((t) => [t.name, t.mode]),
    [['s__a', 'ask']],
  );
});
