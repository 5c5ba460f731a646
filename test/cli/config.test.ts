// `mcpkit config list|show`: what the hosts' files have, secrets redacted (env and header values, URL passwords and
// token parameters, credential-looking arguments), as text and as JSON; a file that does not parse is exit 1 with
// the file and the position.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { json, mcpkit } from './helpers.js';

const SECRETS = [
  'sk-live-0123456789abcdefghij',
  'hunter2',
  'tok-abc-123',
  'p4ssw0rd',
  'ghp_abcdefghijklmnopqrstuvwx',
];

/** A home with Claude Desktop, Claude Code, Cursor and a VS Code project file holding secrets. */
function hosts() {
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-config-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.config', 'Claude'), { recursive: true });
  mkdirSync(join(home, '.cursor'), { recursive: true });
  mkdirSync(join(project, '.vscode'), { recursive: true });
  writeFileSync(
    join(home, '.config', 'Claude', 'claude_desktop_config.json'),
    JSON.stringify({
      mcpServers: {
        files: {
          command: 'npx',
          args: ['-y', 'server-files', '--key', SECRETS[0]],
          env: { API_KEY: SECRETS[1] },
        },
      },
    }),
  );
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({
      mcpServers: {
        github: { type: 'stdio', command: 'gh-mcp', env: { GITHUB_TOKEN: SECRETS[4], REGION: 'eu' } },
      },
    }),
  );
  writeFileSync(
    join(home, '.cursor', 'mcp.json'),
    JSON.stringify({
      mcpServers: { remote: { url: `https://user:${SECRETS[3]}@mcp.example.com/mcp?token=${SECRETS[2]}` } },
    }),
  );
  writeFileSync(
    join(project, '.vscode', 'mcp.json'),
    '{\n  // team servers\n  "servers": {\n    "remote": { "type": "http", "url": "https://team.example.com/mcp", "headers": { "Authorization": "Bearer abc.def" } },\n  },\n}\n',
  );
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  return { home, project, run: (args: string[]) => mcpkit(['config', ...args], { env, cwd: project }) };
}

function assertNoSecret(text: string): void {
  for (const s of [...SECRETS, 'abc.def']) assert.ok(!text.includes(s), `"${s}" leaked:\n${text}`);
}

describe('mcpkit config', { timeout: 120_000 }, () => {
  test('list: every host file, one row per server, nothing secret', async () => {
    const h = hosts();
    const r = await h.run(['list']);
    assert.equal(r.code, 0, r.stderr);
    assertNoSecret(r.stdout + r.stderr);
    for (const row of [
      /files\s+Claude Desktop\s+user\s+yours\s+stdio\s+npx -y server-files --key \[redacted\]/,
      /github\s+Claude Code\s+user\s+yours\s+stdio\s+gh-mcp/,
      /remote\s+Cursor\s+user\s+yours\s+http\s+https:\/\/user:redacted@mcp\.example\.com\/mcp\?token=redacted/,
      /remote\s+VS Code\s+project\s+not trusted\s+http\s+https:\/\/team\.example\.com\/mcp/,
    ])
      assert.match(r.stdout, row);
  });

  test('list --format json: one document, entries redacted', async () => {
    const h = hosts();
    const r = await h.run(['list', '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assertNoSecret(r.stdout);
    const doc = json<{
      files: string[];
      servers: { name: string; app: string; entry: Record<string, unknown> }[];
    }>(r);
    assert.equal(doc.files.length, 4);
    const github = doc.servers.find((s) => s.name === 'github');
    assert.deepEqual(github?.entry.env, { GITHUB_TOKEN: '[redacted]', REGION: '[redacted]' });
  });

  test('show: the entries of one name in every file, the variable names kept, their values hidden', async () => {
    const h = hosts();
    const r = await h.run(['show', 'remote']);
    assert.equal(r.code, 0, r.stderr);
    assertNoSecret(r.stdout + r.stderr);
    assert.match(r.stdout, /Cursor \(user\) .*\.cursor\/mcp\.json:/);
    assert.match(r.stdout, /VS Code \(project, not trusted\) .*\.vscode\/mcp\.json:/);
    assert.match(r.stdout, /"Authorization": "\[redacted\]"/);
    const files = await h.run(['show', 'files', '--format', 'json']);
    assertNoSecret(files.stdout);
    const [entry] = json<{ entry: { env: Record<string, string>; args: string[] } }[]>(files);
    assert.deepEqual(entry?.entry.env, { API_KEY: '[redacted]' });
    assert.deepEqual(entry?.entry.args, ['-y', 'server-files', '--key', '[redacted]']);
  });

  test('show with --config FILE reads that file only', async () => {
    const h = hosts();
    const r = await h.run(['show', 'github', '--config', join(h.home, '.claude.json')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /"command": "gh-mcp"/);
    assertNoSecret(r.stdout);
  });

  test('an unknown name: exit 1, the nearest name suggested', async () => {
    const h = hosts();
    const r = await h.run(['show', 'githb']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no server "githb".*did you mean "github"/);
  });

  test('a file that does not parse: exit 1 naming the file, line and column; the others still listed', async () => {
    const h = hosts();
    writeFileSync(
      join(h.project, '.mcp.json'),
      '{\n  "mcpServers": {\n    "x": { "command": "x" },,\n  }\n}\n',
    );
    const r = await h.run(['list']);
    assert.equal(r.code, 1);
    assert.ok(r.stderr.includes(join(h.project, '.mcp.json')), r.stderr);
    assert.match(r.stderr, /syntax error: .*\(line 3, column \d+\)/);
    assert.match(r.stdout, /github\s+Claude Code/);
    const given = await h.run(['list', '--config', join(h.project, '.mcp.json')]);
    assert.equal(given.code, 1);
    assert.match(given.stderr, /line 3, column/);
  });
});
