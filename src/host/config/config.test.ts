// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config files spell variables as ${…} literally
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError } from './config-error.js';
import { parseEnvFile } from './env-file.js';
import { stripJsonc } from './jsonc.js';
import { detectFormat, loadConfig } from './load.js';
import { knownConfigLocations } from './locations.js';
import type { ServerConfig } from './types.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, content: unknown): string {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, typeof content === 'string' ? content : JSON.stringify(content));
  return full;
}

function stdio(server: ServerConfig | undefined) {
  assert.ok(server, 'server present');
  assert.equal(server.transport.type, 'stdio');
  if (server.transport.type !== 'stdio') throw new Error('not stdio');
  return server.transport;
}

async function refused(
  promise: Promise<unknown>,
  parts: { file?: string; server?: string; field?: string; text: RegExp },
) {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof ConfigError, `a ConfigError, got ${String(e)}`);
    assert.equal(e.code, 'CONFIG_INVALID');
    if (parts.file) assert.equal(e.file, parts.file);
    if (parts.server) assert.equal(e.server, parts.server);
    if (parts.field) assert.equal(e.field, parts.field);
    assert.match(e.message, parts.text);
    return true;
  });
}

test('Claude Desktop: mcpServers with command, args and env, nothing expanded', async () => {
  const file = write('desktop/claude_desktop_config.json', {
    globalShortcut: 'Ctrl+Space',
    mcpServers: {
      fs: { command: 'npx', args: ['-y', 'server-filesystem', '${HOME}'], env: { KEY: 'v', N: 3 } },
    },
  });
  const { servers } = await loadConfig(file, { env: { HOME: '/h' } });
  const t = stdio(servers[0]);
  assert.equal(t.command, 'npx');
  assert.deepEqual(t.args, ['-y', 'server-filesystem', '${HOME}']);
  assert.deepEqual(t.env, { KEY: 'v', N: '3' });
  assert.equal(servers[0]?.source.format, 'claude-desktop');
  // Desktop files have no `type` or `url`: a remote entry there is a mistake to name.
  const bad = write('desktop2/claude_desktop_config.json', { mcpServers: { r: { url: 'http://x' } } });
  await refused(loadConfig(bad), { file: bad, server: 'r', field: 'url', text: /unknown field/ });
});

test('Claude Code: type stdio/http/sse, ${VAR} and ${VAR:-default}, an unset variable is named', async () => {
  const file = write('proj/.mcp.json', {
    mcpServers: {
      local: {
        type: 'stdio',
        command: 'node',
        args: ['./s.js'],
        env: { DEBUG: '${DEBUG:-false}', K: '${KEY}' },
      },
      remote: { type: 'http', url: 'https://api.example.com/mcp', headers: { 'X-API-Key': '${KEY}' } },
      legacy: {
        type: 'sse',
        url: '${BASE:-https://b.example}/sse',
        headers: { Authorization: 'Bearer ${KEY}' },
      },
      untyped: { command: 'x' },
    },
  });
  const { servers } = await loadConfig(file, { env: { KEY: 'k1' } });
  assert.deepEqual(stdio(servers[0]).env, { DEBUG: 'false', K: 'k1' });
  assert.deepEqual(servers[1]?.transport, {
    type: 'http',
    url: 'https://api.example.com/mcp',
    headers: { 'X-API-Key': 'k1' },
  });
  assert.deepEqual(servers[2]?.transport, {
    type: 'sse',
    url: 'https://b.example/sse',
    headers: { Authorization: 'Bearer k1' },
  });
  assert.equal(stdio(servers[3]).command, 'x');
  await refused(loadConfig(file, { env: {} }), {
    file,
    server: 'local',
    field: 'env.K',
    text: /KEY is not set/,
  });
});

test('Claude Code ~/.claude.json: the project scope overrides the user scope', async () => {
  const file = write('home/.claude.json', {
    numStartups: 4,
    mcpServers: { a: { command: 'user-a' }, b: { command: 'user-b' } },
    projects: { '/work/p': { mcpServers: { a: { command: 'project-a' } } } },
  });
  const { servers } = await loadConfig(file, { workspaceFolder: '/work/p' });
  assert.deepEqual(
    servers.map((s) => [s.name, stdio(s).command]),
    [
      ['a', 'project-a'],
      ['b', 'user-b'],
    ],
  );
});

