// `mcpkit install` in folders it does not control: a `.bak` planted as a link to a file of the person's is replaced,
// never written through; a config file that is a link is written at its target (the link kept); names every
// JavaScript object has are refused; a Claude Desktop entry for a URL keeps header values out of its arguments (in
// its env, read by `mcpkit bridge --header-env`) and runs a command that lasts (`mcpkit` on PATH), and works end to
// end the way Claude Desktop starts it (the official SDK's stdio client) against a server that wants the header.
import assert from 'node:assert/strict';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { guardedServer } from './guarded-server.js';
import { json, MCPKIT, mcpkit } from './helpers.js';
import { place } from './install-place.js';

const cleanup: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

const mode = (file: string) => statSync(file).mode & 0o777;

describe('mcpkit install never writes through a link it did not make', { timeout: 120_000 }, () => {
  test('a .bak planted as a link to a file of the home folder: the file keeps its content and mode', async () => {
    const p = place();
    const precious = join(p.home, '.bashrc');
    writeFileSync(precious, 'export SECRET=keep-me\n', { mode: 0o600 });
    chmodSync(precious, 0o600);
    const file = p.where('vscode', 'project');
    mkdirSync(dirname(file));
    const original = '{\n  "servers": {}\n}\n';
    writeFileSync(file, original);
    chmodSync(file, 0o640);
    symlinkSync(precious, `${file}.bak`);
    const r = await p.run(['vscode', 'demo', '--', 'node', 'a.js']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(precious, 'utf8'), 'export SECRET=keep-me\n');
    assert.equal(mode(precious), 0o600);
    assert.equal(lstatSync(`${file}.bak`).isSymbolicLink(), false, 'the link was replaced by the backup');
    assert.equal(readFileSync(`${file}.bak`, 'utf8'), original);
    assert.equal(mode(`${file}.bak`), 0o640, "the backup has the original's mode");
    assert.equal(mode(file), 0o640);
    assert.match(readFileSync(file, 'utf8'), /"demo"/);
  });

  test('a config file that is a link: written at its target, the link kept, the mode kept', async () => {
    const p = place();
    const dotfile = join(p.home, 'dotfiles', 'cursor.json');
    mkdirSync(dirname(dotfile));
    writeFileSync(dotfile, '{"mcpServers": {"old": {"command": "old"}}}\n');
    chmodSync(dotfile, 0o600);
    const file = p.where('cursor', 'user');
    mkdirSync(dirname(file), { recursive: true });
    symlinkSync('../dotfiles/cursor.json', file);
    const r = await p.run(['cursor', 'demo', '--', 'node', 'a.js']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(lstatSync(file).isSymbolicLink(), true, 'the link stays a link');
    assert.equal(readlinkSync(file), '../dotfiles/cursor.json');
    const written = JSON.parse(readFileSync(dotfile, 'utf8')) as { mcpServers: Record<string, unknown> };
    assert.deepEqual(Object.keys(written.mcpServers), ['old', 'demo']);
    assert.equal(mode(dotfile), 0o600);
    assert.ok(r.stdout.includes(`(a link to ${realpathSync(dotfile)})`), r.stdout);
  });

  test('a config file linked to nothing, or to a device: refused, nothing created', async () => {
    const p = place();
    const file = p.where('cursor', 'user');
    mkdirSync(dirname(file), { recursive: true });
    const missing = join(p.home, 'not-there.json');
    symlinkSync(missing, file);
    const dangling = await p.run(['cursor', 'demo', '--', 'node', 'a.js']);
    assert.equal(dangling.code, 1);
    assert.match(dangling.stderr, /is a symbolic link to .*not-there\.json, which leads to no file/);
    assert.throws(() => statSync(missing), /ENOENT/);
    const project = p.where('cursor', 'project');
    mkdirSync(dirname(project), { recursive: true });
    symlinkSync('/dev/zero', project);
    const device = await p.run(['cursor', 'demo', '--scope', 'project', '--', 'node', 'a.js']);
    assert.equal(device.code, 1);
    assert.match(device.stderr, /\/dev\/zero is not a regular file/);
  });
});

describe('mcpkit install: server names', { timeout: 120_000 }, () => {
  test('__proto__, constructor and prototype are refused (exit 1), even with --force', async () => {
    const p = place();
    const file = p.where('cursor', 'user');
    assert.equal((await p.run(['cursor', 'keep', '--', 'node', 'a.js'])).code, 0);
    const before = readFileSync(file, 'utf8');
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const r = await p.run(['cursor', name, '--force', '--', 'node', 'a.js']);
      assert.equal(r.code, 1, `${name}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^error: "${name}" cannot be a server name`));
      assert.equal(readFileSync(file, 'utf8'), before, `${name}: the file is untouched`);
    }
  });

  test("a name an object inherits (toString) is a new server, not a conflict with Object's method", async () => {
    const p = place();
    const r = await p.run(['cursor', 'toString', '--', 'node', 'a.js']);
    assert.equal(r.code, 0, r.stderr);
    const written = JSON.parse(readFileSync(p.where('cursor', 'user'), 'utf8')) as {
      mcpServers: Record<string, unknown>;
    };
    assert.deepEqual(written.mcpServers, { toString: { command: 'node', args: ['a.js'] } });
  });
});

