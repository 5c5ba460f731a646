// The sandbox as a person meets it through the `mcpkit` command: `config list` shows each server's sandbox, a target
// command runs a configured sandboxed server sandboxed (and says so), `--sandbox` sandboxes a command after `--`,
// `chat` shows each server's sandbox in its start-up status, and what cannot be is refused with a clear message:
// bwrap missing (naming the package), a grant that is relative, missing, `/` or the home folder.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type StandIn, startModelServer } from '../host/fixtures/model-server.js';
import { alive } from '../host/helpers.js';
import { mcpkit, ROOT } from './helpers.js';

const BIN = join(ROOT, 'node_modules', '.bin');
const HOSTILE = join(ROOT, 'dist', 'test', 'host', 'fixtures', 'hostile-server.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-cli-sandbox-'));
const memoryDir = join(dir, 'memory');
const config = join(dir, 'servers.mcpkit.json');
let standIn: StandIn;

function write(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(content, null, 2));
  return file;
}

/** Control groups of the sandbox left behind by a process that has exited (where the host could make them). */
function deadCgroups(): string[] {
  const out: string[] = [];
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n')) {
    const [, controllers = '', path = '/'] = line.split(':');
    const roots =
      controllers === ''
        ? ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']
        : controllers.split(',').map((c) => `/sys/fs/cgroup/${c}`);
    for (const root of roots) {
      let names: string[];
      try {
        names = readdirSync(join(root, path));
      } catch {
        continue; // Not mounted there.
      }
      for (const name of names) {
        const pid = /^mcpkit-sandbox-(\d+)-\d+$/.exec(name)?.[1];
        if (pid !== undefined && !alive(Number(pid))) out.push(join(root, path, name));
      }
    }
  }
  return out;
}

before(async () => {
  mkdirSync(memoryDir);
  write('servers.mcpkit.json', {
    host: { sandbox: true },
    servers: {
      memory: {
        command: join(BIN, 'mcp-server-memory'),
        env: { MEMORY_FILE_PATH: join(memoryDir, 'memory.jsonl') },
        sandbox: { write: [memoryDir] },
      },
      hostile: { command: process.execPath, args: [HOSTILE] },
      open: { command: process.execPath, args: [HOSTILE], sandbox: false },
      web: { url: 'http://127.0.0.1:9/mcp' },
    },
  });
  standIn = await startModelServer();
});

after(async () => {
  await standIn.close();
  // Every command of this file has exited: none left a control group of its sandbox behind.
  assert.deepEqual(deadCgroups(), []);
});

test('config list: the SANDBOX column (own setting, the host default, off, - for a URL) and in JSON', async () => {
  const r = await mcpkit(['config', 'list', '--config', config]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /COMMAND \/ URL\s+SANDBOX/);
  assert.match(r.stdout, new RegExp(`memory .*mcp-server-memory\\s+safe preset \\+ write ${memoryDir}\\n`));
  // Rows by name and their last column: the command column is cut at 80 characters, and node's path may be long.
  assert.match(r.stdout, /^hostile .*\s{2}default: safe preset$/m);
  assert.match(r.stdout, /^open .*\s{2}off$/m);
  assert.match(r.stdout, /web .*http:\/\/127\.0\.0\.1:9\/mcp\s+-/);
  const j = await mcpkit(['config', 'list', '--config', config, '--format', 'json']);
  const doc = JSON.parse(j.stdout) as { servers: { name: string; sandbox: string }[] };
  assert.deepEqual(
    doc.servers.map((s) => [s.name, s.sandbox]),
    [
      ['memory', `safe preset + write ${memoryDir}`],
      ['hostile', 'default: safe preset'],
      ['open', 'off'],
      ['web', '-'],
    ],
  );
});

test('a target command runs a configured sandboxed server sandboxed, and says so', async () => {
  const r = await mcpkit([
    'call',
    'memory',
    'create_entities',
    '--config',
    config,
    '--args-json',
    JSON.stringify({ entities: [{ name: 'ada', entityType: 'person', observations: ['wrote notes'] }] }),
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`sandboxed: network none; write ${memoryDir}`));
  assert.match(readFileSync(join(memoryDir, 'memory.jsonl'), 'utf8'), /"name":"ada"/);
  // Under the host default: its home folder is empty.
  const home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.npmrc'), '//registry.npmjs.org/:_authToken=PLANTED');
  const read = await mcpkit(
    ['call', 'hostile', 'read_file', `path=${join(home, '.npmrc')}`, '--config', config],
    {
      env: { HOME: home },
    },
  );
  assert.equal(read.code, 0, read.stderr);
  assert.doesNotMatch(read.stdout, /PLANTED/);
  assert.match(read.stdout, /ENOENT/);
  assert.match(read.stderr, /sandbox: a hidden path was not found/);
  // The run's own files (the sandbox's exit status) are gone once the command has exited.
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const again = await mcpkit(['tools', 'hostile', '--config', config], { env: { TMPDIR: tmp } });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(readdirSync(tmp), []);
  const open = await mcpkit(['call', 'open', 'whoami', '--config', config]);
  assert.equal(open.code, 0, open.stderr);
  assert.doesNotMatch(open.stderr, /sandboxed/);
});