test('VS Code: servers and inputs (asked once through the callback), JSONC, envFile, ${workspaceFolder}', async () => {
  const ws = join(dir, 'vsws');
  write('vsws/.env', '# comment\nexport FROM_FILE=1\nAPI_KEY=overridden\nQUOTED="a b\\n"\n');
  const file = write(
    'vsws/.vscode/mcp.json',
    `{
      // secrets are asked for
      "inputs": [ { "type": "promptString", "id": "api-key", "description": "API key", "password": true } ],
      "servers": {
        "memory": { "type": "stdio", "command": "npx", "args": ["\${workspaceFolder}/data", "\${env:TERMX}"],
                    "env": { "API_KEY": "\${input:api-key}" }, "envFile": "\${workspaceFolder}/.env", },
        /* remote */
        "remote": { "type": "http", "url": "https://api.example.com/mcp",
                    "headers": { "Authorization": "Bearer \${input:api-key}" } },
      },
    }`,
  );
  const asked: string[] = [];
  const { servers } = await loadConfig(file, {
    workspaceFolder: ws,
    env: {},
    input: async (input) => {
      asked.push(`${input.id}:${input.description}:${input.password}`);
      return 'secret';
    },
  });
  const t = stdio(servers[0]);
  assert.deepEqual(t.args, [`${ws}/data`, '']);
  assert.deepEqual(t.env, { FROM_FILE: '1', API_KEY: 'secret', QUOTED: 'a b\n' });
  assert.deepEqual(t.namedEnv, ['API_KEY']);
  assert.deepEqual(servers[1]?.transport, {
    type: 'http',
    url: 'https://api.example.com/mcp',
    headers: { Authorization: 'Bearer secret' },
  });
  assert.deepEqual(asked, ['api-key:API key:true']);
  await refused(loadConfig(file, { workspaceFolder: ws }), {
    server: 'memory',
    field: 'env.API_KEY',
    text: /no input callback/,
  });
  const undeclared = write('vs2/.vscode/mcp.json', {
    servers: { s: { command: 'x', args: ['${input:nope}'] } },
  });
  await refused(loadConfig(undeclared, { input: async () => 'v' }), {
    field: 'args[0]',
    text: /not declared in "inputs"/,
  });
  const noWs = write('vs3/.vscode/mcp.json', { servers: { s: { command: '${workspaceFolder}/x' } } });
  await refused(loadConfig(noWs), { field: 'command', text: /no workspace folder/ });
});

test('Cursor: the project file merged over the user file, ${env:NAME} and ${userHome}', async () => {
  const user = write('cursorhome/.cursor/mcp.json', {
    mcpServers: {
      shared: { command: 'user' },
      mine: { url: 'https://m.example/mcp', headers: { A: '${env:TOKEN}' } },
    },
  });
  const project = write('cursorproj/.cursor/mcp.json', {
    mcpServers: { shared: { command: '${userHome}/bin/project', args: ['${workspaceFolderBasename}'] } },
  });
  const { servers, files } = await loadConfig([user, project], {
    userHome: '/home/u',
    workspaceFolder: '/w/cursorproj',
    env: { TOKEN: 't' },
  });
  assert.deepEqual(files, [user, project]);
  assert.equal(stdio(servers[0]).command, '/home/u/bin/project');
  assert.deepEqual(stdio(servers[0]).args, ['cursorproj']);
  assert.deepEqual(servers[1]?.transport, {
    type: 'http',
    url: 'https://m.example/mcp',
    headers: { A: 't' },
  });
});

test('mcpkit format: approval, trust, tool filters, timeouts and host settings', async () => {
  const file = write('m/mcpkit.json', {
    host: { separator: '-', defaultApproval: 'deny' },
    servers: {
      fs: {
        command: 'fs-server',
        trusted: true,
        approval: { default: 'ask', tools: { read_file: 'allow', delete: 'deny' } },
        allowedTools: ['read_file', 'delete'],
        disabledTools: ['x'],
        connectTimeoutMs: 5000,
        requestTimeoutMs: 1000,
        env: { NODE_OPTIONS: '${OPTS:---max-old-space-size=64}' },
      },
      web: { type: 'http', url: 'http://127.0.0.1:1/mcp', approval: 'allow', disabled: true },
    },
  });
  const { servers, settings } = await loadConfig(file, { env: {} });
  assert.deepEqual(settings, { separator: '-', defaultApproval: 'deny' });
  const fs = servers[0] as ServerConfig;
  assert.equal(fs.trusted, true);
  assert.deepEqual(fs.approval, { default: 'ask', tools: { read_file: 'allow', delete: 'deny' } });
  assert.deepEqual(fs.allowedTools, ['read_file', 'delete']);
  assert.deepEqual(fs.disabledTools, ['x']);
  assert.equal(fs.connectTimeoutMs, 5000);
  assert.equal(fs.requestTimeoutMs, 1000);
  assert.deepEqual(stdio(fs).env, { NODE_OPTIONS: '--max-old-space-size=64' });
  assert.deepEqual(servers[1]?.approval, { default: 'allow' });
  assert.equal(servers[1]?.disabled, true);
  const badMode = write('m2/mcpkit.json', {
    servers: { s: { command: 'x', approval: { tools: { t: 'maybe' } } } },
  });
  await refused(loadConfig(badMode), { server: 's', field: 'approval.tools.t', text: /allow, deny, ask/ });
  const badSep = write('m3/mcpkit.json', { host: { separator: '.' }, servers: {} });
  await refused(loadConfig(badSep), { field: 'host.separator', text: /characters/ });
});

