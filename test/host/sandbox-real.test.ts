// Real servers from npm, sandboxed with the grants they need: server-filesystem limited to one folder (asked about
// the folder beside it, it cannot see it: the sandbox hides it, whatever the server itself allows), server-memory
// with its memory file's folder writable, server-everything under the safe preset, and server-memory started as
// `npx -y @modelcontextprotocol/server-memory@VERSION`: installed outside the sandbox first (the activity log says
// so), then run inside it without network. Linux with bwrap only. Every process is checked gone by its pid.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Host, type ServerConfig } from '../../src/host.js';
import { alive, BIN, ROOT, tempDir, text } from './helpers.js';

const dir = tempDir('mcpkit-sandbox-real-');
const allowed = join(dir, 'allowed');
const beside = join(dir, 'beside');
const memory = join(dir, 'memory');
const npxWork = join(dir, 'npx-work');
const MEMORY_VERSION = (
  JSON.parse(
    readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/package.json'), 'utf8'),
  ) as {
    version: string;
  }
).version;
let host: Host;
const pids: number[] = [];

function stdio(
  name: string,
  command: string,
  args: string[],
  sandbox: ServerConfig['sandbox'],
  extra: Partial<ServerConfig['transport']> = {},
): ServerConfig {
  return {
    name,
    transport: { type: 'stdio', command, args, env: {}, namedEnv: [], ...extra } as ServerConfig['transport'],
    disabled: false,
    trusted: false,
    source: { file: 'test', format: 'mcpkit' },
    ...(sandbox === undefined ? {} : { sandbox }),
  };
}

before(async () => {
  for (const d of [allowed, beside, memory, npxWork]) mkdirSync(d);
  writeFileSync(join(allowed, 'hello.txt'), 'hello from the allowed folder');
  writeFileSync(join(beside, 'secret.txt'), 'the folder beside it');
  host = new Host(
    [
      // The server is told it may use the whole temporary folder; the sandbox grants it one folder of it.
      stdio('filesystem', join(BIN, 'mcp-server-filesystem'), [dir], { write: [allowed] }),
      stdio(
        'memory',
        join(BIN, 'mcp-server-memory'),
        [],
        { write: [memory] },
        {
          env: { MEMORY_FILE_PATH: join(memory, 'memory.jsonl') },
        },
      ),
      stdio('everything', join(BIN, 'mcp-server-everything'), ['stdio'], true),
      stdio(
        'npx-memory',
        'npx',
        ['-y', `@modelcontextprotocol/server-memory@${MEMORY_VERSION}`],
        { write: [memory] },
        {
          cwd: npxWork,
          env: { MEMORY_FILE_PATH: join(memory, 'npx-memory.jsonl') },
        },
      ),
    ],
    { defaultApproval: 'allow', connectTimeoutMs: 120_000 },
  );
  const states = await host.start();
  assert.deepEqual(
    states.map((s) => [s.name, s.state, s.reason, s.sandbox?.sandboxed]),
    [
      ['filesystem', 'ready', undefined, true],
      ['memory', 'ready', undefined, true],
      ['everything', 'ready', undefined, true],
      ['npx-memory', 'ready', undefined, true],
    ],
    JSON.stringify(states, null, 1),
  );
  for (const s of states) pids.push(host.pidOf(s.name) as number);
});

after(async () => {
  await host?.close();
  for (const pid of pids) assert.equal(alive(pid), false, `process ${pid} is gone`);
  rmSync(dir, { recursive: true, force: true });
});

test('server-filesystem: its granted folder works; the folder beside it cannot be seen even when asked', async () => {
  assert.equal(
    text(await host.callTool('filesystem__read_text_file', { path: join(allowed, 'hello.txt') })),
    'hello from the allowed folder',
  );
  await host.callTool('filesystem__write_file', { path: join(allowed, 'new.txt'), content: 'written' });
  assert.equal(readFileSync(join(allowed, 'new.txt'), 'utf8'), 'written');
  const listing = text(await host.callTool('filesystem__list_directory', { path: dir }));
  assert.match(listing, /\[DIR\] allowed/);
  assert.doesNotMatch(listing, /beside|memory/);
  const read = await host.callTool('filesystem__read_text_file', { path: join(beside, 'secret.txt') });
  assert.equal(read.isError, true);
  assert.doesNotMatch(text(read), /the folder beside it/);
});

test('server-memory: its memory file is written where it was granted', async () => {
  await host.callTool('memory__create_entities', {
    entities: [{ name: 'ada', entityType: 'person', observations: ['sandboxed'] }],
  });
  assert.match(readFileSync(join(memory, 'memory.jsonl'), 'utf8'), /"name":"ada"/);
});

test('server-everything: the safe preset is enough', async () => {
  assert.match(text(await host.callTool('everything__echo', { message: 'hi' })), /hi/);
  assert.equal(host.server('everything')?.sandbox?.network, 'none');
});

test('npx: the package installed outside the sandbox first, visibly; run inside without network or npm', async () => {
  const prepare = host.log
    .entries()
    .filter((e) => e.kind === 'sandbox' && e.server === 'npx-memory' && e.name === 'prepare')
    .map((e) => e.summary ?? '');
  assert.match(
    prepare[0] ?? '',
    /^installing @modelcontextprotocol\/server-memory@[\d.]+ with npm before the sandboxed start/,
  );
  assert.match(prepare[1] ?? '', /^installed: the sandbox runs .*mcp-server-memory$/);
  const result = await host.callTool('npx-memory__create_entities', {
    entities: [{ name: 'bob', entityType: 'person', observations: [] }],
  });
  assert.equal(result.isError, undefined, text(result));
  assert.match(readFileSync(join(memory, 'npx-memory.jsonl'), 'utf8'), /"name":"bob"/);
  const start = host.log
    .entries()
    .find((e) => e.kind === 'sandbox' && e.server === 'npx-memory' && e.name === 'start');
  assert.match(start?.summary ?? '', /^sandboxed: network none/);
});
