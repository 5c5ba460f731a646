// The sandbox against a hostile stdio server (fixtures/hostile-server.ts) run by a Host: under the safe preset it
// cannot read a secret planted in the (temporary) home folder, write outside its grants, reach a loopback port or an
// outside address, run a fork bomb past the process limit or allocate past the memory limit; the host and a
// bystander server keep working, and the activity log says what happened. The same server with grants can do
// exactly what it was granted (a folder read, a folder written, one host through the filtering proxy, a CPU limit).
// Linux with bwrap only (the CI installs it). Every process is checked gone by its pid after close().
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ActivityEntry, Host } from '../../src/host.js';
import { alive, commandServer, ODD_SERVER, ROOT, tempDir, text } from './helpers.js';

const HOSTILE = join(ROOT, 'dist', 'test', 'host', 'fixtures', 'hostile-server.js');
const dir = tempDir('mcpkit-sandbox-test-');
const home = join(dir, 'home');
const grantedRead = join(dir, 'granted-read');
const grantedWrite = join(dir, 'granted-write');
const other = join(dir, 'other');
let loopback: Server;
let loopbackPort = 0;
let web: HttpServer;
let webPort = 0;
let otherWeb: HttpServer;
let otherWebPort = 0;
let host: Host;
const pids: number[] = [];
const realHome = process.env.HOME;

async function call(tool: string, args: Record<string, unknown> = {}): Promise<string> {
  return text(await host.callTool(tool, args));
}

function sandboxEntries(server: string): ActivityEntry[] {
  return host.log.entries().filter((e) => e.kind === 'sandbox' && e.server === server);
}

/** Waits (bounded) until the log holds a sandbox entry of `server` matching `test`. */
async function logged(
  server: string,
  match: (e: ActivityEntry) => boolean,
  what: string,
): Promise<ActivityEntry> {
  for (let i = 0; i < 100; i++) {
    const found = sandboxEntries(server).find(match);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`no sandbox entry for ${what}: ${JSON.stringify(sandboxEntries(server), null, 1)}`);
}

/** How many processes descend from `root` (read from /proc: parent ids). */
function descendants(root: number): number {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone between the listing and the read.
    }
  }
  let count = 0;
  for (const pid of parent.keys()) {
    let p: number | undefined = pid;
    for (let i = 0; i < 64 && p !== undefined && p > 1; i++) {
      p = parent.get(p);
      if (p === root) {
        count++;
        break;
      }
    }
  }
  return count;
}

before(async () => {
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PLANTED-SECRET-KEY');
  for (const d of [grantedRead, grantedWrite, join(grantedWrite, 'locked'), other]) mkdirSync(d);
  writeFileSync(join(grantedRead, 'notes.txt'), 'granted notes');
  writeFileSync(join(other, 'private.txt'), 'not granted');
  // The home folder the host (and the sandbox's rules) see: a temporary one with a planted secret.
  process.env.HOME = home;
  loopback = createServer((s) => s.end('hello from the host')).listen(0, '127.0.0.1');
  await new Promise((r) => loopback.once('listening', r));
  loopbackPort = (loopback.address() as { port: number }).port;
  web = createHttpServer((_req, res) => res.end('granted web')).listen(0, '127.0.0.1');
  await new Promise((r) => web.once('listening', r));
  webPort = (web.address() as { port: number }).port;
  otherWeb = createHttpServer((_req, res) => res.end('other web')).listen(0, '127.0.0.1');
  await new Promise((r) => otherWeb.once('listening', r));
  otherWebPort = (otherWeb.address() as { port: number }).port;
  host = new Host(
    [
      commandServer('hostile', process.execPath, [HOSTILE], { sandbox: true }),
      commandServer('granted', process.execPath, [HOSTILE], {
        sandbox: {
          read: [grantedRead, join(grantedWrite, 'locked')],
          write: [grantedWrite],
          network: [`127.0.0.1:${webPort}`],
          cpuSeconds: 2,
        },
      }),
      commandServer('bystander', process.execPath, [ODD_SERVER, '--name', 'bystander']),
    ],
    { defaultApproval: 'allow', restart: { baseDelayMs: 100, maxRestarts: 3 } },
  );
  const states = await host.start();
  assert.deepEqual(
    states.map((s) => [s.name, s.state, s.reason]),
    [
      ['hostile', 'ready', undefined],
      ['granted', 'ready', undefined],
      ['bystander', 'ready', undefined],
    ],
  );
  for (const s of states) pids.push(host.pidOf(s.name) as number);
});

