import assert from 'node:assert/strict';
import { test } from 'node:test';
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