/** A folder with an executable `mcpkit` that runs the built CLI, as `npm install -g` puts one on PATH. */
function binFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bin-'));
  writeFileSync(join(dir, 'mcpkit'), `#!/bin/sh\nexec "${process.execPath}" "${MCPKIT}" "$@"\n`, {
    mode: 0o755,
  });
  return dir;
}

interface DesktopEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

function desktopEntry(file: string, name: string): DesktopEntry {
  const config = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, DesktopEntry> };
  const entry = config.mcpServers[name];
  assert.ok(entry, `${name} in ${JSON.stringify(config)}`);
  return entry;
}

describe('mcpkit install claude-desktop URL: the bridge entry', { timeout: 120_000 }, () => {
  test('mcpkit on PATH: the command is "mcpkit", the header value only in env; it works as Claude Desktop runs it', async () => {
    const token = 'SECRET-XYZ-123';
    const guarded = await guardedServer(token);
    cleanup.push(guarded.close);
    const url = guarded.url;
    const path = `${binFolder()}${delimiter}${dirname(process.execPath)}`;
    const p = place(path);
    const r = await p.run(['claude-desktop', 'remote', url, '--header', `Authorization: Bearer ${token}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /SECRET/);
    const entry = desktopEntry(p.where('claude-desktop', 'user'), 'remote');
    assert.equal(entry.command, 'mcpkit');
    assert.doesNotMatch(JSON.stringify(entry.args), /SECRET/, 'no secret in the arguments');
    assert.deepEqual(entry.args, [
      'bridge',
      '--from-url',
      url,
      '--to-stdio',
      '--header-env',
      'Authorization: MCPKIT_HEADER_AUTHORIZATION',
    ]);
    assert.deepEqual(entry.env, { MCPKIT_HEADER_AUTHORIZATION: `Bearer ${token}` });

    // Claude Desktop starts the entry with the SDK's stdio client: its default environment plus the entry's env.
    const client = new SdkClient({ name: 'claude-desktop-like', version: '1.0.0' });
    const transport = new SdkStdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...entry.env, PATH: path, HOME: p.home, XDG_CONFIG_HOME: join(p.home, '.config') },
      stderr: 'pipe',
    });
    await client.connect(transport);
    cleanup.push(() => client.close());
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    assert.deepEqual(result.content, [{ type: 'text', text: 'in with the header' }]);
    await client.close();

    // Without the variable, the bridge says which one is missing (and never gets past the guard).
    const missing = await mcpkit([...entry.args], { env: { PATH: path } });
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /--header-env Authorization: the environment variable MCPKIT_HEADER_AUTHORIZATION is not set/,
    );
  });

  test('mcpkit not on PATH: this copy, with a note on stderr saying how to make the entry last', async () => {
    const p = place(mkdtempSync(join(tmpdir(), 'mcpkit-empty-path-')));
    const r = await p.run([
      'claude-desktop',
      'remote',
      'https://mcp.example.com/mcp',
      '--header',
      'X-Api-Key: SECRET-KEY-9',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: mcpkit is not on PATH, so the entry runs this copy \(.*cli\.js/);
    assert.match(r.stderr, /npm install -g mcpkit/);
    const entry = desktopEntry(p.where('claude-desktop', 'user'), 'remote');
    assert.equal(entry.command, process.execPath);
    assert.equal(entry.args[0], realpathSync(MCPKIT));
    assert.doesNotMatch(JSON.stringify(entry.args), /SECRET/);
    assert.deepEqual(entry.env, { MCPKIT_HEADER_X_API_KEY: 'SECRET-KEY-9' });
    const printed = json<{ entry: DesktopEntry }>(
      await p.run([
        'claude-desktop',
        'remote',
        'https://mcp.example.com/mcp',
        '--header',
        'X-Api-Key: SECRET-KEY-9',
        '--format',
        'json',
      ]),
    );
    assert.doesNotMatch(JSON.stringify(printed), /SECRET/, '--format json redacts the env values');
  });
});