after(async () => {
  await host?.close();
  process.env.HOME = realHome;
  loopback?.close();
  web?.close();
  otherWeb?.close();
  for (const pid of pids) assert.equal(alive(pid), false, `process ${pid} is gone`);
  rmSync(dir, { recursive: true, force: true });
});

test('the state of each server says whether it runs sandboxed and with what grants', () => {
  const [hostile, granted, bystander] = host.servers;
  assert.equal(hostile?.sandbox?.sandboxed, true);
  assert.equal(hostile?.sandbox?.network, 'none');
  assert.match(hostile?.sandbox?.summary ?? '', /^sandboxed: network none; memory 1024 MB; 256 processes$/);
  assert.deepEqual(granted?.sandbox?.read, [grantedRead, join(grantedWrite, 'locked')]);
  assert.deepEqual(granted?.sandbox?.write, [grantedWrite]);
  assert.deepEqual(granted?.sandbox?.network, [`127.0.0.1:${webPort}`]);
  assert.equal(bystander?.sandbox?.sandboxed, false);
  assert.ok(sandboxEntries('hostile').some((e) => e.name === 'start' && e.outcome === 'sandboxed'));
});

test('safe preset: the planted secret in the home folder cannot be read; the home folder is empty', async () => {
  assert.match(await call('hostile__read_file', { path: join(home, '.ssh', 'id_ed25519') }), /ENOENT/);
  assert.match(await call('hostile__whoami'), new RegExp(`"home":"${home}"`));
  assert.match(await call('hostile__read_file', { path: join(other, 'private.txt') }), /ENOENT/);
  await logged('hostile', (e) => e.name === 'file' && /hidden path/.test(e.summary ?? ''), 'the hidden path');
});

test('safe preset: writes outside its grants are refused, and nothing reaches the real folders', async () => {
  assert.match(await call('hostile__write_file', { path: '/etc/mcpkit-pwned' }), /EROFS/);
  assert.match(await call('hostile__write_file', { path: join(ROOT, 'pwned.txt') }), /EROFS/);
  // Its home folder and /tmp are its own, private and thrown away: a write there never reaches the real ones.
  assert.match(await call('hostile__write_file', { path: join(home, '.bashrc'), text: 'evil' }), /^wrote/);
  assert.equal(existsSync(join(home, '.bashrc')), false);
  assert.equal(existsSync('/etc/mcpkit-pwned'), false);
  assert.equal(existsSync(join(ROOT, 'pwned.txt')), false);
  await logged('hostile', (e) => e.name === 'file' && /read-only/.test(e.summary ?? ''), 'the refused write');
});

test('safe preset: no connection to the host’s loopback port nor to an outside address', async () => {
  assert.match(
    await call('hostile__connect', { host: '127.0.0.1', port: loopbackPort }),
    /ECONNREFUSED/,
    'its loopback is its own',
  );
  assert.match(await call('hostile__connect', { host: '192.0.2.1', port: 443 }), /ENETUNREACH/);
  assert.match(await call('hostile__connect', { host: 'example.com', port: 443 }), /EAI_AGAIN|ENOTFOUND/);
  await logged('hostile', (e) => e.name === 'network' && e.outcome === 'refused', 'the refused connection');
});

test('safe preset: a fork bomb stops at the process limit; the host and the other servers keep working', {
  timeout: 60_000,
}, async () => {
  const root = host.pidOf('hostile') as number;
  let most = 0;
  const sampler = setInterval(() => {
    most = Math.max(most, descendants(root));
  }, 50);
  const result = await call('hostile__fork_bomb', { seconds: 4 }).finally(() => clearInterval(sampler));
  assert.match(result, /^bomb ended after 4 s/);
  // The sandbox's processes (bwrap's own two, the server, the bomb) never passed its limit (256) and bwrap's.
  assert.ok(most > 50 && most <= 256 + 3, `the sandbox held ${most} processes at most`);
  assert.match(await call('bystander__echo', { text: 'still here' }), /bystander: still here/);
  assert.match(await call('hostile__whoami'), /"pid":/);
  await logged('hostile', (e) => e.name === 'processes' && e.outcome === 'refused', 'the refused forks');
});

/** Whether the server's sandbox started with a memory control group (the start entry of the activity log says). */
function memoryGroup(server: string): boolean {
  return sandboxEntries(server).some(
    (e) => e.name === 'start' && /\(control groups: [^)]*memory/.test(e.summary ?? ''),
  );
}