test('mcpkit format: sandbox per server and host-wide, variables expanded, bad grants refused by field', async () => {
  const granted = write('sb/data/notes.txt', 'x').replace(/\/notes\.txt$/, '');
  const file = write('sb/mcpkit.json', {
    host: { sandbox: { network: ['${HOST_NAME}:443'] } },
    servers: {
      preset: { command: 'a', sandbox: true },
      grants: { command: 'b', sandbox: { read: ['${DATA}'], write: ['${userHome}/data'], memoryMb: 256 } },
      off: { command: 'c', sandbox: false },
      inherits: { command: 'd' },
    },
  });
  const { servers, settings } = await loadConfig(file, {
    env: { DATA: granted, HOST_NAME: 'api.example.com' },
    userHome: join(granted, '..'),
  });
  assert.deepEqual(settings.sandbox, { network: ['api.example.com:443'] });
  assert.deepEqual(
    servers.map((x) => x.sandbox),
    [true, { read: [granted], write: [granted], memoryMb: 256 }, false, undefined],
  );
  const bad = (name: string, sandbox: unknown) =>
    write(`sb-${name}/mcpkit.json`, { servers: { s: { command: 'x', sandbox } } });
  await refused(loadConfig(bad('rel', { read: ['data'] })), {
    server: 's',
    field: 'sandbox.read[0]',
    text: /relative/,
  });
  await refused(loadConfig(bad('unknown', { net: true })), {
    server: 's',
    field: 'sandbox.net',
    text: /unknown field/,
  });
  await refused(loadConfig(bad('root', { write: ['/'] })), {
    server: 's',
    field: 'sandbox.write[0]',
    text: /undoes the sandbox/,
  });
  await refused(loadConfig(bad('type', 'yes')), {
    server: 's',
    field: 'sandbox',
    text: /true, false or an object/,
  });
  const url = write('sb-url/mcpkit.json', {
    servers: { s: { url: 'http://127.0.0.1:1/mcp', sandbox: true } },
  });
  await refused(loadConfig(url), { server: 's', field: 'sandbox', text: /not to one reached by URL/ });
  const hostBad = write('sb-host/mcpkit.json', { host: { sandbox: { read: ['x'] } }, servers: {} });
  await refused(loadConfig(hostBad), { field: 'host.sandbox.read[0]', text: /relative/ });
  // Other formats have no sandbox field: it is an unknown field there, never silently ignored.
  const desktop = write('sb-desktop/.mcp.json', { mcpServers: { s: { command: 'x', sandbox: true } } });
  await refused(loadConfig(desktop), { server: 's', field: 'sandbox', text: /unknown field/ });
});

test('mcpkit overlays: an entry without command or url governs the server of that name in an earlier file', async () => {
  const desktop = write('ov/claude_desktop_config.json', {
    mcpServers: { files: { command: 'npx', args: ['-y', 'server-files'] }, other: { command: 'o' } },
  });
  const notes = write('ov/notes/n.txt', 'n').replace(/\/n\.txt$/, '');
  const overlay = write('ov/mcpkit.json', {
    servers: {
      files: { sandbox: { read: ['${DATA}'] }, approval: { default: 'deny' }, disabledTools: ['rm'] },
      other: { disabled: true },
    },
  });
  const { servers } = await loadConfig([desktop, overlay], { env: { DATA: notes } });
  const by = new Map(servers.map((x) => [x.name, x]));
  assert.deepEqual(by.get('files')?.sandbox, { read: [notes] });
  assert.deepEqual(by.get('files')?.approval, { default: 'deny' });
  assert.deepEqual(by.get('files')?.disabledTools, ['rm']);
  assert.deepEqual(stdio(by.get('files')).args, ['-y', 'server-files']);
  assert.equal(by.get('files')?.source.file, desktop);
  assert.equal(by.get('other')?.disabled, true);
  const orphan = write('ov2/mcpkit.json', { servers: { nobody: { sandbox: true } } });
  await refused(loadConfig([desktop, orphan]), {
    file: orphan,
    server: 'nobody',
    text: /no server "nobody" in the files read before this one/,
  });
  const starts = write('ov3/mcpkit.json', { servers: { files: { env: { A: '1' } } } });
  await refused(loadConfig([desktop, starts]), { server: 'files', field: 'env', text: /not how it starts/ });
});

