import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invalidCases, validCases } from '../../test/fixtures/x-mcp-header-cases.js';
import type { McpkitError } from '../jsonrpc/errors.js';
import type { Tool } from '../spec/types.js';
import { ToolCache } from './tool-cache.js';

const mirrored: Tool = {
  name: 'weather',
  inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
};
const invalid: Tool = {
  name: 'broken',
  inputSchema: { type: 'object', properties: { filter: { type: 'object', 'x-mcp-header': 'Filter' } } },
};

test('stateless era: a tool with an invalid x-mcp-header annotation is dropped; valid ones are mirrored', () => {
  const cache = new ToolCache();
  assert.deepEqual(
    cache.update([mirrored, invalid], true).map((t) => t.name),
    ['weather'],
  );
  assert.deepEqual(cache.headers('weather', { region: 'eu' }), { 'mcp-param-region': 'eu' });
});

test('stateful era: no tool is dropped for its annotations (they mean nothing there)', () => {
  const cache = new ToolCache();
  assert.deepEqual(
    cache.update([mirrored, invalid], false).map((t) => t.name),
    ['weather', 'broken'],
  );
  assert.equal(cache.headers('broken', { filter: {} }), undefined);
});

test('the shared x-mcp-header cases: valid tools are kept and mirrored, invalid ones dropped with a reason', () => {
  const cache = new ToolCache();
  const tools: Tool[] = [
    ...validCases.map((c, i) => ({ name: `valid${i}`, inputSchema: c.schema as Tool['inputSchema'] })),
    ...invalidCases.map((c, i) => ({ name: `invalid${i}`, inputSchema: c.schema as Tool['inputSchema'] })),
  ];
  const dropped: McpkitError[] = [];
  const kept = cache.update(tools, true, (e) => dropped.push(e));
  assert.deepEqual(
    kept.map((t) => t.name),
    validCases.map((_, i) => `valid${i}`),
  );
  assert.equal(dropped.length, invalidCases.length);
  invalidCases.forEach((c, i) => {
    const error = dropped[i];
    assert.equal(error?.code, 'INVALID_DEFINITION');
    assert.ok(error?.message.startsWith(`Tool invalid${i} was left out of tools/list`), error?.message);
    assert.ok(error?.message.includes(`"${c.property}"`), error?.message);
    assert.ok(error?.message.includes(c.reason), error?.message);
  });
});

test('a nested x-mcp-header property is mirrored from its path; absent and null values send no header', () => {
  const cache = new ToolCache();
  const nested = validCases.find((c) => c.name.startsWith('a nested object property'));
  assert.ok(nested);
  cache.update([{ name: 'deploy', inputSchema: nested.schema as Tool['inputSchema'] }], true);
  assert.deepEqual(cache.headers('deploy', { target: { zone: 'eu-1' } }), { 'mcp-param-zone': 'eu-1' });
  assert.deepEqual(cache.headers('deploy', { target: { zone: null } }), {});
  assert.deepEqual(cache.headers('deploy', { target: 'eu-1' }), {});
  assert.deepEqual(cache.headers('deploy', undefined), {});
});
