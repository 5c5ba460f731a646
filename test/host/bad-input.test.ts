// The host with servers that misbehave, all in one host beside good ones: one that exits at start, one that hangs
// before initialize, one that prints garbage on stdout, one that floods tools/list_changed, twins with the same
// tool names, tool names no model API accepts, 1,000 tools, and a crash with restart. The others keep serving and
// the activity log records what happened.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Host, type ServerStatus } from '../../src/host.js';
import { alive, oddServer as odd, text, until } from './helpers.js';

let host: Host;
const states: ServerStatus[] = [];
const pids = new Set<number>();
let startMs = 0;

before(async () => {
  host = new Host(
    [
      odd('good'),
      odd('twin'),
      odd('exits', ['--exit-at-start']),
      odd('hangs', ['--hang'], { connectTimeoutMs: 1500 }),
      odd('garbage', ['--garbage']),
      odd('flood'),
      odd('odd-names', ['--odd-names']),
      odd('thousand', ['--tools', '1000']),
      odd('crashy'),
      odd('off', [], { disabled: true }),
    ],
    {
      defaultApproval: 'allow',
      restart: { maxRestarts: 2, baseDelayMs: 20, maxDelayMs: 100 },
      refreshDebounceMs: 50,
    },
  );
  host.on('state', (s) => {
    states.push(s);
    const pid = host.pidOf(s.name);
    if (pid !== undefined) pids.add(pid);
  });
  const t0 = Date.now();
  await host.start();
  startMs = Date.now() - t0;
  for (const s of host.servers) {
    const pid = host.pidOf(s.name);
    if (pid !== undefined) pids.add(pid);
  }
});

after(async () => {
  await host?.close();
});

test('the good servers are ready, the broken ones failed with their reason, none held the others', () => {
  const byName = Object.fromEntries(host.servers.map((s) => [s.name, s]));
  for (const name of ['good', 'twin', 'garbage', 'flood', 'odd-names', 'thousand', 'crashy'])
    assert.equal(byName[name]?.state, 'ready', `${name}: ${byName[name]?.reason}`);
  assert.equal(byName.off?.state, 'disabled');
  const exits = byName.exits as ServerStatus;
  assert.equal(exits.state, 'failed');
  assert.equal(exits.restarts, 2, 'restarted a bounded number of times');
  assert.match(exits.reason ?? '', /exited with code 3/);
  assert.match(exits.stderrTail ?? '', /the database is missing/);
  const hangs = byName.hangs as ServerStatus;
  assert.equal(hangs.state, 'failed');
  assert.match(hangs.reason ?? '', /not ready within 1500 ms/);
  // None waited for another: every server was started before any became ready or failed (a host that started them
  // one after another would log a ready or failed before the next one's start). How long it took is in bench/host.ts.
  const log = host.log.entries().filter((e) => e.kind === 'server');
  const firstSettled = log.findIndex((e) => e.outcome === 'ready' || e.outcome === 'failed');
  const lastStart = log.findLastIndex((e) => e.outcome === 'starting');
  assert.equal(
    log.filter((e) => e.outcome === 'starting').length,
    host.servers.length - 1,
    'one start each but the disabled one',
  );
  assert.ok(
    firstSettled === -1 || lastStart < firstSettled,
    `a server started only after another settled (started in ${startMs} ms)`,
  );
});

test('the log records each failure and restart', () => {
  const log = host.log.entries().filter((e) => e.kind === 'server');
  const of = (server: string) => log.filter((e) => e.server === server).map((e) => e.outcome);
  assert.deepEqual(
    of('exits').filter((o) => o !== 'warning'),
    ['starting', 'restarting', 'restarting', 'failed'],
  );
  assert.ok(of('hangs').includes('failed'));
  assert.ok(
    log.some(
      (e) => e.server === 'exits' && e.outcome === 'failed' && /database is missing/.test(e.summary ?? ''),
    ),
  );
});

test('two servers with the same tool names: both offered, each call reaches its own server', async () => {
  assert.equal(text(await host.callTool('good__echo', { text: 'x' })), 'good: x');
  assert.equal(text(await host.callTool('twin__echo', { text: 'y' })), 'twin: y');
});