test('--sandbox runs a command after -- sandboxed', async () => {
  const r = await mcpkit([
    'call',
    'connect',
    'host=192.0.2.1',
    'port=443',
    '--sandbox',
    '--',
    process.execPath,
    HOSTILE,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /ENETUNREACH/);
  assert.match(r.stderr, /sandboxed: network none; memory 1024 MB; 256 processes/);
  const plain = await mcpkit(['call', 'whoami', '--', process.execPath, HOSTILE]);
  assert.doesNotMatch(plain.stderr, /sandboxed/);
});

test('chat: the start-up status says how each server runs; --sandbox sandboxes every stdio server', async () => {
  const plain = write('plain.json', {
    mcpServers: {
      notes: { command: process.execPath, args: [HOSTILE] },
      mine: { command: process.execPath, args: [HOSTILE] },
    },
  });
  const run = await mcpkit(['chat', '--config', plain, '--model', 'openai:gpt-4o', '--sandbox'], {
    env: { OPENAI_BASE_URL: standIn.openaiBase, OPENAI_API_KEY: '' },
    input: '/servers\n',
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /✓ notes: ready, \d+ tools\n {2}sandboxed: network none; memory 1024 MB; 256 processes/,
  );
  assert.match(run.stderr, /mine: ready \(sandboxed: network none/);
  const mixed = await mcpkit(['chat', '--config', config, '--model', 'openai:gpt-4o'], {
    env: { OPENAI_BASE_URL: standIn.openaiBase, OPENAI_API_KEY: '' },
    input: '',
  });
  assert.equal(mixed.code, 0, mixed.stderr);
  assert.match(
    mixed.stderr,
    new RegExp(`✓ memory: ready, \\d+ tools\\n {2}sandboxed: network none; write ${memoryDir}`),
  );
  assert.match(mixed.stderr, /✓ open: ready, \d+ tools\n {2}not sandboxed \(runs with your full rights\)/);
});

test('bwrap missing: the server does not start (exit 2), the message names the package; unsandboxed ones still run', async () => {
  const bin = join(dir, 'bin-without-bwrap');
  mkdirSync(bin);
  for (const tool of ['sh', 'prlimit']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
  const r = await mcpkit(['tools', 'memory', '--config', config], { env: { PATH: bin } });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /bwrap is not installed \(not found on PATH\): install the bubblewrap package/);
  const open = await mcpkit(['tools', 'open', '--config', config], { env: { PATH: bin } });
  assert.equal(open.code, 0, open.stderr);
});

test('bad grants are refused naming the file, the server and the field', async () => {
  const cases: [unknown, RegExp][] = [
    [{ read: ['relative/notes'] }, /sandbox\.read\[0\].*"relative\/notes" is relative/],
    [{ write: [join(dir, 'missing')] }, /sandbox\.write\[0\].*does not exist/],
    [{ read: ['/'] }, /sandbox\.read\[0\].*the whole file system: that undoes the sandbox/],
    [{ write: ['~'] }, /sandbox\.write\[0\].*your home folder: that undoes the sandbox/],
    [{ reed: [dir] }, /sandbox\.reed.*unknown field \(expected one of: network, read, write/],
    [{ network: ['https://example.com/api'] }, /sandbox\.network\[0\].*not a host/],
    [{ memoryMb: 0 }, /sandbox\.memoryMb.*positive whole number/],
  ];
  for (const [sandbox, message] of cases) {
    const file = write('bad.mcpkit.json', {
      servers: { s: { command: process.execPath, args: [HOSTILE], sandbox } },
    });
    const r = await mcpkit(['tools', 's', '--config', file]);
    assert.equal(r.code, 1, `${JSON.stringify(sandbox)}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.match(r.stderr, message);
  }
  const forced = write('forced.mcpkit.json', {
    servers: { s: { command: process.execPath, args: [HOSTILE], sandbox: { read: ['/'], force: true } } },
  });
  const ok = await mcpkit(['call', 's', 'whoami', '--config', forced]);
  assert.equal(ok.code, 0, ok.stderr);
  const url = write('url.mcpkit.json', { servers: { s: { url: 'http://127.0.0.1:9/mcp', sandbox: true } } });
  const r = await mcpkit(['tools', 's', '--config', url]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /a sandbox applies to a server the host starts \(stdio\), not to one reached by URL/,
  );
});

test('another host’s server sandboxed by an overlay in mcpkit’s own config file: listed so, and run so', async () => {
  const home = join(dir, 'overlay-home');
  const configHome = join(home, '.config');
  mkdirSync(join(configHome, 'mcpkit'), { recursive: true });
  mkdirSync(join(home, '.cursor'));
  writeFileSync(
    join(home, '.cursor', 'mcp.json'),
    JSON.stringify({ mcpServers: { cursed: { command: process.execPath, args: [HOSTILE] } } }),
  );
  writeFileSync(
    join(configHome, 'mcpkit', 'mcpkit.json'),
    JSON.stringify({ servers: { cursed: { sandbox: true } } }),
  );
  const env = { HOME: home, XDG_CONFIG_HOME: configHome };
  const list = await mcpkit(['config', 'list'], { env, cwd: dir });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^cursed\s+Cursor\s+user\s+yours\s+stdio\s+.*\s{2}safe preset$/m);
  assert.match(
    list.stdout,
    /cursed\s+mcpkit\s+user\s+yours\s+overlay\s+\(settings for the server of that name above\)\s+safe preset/,
  );
  const run = await mcpkit(['call', 'cursed', 'connect', 'host=192.0.2.1', 'port=443'], { env, cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /ENETUNREACH/);
  assert.match(run.stderr, /sandboxed: network none/);
});
