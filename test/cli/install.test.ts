// `mcpkit install` against temporary home folders: each host's format written, then read back with the host's own
// config reader (src/host/config); idempotence, the backup, --force, files kept as they were around the entry, and
// files that do not parse.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/host.js';
import { json } from './helpers.js';
import { place } from './install-place.js';

const CASES = [
  { app: 'claude-desktop', scope: 'user', flag: [] },
  { app: 'claude-code', scope: 'user', flag: [] },
  { app: 'claude-code', scope: 'project', flag: ['--scope', 'project'] },
  { app: 'vscode', scope: 'project', flag: [] },
  { app: 'vscode', scope: 'user', flag: ['--scope', 'user'] },
  { app: 'cursor', scope: 'user', flag: [] },
  { app: 'cursor', scope: 'project', flag: ['--scope', 'project'] },
] as const;

describe('mcpkit install writes each host format', { timeout: 120_000 }, () => {
  for (const { app, scope, flag } of CASES) {
    test(`${app} (${scope}): a command, read back by the host's reader`, async () => {
      const p = place();
      const r = await p.run([
        app,
        'demo',
        ...flag,
        '-e',
        'API_KEY=k1',
        '--',
        'node',
        'server.js',
        '--port',
        '1',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const file = p.where(app, scope);
      assert.match(r.stdout, new RegExp(`added "demo" in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.equal(existsSync(`${file}.bak`), false, 'a new file has nothing to back up');
      const loaded = await loadConfig(file, { userHome: p.home, workspaceFolder: p.project, env: {} });
      const server = loaded.servers.find((s) => s.name === 'demo');
      assert.ok(server, `demo in ${readFileSync(file, 'utf8')}`);
      assert.equal(server.source.format, app);
      assert.deepEqual(server.transport, {
        type: 'stdio',
        command: 'node',
        args: ['server.js', '--port', '1'],
        env: { API_KEY: 'k1' },
        namedEnv: ['API_KEY'],
      });
    });
  }

  for (const app of ['claude-code', 'vscode', 'cursor'] as const) {
    test(`${app}: a URL with a header, read back by the host's reader`, async () => {
      const p = place();
      const r = await p.run([app, 'remote', 'https://mcp.example.com/mcp', '--header', 'X-Team: blue']);
      assert.equal(r.code, 0, r.stderr);
      const file = p.where(app, app === 'vscode' ? 'project' : 'user');
      const loaded = await loadConfig(file, { userHome: p.home, workspaceFolder: p.project, env: {} });
      assert.deepEqual(loaded.servers[0]?.transport, {
        type: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { 'X-Team': 'blue' },
      });
    });
  }

  test('claude-desktop: a URL becomes the stdio bridge (its file holds only commands)', async () => {
    const p = place(''); // no mcpkit on PATH: this copy runs the bridge
    const r = await p.run(['claude-desktop', 'remote', 'https://mcp.example.com/mcp']);
    assert.equal(r.code, 0, r.stderr);
    const loaded = await loadConfig(p.where('claude-desktop', 'user'), { userHome: p.home, env: {} });
    const t = loaded.servers[0]?.transport;
    assert.equal(t?.type, 'stdio');
    assert.ok(t?.type === 'stdio');
    assert.equal(t.command, process.execPath);
    assert.deepEqual(t.args.slice(1), ['bridge', '--from-url', 'https://mcp.example.com/mcp', '--to-stdio']);
    assert.match(t.args[0] ?? '', /cli\.js$/);
  });
});

describe('mcpkit install: idempotent, backed up, refuses a different entry without --force', {
  timeout: 120_000,
}, () => {
  test('the same entry twice writes nothing the second time', async () => {
    const p = place();
    const args = ['cursor', 'demo', '--', 'node', 'a.js'];
    assert.equal((await p.run(args)).code, 0);
    const file = p.where('cursor', 'user');
    const before = readFileSync(file, 'utf8');
    const mtime = statSync(file).mtimeMs;
    const again = await p.run(args);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already in .* \(unchanged\)/);
    assert.equal(readFileSync(file, 'utf8'), before);
    assert.equal(statSync(file).mtimeMs, mtime);
    assert.equal(existsSync(`${file}.bak`), false);
  });

  test('an existing file keeps its other fields; the backup is the file as it was', async () => {
    const p = place();
    const file = p.where('claude-code', 'user');
    const original = `${JSON.stringify(
      {
        numStartups: 7,
        projects: { [p.project]: { mcpServers: { local: { command: 'x' } } } },
        mcpServers: { other: { type: 'stdio', command: 'other', args: [] } },
      },
      null,
      2,
    )}\n`;
    writeFileSync(file, original);
    const r = await p.run(['claude-code', 'demo', '--', 'node', 'a.js']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(`${file}.bak`, 'utf8'), original);
    const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    assert.equal(written.numStartups, 7);
    assert.deepEqual(Object.keys(written.mcpServers as object), ['other', 'demo']);
    const loaded = await loadConfig(file, { userHome: p.home, workspaceFolder: p.project, env: {} });
    assert.deepEqual(
      loaded.servers.map((s) => s.name),
      ['other', 'demo', 'local'],
    );
  });

  test('a different entry of that name: exit 1 and the file untouched; --force replaces it, with a backup', async () => {
    const p = place();
    assert.equal((await p.run(['cursor', 'demo', '--', 'node', 'a.js'])).code, 0);
    const file = p.where('cursor', 'user');
    const first = readFileSync(file, 'utf8');
    const refused = await p.run(['cursor', 'demo', '--', 'node', 'b.js']);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /a different server named "demo" is already configured \(--force replaces it\)/,
    );
    assert.equal(readFileSync(file, 'utf8'), first);
    const forced = await p.run(['cursor', 'demo', '--force', '--format', 'json', '--', 'node', 'b.js']);
    assert.equal(forced.code, 0, forced.stderr);
    const result = json<{ action: string; backup: string; file: string }>(forced);
    assert.equal(result.action, 'replaced');
    assert.equal(result.file, file);
    assert.equal(readFileSync(result.backup, 'utf8'), first);
    const loaded = await loadConfig(file, { userHome: p.home, env: {} });
    assert.deepEqual(loaded.servers[0]?.transport.type === 'stdio' && loaded.servers[0].transport.args, [
      'b.js',
    ]);
  });

  test("VS Code's JSONC (comments, trailing commas) is read; the note says comments are not kept", async () => {
    const p = place();
    const file = p.where('vscode', 'project');
    mkdirSync(join(p.project, '.vscode'));
    const original = '{\n  // my servers\n  "servers": {\n    "a": { "command": "a", },\n  },\n}\n';
    writeFileSync(file, original);
    const r = await p.run(['vscode', 'demo', '--', 'node', 'a.js']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /comments or trailing commas/);
    assert.equal(readFileSync(`${file}.bak`, 'utf8'), original);
    const loaded = await loadConfig(file, { userHome: p.home, workspaceFolder: p.project, env: {} });
    assert.deepEqual(
      loaded.servers.map((s) => s.name),
      ['a', 'demo'],
    );
  });
});

describe('mcpkit install: bad input', { timeout: 120_000 }, () => {
  test('a config file that does not parse: exit 1 naming the file, line and column; nothing written', async () => {
    const p = place();
    const file = p.where('claude-code', 'user');
    writeFileSync(file, '{\n  "mcpServers": {\n    "a": { "command": "x" }\n  \n');
    const r = await p.run(['claude-code', 'demo', '--', 'node', 'a.js']);
    assert.equal(r.code, 1);
    assert.ok(r.stderr.includes(file), r.stderr);
    assert.match(r.stderr, /syntax error: .*\(line \d+, column \d+\)/);
    assert.equal(readFileSync(file, 'utf8'), '{\n  "mcpServers": {\n    "a": { "command": "x" }\n  \n');
    assert.equal(existsSync(`${file}.bak`), false);
  });

  test('an unknown host, both a URL and a command, neither, a bad scope: exit 1 each', async () => {
    const p = place();
    const unknown = await p.run(['claude-destkop', 'demo', '--', 'node', 'a.js']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /did you mean "claude-desktop"/);
    for (const args of [
      ['cursor', 'demo', 'https://x.example/mcp', '--', 'node'],
      ['cursor', 'demo'],
      ['cursor', 'demo', '--scope', 'team', '--', 'node'],
      ['claude-desktop', 'demo', '--scope', 'project', '--', 'node'],
      ['cursor', 'demo', 'not-a-url'],
    ]) {
      const r = await p.run(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^error: /);
    }
    assert.equal(existsSync(join(p.home, '.cursor')), false, 'nothing was written');
  });
});