test('a server that printed garbage on stdout before speaking MCP still serves', async () => {
  assert.equal(text(await host.callTool('garbage__echo', { text: 'z' })), 'garbage: z');
  assert.ok(
    host.log.entries().some((e) => e.server === 'garbage' && e.outcome === 'warning'),
    'the garbage is logged',
  );
});

test('tool names no model API accepts are qualified into valid, distinct names that still route', async () => {
  const mine = host.registry.tools().filter((t) => t.server === 'odd-names');
  for (const t of mine) assert.match(t.name, /^[a-zA-Z0-9_-]{1,64}$/);
  assert.equal(new Set(mine.map((t) => t.name)).size, mine.length);
  const weird = mine.find((t) => t.tool.name === 'files.read.v2');
  assert.ok(weird);
  assert.equal(text(await host.callTool(weird.name, {})), 'weird');
  const long = mine.find((t) => t.tool.name === 'x'.repeat(100));
  assert.ok(long && long.name.length === 64);
  assert.equal(text(await host.callTool(long.name, {})), 'long');
  const dotted = mine.find((t) => t.tool.name === 'a.b');
  const underscored = mine.find((t) => t.tool.name === 'a_b');
  assert.ok(dotted && underscored && dotted.name !== underscored.name);
  assert.equal(text(await host.callTool(dotted.name, {})), 'a.b');
  assert.equal(text(await host.callTool(underscored.name, {})), 'a_b');
});

test('a server with 1,000 tools is in the registry and callable', async () => {
  const count = host.registry.tools().filter((t) => t.server === 'thousand').length;
  assert.equal(count, 1000 + 8); // the thousand, and the odd server's own 8 tools
  assert.equal(text(await host.callTool('thousand__tool_999', {})), 'tool 999');
});

test('a flood of tools/list_changed costs a few refreshes, and the registry ends up current', async () => {
  const before = Number(text(await host.callTool('flood__list_count', {})));
  const changes: number[] = [];
  const stop = host.on('registry', (c) => {
    if (c.server === 'flood') changes.push(Date.now());
  });
  // 301 toggles: the tool `toggled` ends disabled.
  assert.equal(text(await host.callTool('flood__flood', { count: 301 })), 'sent 301');
  await until(() => !host.registry.tool('flood__toggled'), 'the registry to drop flood__toggled');
  await new Promise((r) => setTimeout(r, 300));
  stop();
  const lists = Number(text(await host.callTool('flood__list_count', {}))) - before;
  assert.ok(lists >= 1 && lists <= 20, `${lists} tools/list requests for 301 notifications`);
  assert.ok(changes.length === lists, `${changes.length} registry events`);
  assert.equal(host.registry.tool('flood__toggled'), undefined);
});

test('a crashed stdio server is restarted and serves again; calls meanwhile are tool results', async () => {
  const pid = host.pidOf('crashy');
  assert.ok(pid !== undefined);
  assert.equal(text(await host.callTool('crashy__crash', {})), 'crashing');
  await until(() => host.server('crashy')?.state !== 'ready', 'crashy to leave ready');
  const during = await host.callTool('crashy__echo', { text: 'a' });
  assert.equal(during.isError, true);
  await until(() => host.server('crashy')?.state === 'ready', 'crashy to be ready again');
  const next = host.pidOf('crashy');
  assert.ok(next !== undefined && next !== pid, 'a new process');
  pids.add(next);
  assert.equal(text(await host.callTool('crashy__echo', { text: 'b' })), 'crashy: b');
  assert.equal(host.server('crashy')?.restarts, 1);
  assert.ok(
    states.some((s) => s.name === 'crashy' && s.state === 'restarting' && /code 7/.test(s.reason ?? '')),
  );
  assert.ok(host.log.entries().some((e) => e.server === 'crashy' && e.outcome === 'restarting'));
  await until(() => !alive(pid), 'the crashed process to be gone');
});

test('an unknown tool is a tool result, logged', async () => {
  const result = await host.callTool('nobody__nothing', {});
  assert.equal(result.isError, true);
  assert.ok(host.log.entries().some((e) => e.name === 'nobody__nothing' && e.summary === 'unknown tool'));
});

test('close() stops every process the host started', async () => {
  await host.close();
  for (const pid of pids) await until(() => !alive(pid), `process ${pid} to be gone`, 5000);
});