test('safe preset: allocating without bound stops at the memory limit', { timeout: 60_000 }, async () => {
  if (memoryGroup('hostile')) {
    // The sandbox's memory group stops it at the limit: the server is killed, logged, and restarted.
    const first = host.pidOf('hostile');
    const result = await host.callTool('hostile__allocate', { mb: 8192 });
    assert.equal(result.isError, true);
    await logged('hostile', (e) => e.name === 'memory' && e.outcome === 'stopped', 'the memory stop');
    for (let i = 0; i < 100 && host.server('hostile')?.state !== 'ready'; i++)
      await new Promise((r) => setTimeout(r, 100));
    const restarted = host.pidOf('hostile') as number;
    assert.notEqual(restarted, first);
    pids.push(restarted);
    assert.match(await call('hostile__whoami'), /"pid":/);
  } else {
    const result = await call('hostile__allocate', { mb: 8192 });
    const got = /after (\d+) MB failed/.exec(result);
    assert.ok(got, `allocation refused: ${result}`);
    assert.ok(Number(got[1]) < 1024, `stopped under 1024 MB, at ${got[1]} MB`);
    await logged('hostile', (e) => e.name === 'memory', 'the refused memory');
  }
  assert.match(await call('bystander__echo', { text: 'fine' }), /fine/);
});

test('safe preset: memory only reserved is not held against the limit where a memory group holds the sandbox', {
  timeout: 60_000,
}, async (t) => {
  if (!memoryGroup('hostile')) {
    t.skip('no writable memory control group here: the per-process RLIMIT_DATA counts reserved memory');
    return;
  }
  // 2 GB asked for and never touched, twice the sandbox's limit: RLIMIT_DATA would refuse it; the group counts use.
  assert.equal(await call('hostile__reserve', { mb: 2048 }), 'reserved 2048 MB');
});

test('with grants: reads its read grant only, writes its write grant only', async () => {
  assert.equal(
    await call('granted__read_file', { path: join(grantedRead, 'notes.txt') }),
    'read: granted notes',
  );
  assert.match(await call('granted__write_file', { path: join(grantedRead, 'x.txt') }), /EROFS/);
  assert.match(
    await call('granted__write_file', { path: join(grantedWrite, 'out.txt'), text: 'kept' }),
    /^wrote/,
  );
  assert.equal(readFileSync(join(grantedWrite, 'out.txt'), 'utf8'), 'kept');
  // A read grant inside a write grant stays read-only.
  assert.match(await call('granted__write_file', { path: join(grantedWrite, 'locked', 'x.txt') }), /EROFS/);
  assert.match(await call('granted__read_file', { path: join(other, 'private.txt') }), /ENOENT/);
  assert.match(await call('granted__read_file', { path: join(home, '.ssh', 'id_ed25519') }), /ENOENT/);
});

test('with a network grant: the granted host through the proxy, nothing else', async () => {
  assert.equal(await call('granted__proxy_get', { url: `http://127.0.0.1:${webPort}/` }), '200 granted web');
  assert.equal(await call('granted__proxy_connect', { host: '127.0.0.1', port: webPort }), 'CONNECT 200');
  assert.match(
    await call('granted__proxy_get', { url: `http://127.0.0.1:${otherWebPort}/` }),
    /^403 mcpkit sandbox: 127\.0\.0\.1:\d+ is not in this server's network grants/,
  );
  assert.equal(
    await call('granted__proxy_connect', { host: '127.0.0.1', port: otherWebPort }),
    'CONNECT 403',
  );
  // Around the proxy there is no way out: its loopback is its own.
  assert.match(await call('granted__connect', { host: '127.0.0.1', port: webPort }), /ECONNREFUSED/);
  await logged('granted', (e) => e.name === 'network' && e.outcome === 'allowed', 'the allowed connection');
  const refused = await logged(
    'granted',
    (e) =>
      e.name === 'network' &&
      e.outcome === 'refused' &&
      /not in this server's network grants/.test(e.summary ?? ''),
    'the refused host',
  );
  assert.match(refused.summary ?? '', new RegExp(`127\\.0\\.0\\.1:${otherWebPort}`));
});

test('with a CPU limit: a server spinning past it is stopped, logged, and restarted', {
  timeout: 60_000,
}, async () => {
  const first = host.pidOf('granted');
  const result = await host.callTool('granted__spin', { seconds: 6 });
  assert.equal(result.isError, true);
  await logged('granted', (e) => e.name === 'cpu' && e.outcome === 'stopped', 'the CPU stop');
  for (let i = 0; i < 100 && host.server('granted')?.state !== 'ready'; i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.equal(host.server('granted')?.state, 'ready');
  const restarted = host.pidOf('granted') as number;
  assert.notEqual(restarted, first);
  pids.push(restarted);
  assert.match(await call('granted__whoami'), /"pid":/);
});
