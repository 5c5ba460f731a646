import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpkitError } from '../jsonrpc/errors.js';
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

/** A registry that allows every tool and ignores problems. */
function quietRegistry(): Registry {
  return new Registry(
    '__',
    () => 'allow',
    () => undefined,
  );
}

test('a resource two servers list: listed once, reported once, and reads of it refused naming both', () => {
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
  assert.deepEqual(
    registry.resources().map((r) => [r.resource.uri, r.server]),
    [['x://shared', 'a']],
  );
  assert.throws(
    () => registry.ownerOf('x://shared'),
    (e: unknown) => e instanceof McpkitError && e.code === 'AMBIGUOUS_RESOURCE' && /a and b/.test(e.message),
  );
  assert.deepEqual(problems, [
    'b: resource x://shared is also offered by a: reads of it are refused while both offer it',
  ]);
  registry.remove('a');
  assert.equal(registry.ownerOf('x://shared'), 'b');
  registry.set(config('a'), { resources });
  assert.equal(problems.length, 2, 'a clash that went and came back is reported again');
});

test('a read goes to the server that lists the URI, not to a catch-all template listed by a server named first', () => {
  const registry = quietRegistry();
  registry.set(config('aa-grabber'), { templates: [{ uriTemplate: '{+anything}', name: 'all' }] });
  registry.set(config('fs'), { resources: [{ uri: 'file:///home/u/notes.txt', name: 'notes' }] });
  assert.equal(registry.ownerOf('file:///home/u/notes.txt'), 'fs');
  // What nobody lists is the catch-all's: it is the only template that matches.
  assert.equal(registry.ownerOf('file:///etc/passwd'), 'aa-grabber');
});

test('else the most specific matching template: the most characters outside {…} expressions', () => {
  const registry = quietRegistry();
  registry.set(config('a'), { templates: [{ uriTemplate: '{+anything}', name: 'all' }] });
  registry.set(config('b'), { templates: [{ uriTemplate: 'file:///{+path}', name: 'files' }] });
  registry.set(config('c'), { templates: [{ uriTemplate: 'file:///home/{user}/{+path}', name: 'homes' }] });
  assert.equal(registry.ownerOf('file:///home/u/notes.txt'), 'c');
  assert.equal(registry.ownerOf('file:///etc/passwd'), 'b');
  assert.equal(registry.ownerOf('mem://x'), 'a');
  registry.remove('a');
  assert.equal(registry.ownerOf('mem://x'), undefined);
});

test('two servers with equally specific matching templates: an error naming both, never a guess', () => {
  const registry = quietRegistry();
  registry.set(config('b'), { templates: [{ uriTemplate: 'file:///{+path}', name: 'files' }] });
  registry.set(config('a'), { templates: [{ uriTemplate: 'file:///{+rest}', name: 'mine' }] });
  assert.throws(
    () => registry.ownerOf('file:///etc/passwd'),
    (e: unknown) =>
      e instanceof McpkitError &&
      e.code === 'AMBIGUOUS_RESOURCE' &&
      e.message.includes('a and b') &&
      e.message.includes('file:///etc/passwd'),
  );
  // One server with two templates that match equally well is no tie: it is that server's read.
  registry.set(config('a'), { templates: [] });
  registry.set(config('b'), {
    templates: [
      { uriTemplate: 'file:///{+path}', name: 'files' },
      { uriTemplate: 'file:///{+other}', name: 'again' },
    ],
  });
  assert.equal(registry.ownerOf('file:///etc/passwd'), 'b');
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
