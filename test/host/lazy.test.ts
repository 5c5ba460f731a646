// Lazy servers and the tool-list cache: a host whose servers are lazy is ready at once; searches are answered from the
// tools its servers listed on an earlier run (kept in a cache keyed by their config) without starting them; a call
// starts its server (and not before); a lazy server without a cached list is started by a search; a cached definition
// that differs from what the server lists when it starts is a change asked about like any other. Searches while a
// server is starting or has failed say so.
import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  type ApprovalRequest,
  FileToolListCache,
  Host,
  MemoryToolListCache,
  type ServerConfig,
  toolListKey,
} from '../../src/host.js';
import type { CallToolResult } from '../../src/index.js';
import { alive, CHANGING_SERVER, ROOT, stdioServer, tempDir, text } from './helpers.js';

const MANY = join(ROOT, 'dist', 'test', 'host', 'fixtures', 'many-tools-server.js');
const hosts: Host[] = [];
after(async () => {
  await Promise.all(hosts.map((h) => h.close()));
});

function track(host: Host): Host {
  hosts.push(host);
  return host;
}

function names(result: CallToolResult): string[] {
  assert.notEqual(result.isError, true, text(result));
  return (result.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
}

const many = (name: string, extra: Partial<ServerConfig> = {}) =>
  stdioServer(name, MANY, ['--tools', '40'], extra);

test('a lazy host is ready at once, searches from the cache without starting anything, and a call starts its server', async () => {
  const cache = new MemoryToolListCache();
  // An earlier run: the servers start, list, and their lists are kept.
  const first = track(new Host([many('a'), many('b')], { toolListCache: cache, defaultApproval: 'allow' }));
  for (const s of await first.start()) assert.equal(s.state, 'ready');
  await first.close();
  // Lists are saved in the background: wait (bounded) until both are there.
  for (let i = 0; i < 100 && !(await cache.load(toolListKey(many('b')))); i++)
    await new Promise((r) => setTimeout(r, 20));

  const host = track(
    new Host([many('a'), many('b')], { toolListCache: cache, lazy: true, defaultApproval: 'allow' }),
  );
  const states = await host.start();
  assert.deepEqual(
    states.map((s) => s.state),
    ['idle', 'idle'],
  );
  assert.equal(host.pidOf('a'), undefined);
  const answer = await host.searchTools('approve an hr payslip');
  assert.ok(answer.tools.length > 0);
  assert.equal(answer.tools[0]?.cached, true);
  assert.deepEqual(answer.notes, []);
  const found = names(await host.toolSearch.call('search_tools', { query: 'create a crm record' }));
  assert.ok(found.length > 0);
  assert.equal(host.pidOf('a'), undefined, 'a search from the cache starts nothing');
  assert.equal(host.pidOf('b'), undefined);
  const target = found[0] as string;
  const server = target.split('__')[0] as string;
  const result = await host.toolSearch.call('call_tool', {
    name: target,
    arguments: { id: '7', name: 'x', status: 's', owner: 'o', limit: 1 },
  });
  assert.notEqual(result.isError, true, text(result));
  assert.match(text(result), /ran with/);
  assert.equal(host.server(server)?.state, 'ready');
  const pid = host.pidOf(server) as number;
  assert.ok(alive(pid));
  const other = server === 'a' ? 'b' : 'a';
  assert.equal(host.server(other)?.state, 'idle', 'the other server is still not started');
  assert.equal(host.pidOf(other), undefined);
  // The registry now holds the running server's list, not the cached one.
  assert.equal(host.registry.tool(target)?.cached, undefined);
  await host.close();
  assert.equal(alive(pid), false);
});

test('a lazy server with no cached list is started by a search; a direct call starts one too', async () => {
  const host = track(new Host([many('c'), many('d')], { lazy: true, defaultApproval: 'allow' }));
  await host.start();
  const answer = await host.searchTools('list the billing invoices', { servers: ['c'] });
  assert.ok(answer.tools.length > 0);
  assert.ok(answer.tools.every((t) => t.server === 'c' && t.cached === undefined));
  assert.equal(host.server('c')?.state, 'ready');
  assert.equal(host.server('d')?.state, 'idle', 'a search limited to c starts only c');
  // With no list known, a direct call cannot name d's tools yet: it is an unknown tool, and d stays idle.
  const unknown = await host.callTool('d__crm_get_record', {});
  assert.equal(unknown.isError, true);
  assert.equal(host.server('d')?.state, 'idle');
});

test('a cached definition that differs from the one the server lists when it starts is asked about, with the change', async () => {
  const config = stdioServer('changing', CHANGING_SERVER, [], { approval: { default: 'allow' } });
  const cache = new MemoryToolListCache();
  await cache.save(toolListKey(config), [
    {
      name: 'echo',
      description: 'Echoes the text back (as it was)',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    },
  ]);
  const asked: ApprovalRequest[] = [];
  const host = track(
    new Host([config], {
      lazy: true,
      toolListCache: cache,
      approve: (request) => {
        asked.push(request);
        return 'allow-once';
      },
    }),
  );
  await host.start();
  assert.equal(host.registry.tool('changing__echo')?.cached, true);
  const result = await host.toolSearch.call('call_tool', {
    name: 'changing__echo',
    arguments: { text: 'hi' },
  });
  assert.notEqual(result.isError, true, text(result));
  assert.equal(asked.length, 1, 'asked although the policy allows it: the definition is not the one known');
  assert.ok(asked[0]?.change?.fields.includes('description'), JSON.stringify(asked[0]?.change));
  assert.ok(host.log.entries().some((e) => e.kind === 'tool-change' && e.outcome === 'changed'));
});

test('searches while a server is starting or has failed name them; the file cache keeps lists 0600 and drops a broken one', async () => {
  const dir = tempDir('mcpkit-lists-');
  const cache = new FileToolListCache(join(dir, 'lists'));
  const slow = stdioServer('slow', MANY, ['--tools', '10', '--slow-start', '4000']);
  const broken: ServerConfig = {
    ...stdioServer('broken', MANY),
    transport: { type: 'stdio', command: join(dir, 'no-such-command'), args: [], env: {}, namedEnv: [] },
  };
  const host = track(
    new Host([many('fine'), slow, broken], {
      toolListCache: cache,
      restart: { maxRestarts: 0 },
      toolSearch: { startWaitMs: 300 },
    }),
  );
  const started = host.start();
  const early = await host.searchTools('create a crm record');
  assert.ok(
    early.notes.some((n) => /The server slow is still starting/.test(n)),
    early.notes.join(' | '),
  );
  await started;
  const later = await host.searchTools('create a crm record');
  assert.ok(
    later.notes.some((n) => /The server broken is failed \(/.test(n)),
    later.notes.join(' | '),
  );
  assert.ok(later.tools.some((t) => t.server === 'fine'));
  const text2 = await host.toolSearch.call('search_tools', {
    query: 'create a crm record',
    servers: ['broken', 'nobody'],
  });
  assert.match(
    text(text2),
    /No tool matches .*There is no server named nobody\. The server broken is failed/,
  );
  await host.close();
  // The lists were written as files of their own, readable by the owner only.
  for (let i = 0; i < 100 && readdirSync(join(dir, 'lists')).length < 2; i++)
    await new Promise((r) => setTimeout(r, 20));
  const files = readdirSync(join(dir, 'lists'));
  assert.equal(files.length, 2, files.join(' '));
  for (const f of files) assert.equal(statSync(join(dir, 'lists', f)).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'lists')).mode & 0o777, 0o700);
  const key = toolListKey(many('fine'));
  assert.equal((await cache.load(key))?.length, 40);
  // Another config (an argument changed) is another key: its list is not taken for this one.
  assert.notEqual(toolListKey(stdioServer('fine', MANY, ['--tools', '41'])), key);
  // A file that is not a list of tools is no list.
  writeFileSync(join(dir, 'lists', `${key}.json`), '{"version":1,"tools":[{"name":3}]}');
  assert.equal(await cache.load(key), undefined);
  writeFileSync(join(dir, 'lists', `${key}.json`), 'not json');
  assert.equal(await cache.load(key), undefined);
});