test('broken files: syntax error with line and column, unknown field, missing command, wrong types', async () => {
  const syntax = write('b1/.mcp.json', '{\n  "mcpServers": {\n    "a": { "command": "x", }\n  }\n}');
  await refused(loadConfig(syntax), { file: syntax, text: /syntax error: .*line 3/ });
  const unknown = write('b2/.mcp.json', { mcpServers: { a: { comand: 'x' } } });
  await refused(loadConfig(unknown), { file: unknown, server: 'a', field: 'comand', text: /unknown field/ });
  const missing = write('b3/.mcp.json', { mcpServers: { a: { args: ['x'] } } });
  await refused(loadConfig(missing), {
    server: 'a',
    field: 'command',
    text: /missing: a stdio server needs the command/,
  });
  const badArgs = write('b4/.mcp.json', { mcpServers: { a: { command: 'x', args: 'y' } } });
  await refused(loadConfig(badArgs), { server: 'a', field: 'args', text: /array of strings/ });
  const badType = write('b5/.mcp.json', { mcpServers: { a: { type: 'websocket', url: 'ws://x' } } });
  await refused(loadConfig(badType), { server: 'a', field: 'type', text: /one of stdio, http, sse/ });
  const badUrl = write('b6/.mcp.json', { mcpServers: { a: { type: 'http', url: 'not a url' } } });
  await refused(loadConfig(badUrl), { server: 'a', field: 'url', text: /not a valid URL/ });
  const notObject = write('b7/.mcp.json', '[]');
  await refused(loadConfig(notObject), { file: notObject, text: /JSON object/ });
  const entryNotObject = write('b8/.mcp.json', { mcpServers: { a: 'npx x' } });
  await refused(loadConfig(entryNotObject), { server: 'a', text: /must be an object/ });
  await refused(loadConfig(join(dir, 'absent.json')), { text: /cannot read/ });
  const badEnvFile = write('b9/.vscode/mcp.json', {
    servers: { a: { command: 'x', envFile: 'missing.env' } },
  });
  await refused(loadConfig(badEnvFile, { workspaceFolder: join(dir, 'b9') }), {
    server: 'a',
    field: 'envFile',
    text: /cannot read/,
  });
});

test('format detection by name, then by content', () => {
  assert.equal(detectFormat('/a/claude_desktop_config.json', ''), 'claude-desktop');
  assert.equal(detectFormat('/a/.mcp.json', ''), 'claude-code');
  assert.equal(detectFormat('/a/.vscode/mcp.json', ''), 'vscode');
  assert.equal(detectFormat('/a/.cursor/mcp.json', ''), 'cursor');
  assert.equal(detectFormat('/a/mcpkit.json', ''), 'mcpkit');
  assert.equal(detectFormat('/a/x.json', '{"servers":{}}'), 'vscode');
  assert.equal(detectFormat('/a/x.json', '{"mcpServers":{}}'), 'claude-code');
  assert.throws(() => detectFormat('/a/x.json', '{}'), ConfigError);
});

test('JSONC: comments and trailing commas go, strings with // and commas stay', () => {
  const text = '{ "a": "http://x, y", // c\n "b": [1, 2,], /* x */ }';
  assert.deepEqual(JSON.parse(stripJsonc(text)), { a: 'http://x, y', b: [1, 2] });
});

test('dotenv: export, quotes, comments; bad lines are numbered', () => {
  assert.deepEqual(parseEnvFile('A=1 # c\nexport B=\'x # y\'\nC="q\\tz"\nbad line\n'), {
    env: { A: '1', B: 'x # y', C: 'q\tz' },
    badLines: [4],
  });
});

test('known locations per platform', () => {
  const mac = knownConfigLocations({
    platform: 'darwin',
    userHome: '/Users/u',
    env: {},
    workspaceFolder: '/p',
  });
  assert.equal(mac[0]?.path, '/Users/u/Library/Application Support/Claude/claude_desktop_config.json');
  assert.ok(mac.some((l) => l.path === '/p/.cursor/mcp.json' && l.scope === 'project'));
  const linux = knownConfigLocations({
    platform: 'linux',
    userHome: '/home/u',
    env: { XDG_CONFIG_HOME: '/x' },
  });
  assert.equal(linux[0]?.path, '/x/Claude/claude_desktop_config.json');
  assert.deepEqual(linux[4], {
    format: 'mcpkit',
    app: 'mcpkit',
    scope: 'user',
    path: '/x/mcpkit/mcpkit.json',
  });
  assert.equal(linux.length, 5);
  const win = knownConfigLocations({
    platform: 'win32',
    userHome: 'C:\\Users\\u',
    env: { APPDATA: 'C:\\AD' },
  });
  assert.match(win[0]?.path ?? '', /Claude/);
});
