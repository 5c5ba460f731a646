// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config files spell variables as ${…} literally
// The host against real servers: the reference servers from npm (everything, filesystem, memory), a server written
// with the official SDK, and our example server over stdio and HTTP, each loaded from a config file of another
// format. Every process is checked gone by its pid after close().
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createEverythingServer } from '../../examples/everything/everything.js';
import { Host } from '../../src/host.js';
import { type RunningServer, serve } from '../../src/node.js';
import { alive, BIN, EXAMPLE_SERVER, OFFICIAL_SERVER, tempDir, text, writeConfig } from './helpers.js';

const dir = tempDir('mcpkit-host-real-');
let http: RunningServer;
let host: Host;
const pids: number[] = [];

before(async () => {
  http = await serve(createEverythingServer(), { port: 0, host: '127.0.0.1' });
  writeFileSync(join(dir, 'hello.txt'), 'hello from the filesystem server');
  const desktop = writeConfig(dir, 'desktop/claude_desktop_config.json', {
    mcpServers: {
      everything: { command: join(BIN, 'mcp-server-everything'), args: ['stdio'] },
      memory: {
        command: join(BIN, 'mcp-server-memory'),
        env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
      },
    },
  });
  const code = writeConfig(dir, 'ws/.mcp.json', {
    mcpServers: {
      filesystem: { type: 'stdio', command: join(BIN, 'mcp-server-filesystem'), args: ['${FS_ROOT}'] },
      'example-http': { type: 'http', url: '${EXAMPLE_URL}' },
    },
  });
  const vscode = writeConfig(dir, 'ws/.vscode/mcp.json', {
    inputs: [{ type: 'promptString', id: 'greeting', description: 'A greeting' }],
    servers: {
      official: {
        type: 'stdio',
        command: 'node',
        args: [OFFICIAL_SERVER],
        env: { GREETING: '${input:greeting}' },
      },
    },
  });
  const cursor = writeConfig(dir, 'ws/.cursor/mcp.json', {
    mcpServers: { 'example-stdio': { command: 'node', args: ['${workspaceFolder}/../example.js'] } },
  });
  writeFileSync(join(dir, 'example.js'), `import(${JSON.stringify(EXAMPLE_SERVER)});\n`);
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  const mcpkit = writeConfig(dir, 'ws/mcpkit.json', {
    host: { defaultApproval: 'allow' },
    servers: { 'example-sse': { type: 'sse', url: http.sseUrl, approval: { tools: { echo: 'deny' } } } },
  });
  host = await Host.load(
    [desktop, code, vscode, cursor, mcpkit],
    {
      workspaceFolder: join(dir, 'ws'),
      env: { FS_ROOT: dir, EXAMPLE_URL: http.url },
      input: async () => 'hello',
    },
    { connectTimeoutMs: 30_000 },
  );
  await host.start();
  for (const s of host.servers) {
    const pid = host.pidOf(s.name);
    if (pid !== undefined) pids.push(pid);
  }
});

after(async () => {
  await host?.close();
  await http?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('every server of five config formats is ready, stdio processes included', () => {
  assert.deepEqual(
    host.servers.map((s) => [s.name, s.state, s.reason]),
    [
      ['everything', 'ready', undefined],
      ['memory', 'ready', undefined],
      ['filesystem', 'ready', undefined],
      ['example-http', 'ready', undefined],
      ['official', 'ready', undefined],
      ['example-stdio', 'ready', undefined],
      ['example-sse', 'ready', undefined],
    ],
  );
  assert.equal(pids.length, 5, 'five stdio servers');
});

test('one registry: qualified names valid for model APIs, from every server', () => {
  const names = host.tools().map((t) => t.name);
  for (const name of names) assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/);
  for (const expected of [
    'everything__echo',
    'memory__read_graph',
    'filesystem__read_text_file',
    'official__echo',
    'example-stdio__echo',
    'example-http__echo',
    'example-sse__echo',
  ])
    assert.ok(names.includes(expected), `${expected} in ${names.join(' ')}`);
  assert.ok(host.prompts().some((p) => p.name === 'everything__simple-prompt'));
});

test('calls route to the owning server (the default policy allows)', async () => {
  assert.equal(text(await host.callTool('everything__echo', { message: 'hi' })), 'Echo: hi');
  assert.equal(text(await host.callTool('official__echo', { text: 'x' })), 'echo: x');
  assert.equal(text(await host.callTool('example-stdio__echo', { text: 'a' })), 'echo: a');
  assert.equal(text(await host.callTool('example-http__echo', { text: 'b' })), 'echo: b');
  const read = await host.callTool('filesystem__read_text_file', { path: join(dir, 'hello.txt') });
  assert.equal(text(read), 'hello from the filesystem server');
  await host.callTool('memory__create_entities', {
    entities: [{ name: 'mcpkit', entityType: 'project', observations: ['hosts servers'] }],
  });
  const graph = await host.callTool('memory__read_graph', {});
  assert.match(text(graph), /hosts servers/);
});

test('a tool the mcpkit config denies is a tool result, logged, never an exception', async () => {
  const denied = await host.callTool('example-sse__echo', { text: 'no' });
  assert.equal(denied.isError, true);
  assert.match(text(denied), /approval policy denies/);
  const entries = host.log.entries().filter((e) => e.name === 'example-sse__echo');
  assert.deepEqual(
    entries.map((e) => [e.kind, e.outcome, e.approval]),
    [
      ['approval', 'denied', 'policy'],
      ['tool', 'denied', 'policy'],
    ],
  );
});

test('resources and prompts route to their servers', async () => {
  const resources = host.registry.resources();
  const first = resources.find((r) => r.server === 'everything');
  assert.ok(first, 'server-everything lists resources');
  const read = await host.readResource(first.resource.uri);
  assert.ok(read.contents.length > 0);
  const prompt = await host.getPrompt('everything__simple-prompt');
  assert.ok(prompt.messages.length > 0);
  const log = host.log.entries();
  assert.ok(log.some((e) => e.kind === 'resource' && e.server === 'everything' && e.outcome === 'ok'));
  assert.ok(
    log.some((e) => e.kind === 'prompt' && e.name === 'everything__simple-prompt' && e.outcome === 'ok'),
  );
});

test('close() stops every spawned server by its process tree', async () => {
  await host.close();
  assert.ok(host.servers.every((s) => s.state === 'stopped'));
  for (const pid of pids) assert.equal(alive(pid), false, `process ${pid} is gone`);
});
