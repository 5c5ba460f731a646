// The cluster bench (issue 14), not part of `npm run bench`: `npm run -s build && node dist/bench/cluster.js`.
// 1. Stateful sessions with JSON replies at 8 clients on one instance: stores in memory against stores on Redis,
//    rounds interleaved (target: Redis >= 0.7x memory).
// 2. nginx (round robin, no affinity) in front of one instance against nginx in front of three, on Redis.
// Each figure comes with the CPU every process used during the timed phase and the Redis commands per request
// (INFO commandstats). Writes bench/RESULTS-cluster.md with the load average.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import {
  freePort,
  NGINX,
  nginxConfig,
  REDIS_SERVER,
  redisArgs,
  waitForPort,
} from '../examples/cluster/topology.js';
import { alignedTable } from './lib/markdown.js';
import { cpuMs } from './lib/proc.js';
import { type CallTarget, drive } from './load/driver.js';
import { HttpLoad, HttpServerProcess } from './load/http.js';

const here = dirname(fileURLToPath(import.meta.url));
const SERVER = { command: process.execPath, args: [join(here, 'servers/mcpkit-cluster-http.js')] };
const CLIENTS = Number(process.env.CLUSTER_BENCH_CLIENTS ?? 8);
const ROUNDS = Number(process.env.CLUSTER_BENCH_ROUNDS ?? 3);
const WARMUP_MS = 2_000;
const MEASURE_MS = 5_000;

interface Figure {
  callsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  cpu: Record<string, number>;
  redisCommandsPerCall: number | undefined;
}

function percentile(sorted: Float64Array, p: number): number {
  return (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) / 1e6;
}

async function redisCalls(redis: Redis | undefined): Promise<number> {
  if (!redis) return 0;
  const info = await redis.info('commandstats');
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (m[1] !== 'info') total += Number(m[2]);
  return total;
}

/** Drives `origin` with CLIENTS sessions; CPU of `procs` (name → pid) over the timed phase, Redis commands per call. */
async function measure(
  origin: string,
  procs: Record<string, number>,
  redis: Redis | undefined,
): Promise<Figure> {
  const load = new HttpLoad(origin, 'session');
  await load.connect(CLIENTS);
  load.prepareEcho('hello world');
  // Every reply counted (warm-up included), to divide the Redis commands of the whole run by.
  let replies = 0;
  const counting: CallTarget = { send: (id) => load.send(id), onreply: () => {}, onfail: () => {} };
  load.onreply = (id) => {
    replies++;
    counting.onreply(id);
  };
  load.onfail = (e) => counting.onfail(e);
  const before: Record<string, number> = {};
  const cpu: Record<string, number> = {};
  const commandsBefore = await redisCalls(redis);
  const result = await drive(counting, {
    inFlight: CLIENTS,
    warmup: { ms: WARMUP_MS, maxCalls: 10_000_000 },
    measure: { ms: MEASURE_MS, maxCalls: 10_000_000 },
    stallMs: 10_000,
    firstId: 1,
    beforeMeasure: () => {
      for (const [name, pid] of Object.entries(procs)) before[name] = cpuMs(pid);
    },
    afterMeasure: () => {
      for (const [name, pid] of Object.entries(procs)) cpu[name] = cpuMs(pid) - (before[name] ?? 0);
    },
  });
  const commands = (await redisCalls(redis)) - commandsBefore;
  await load.close();
  const sorted = Float64Array.from(result.latenciesNs).sort();
  return {
    callsPerSec: (result.calls * 1e9) / result.elapsedNs,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    cpu,
    redisCommandsPerCall: redis === undefined ? undefined : commands / replies,
  };
}

function spawnQuiet(command: string, args: string[]): ChildProcess {
  return spawn(command, args, { stdio: 'ignore' });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(child.pid, 'SIGTERM');
  await exited;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

function medianFigure(figures: Figure[]): Figure {
  const cpu: Record<string, number> = {};
  for (const name of Object.keys(figures[0]?.cpu ?? {}))
    cpu[name] = median(figures.map((f) => f.cpu[name] ?? 0));
  const commands = figures.map((f) => f.redisCommandsPerCall).filter((c): c is number => c !== undefined);
  return {
    callsPerSec: median(figures.map((f) => f.callsPerSec)),
    p50Ms: median(figures.map((f) => f.p50Ms)),
    p99Ms: median(figures.map((f) => f.p99Ms)),
    cpu,
    redisCommandsPerCall: commands.length === 0 ? undefined : median(commands),
  };
}

function row(name: string, f: Figure): string[] {
  const cpu = Object.entries(f.cpu)
    .map(([k, v]) => `${k} ${Math.round(v)}`)
    .join(', ');
  const cmds = f.redisCommandsPerCall === undefined ? '–' : f.redisCommandsPerCall.toFixed(3);
  return [name, String(Math.round(f.callsPerSec)), f.p50Ms.toFixed(2), f.p99Ms.toFixed(2), cpu, cmds];
}

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-cluster-bench-'));
const redisPort = await freePort();
const redisChild = spawnQuiet(REDIS_SERVER, redisArgs(redisPort, dir));
await waitForPort(redisPort);
const redisUrl = `redis://127.0.0.1:${redisPort}`;
const redis = new Redis(redisUrl);
const started: HttpServerProcess[] = [];
const loadBefore = loadavg();
const lines: string[] = [];
try {
  // 1. One instance: memory against Redis, interleaved.
  const memory = new HttpServerProcess(SERVER, 'memory');
  const onRedis = new HttpServerProcess(SERVER, `redis=${redisUrl}`);
  started.push(memory, onRedis);
  const memoryUrl = await memory.ready(15_000);
  const redisInstanceUrl = await onRedis.ready(15_000);
  const figures: { memory: Figure[]; redis: Figure[] } = { memory: [], redis: [] };
  for (let round = 0; round < ROUNDS; round++) {
    figures.memory.push(await measure(memoryUrl, { instance: memory.pid }, undefined));
    figures.redis.push(
      await measure(redisInstanceUrl, { instance: onRedis.pid, redis: redisChild.pid as number }, redis),
    );
  }
  const m = medianFigure(figures.memory);
  const r = medianFigure(figures.redis);
  await memory.stop();
  // 2. nginx in front of one instance, then of three.
  const more = [
    new HttpServerProcess(SERVER, `redis=${redisUrl}`),
    new HttpServerProcess(SERVER, `redis=${redisUrl}`),
  ];
  started.push(...more);
  const ports = [redisInstanceUrl, ...(await Promise.all(more.map((p) => p.ready(15_000))))].map((u) =>
    Number(new URL(u).port),
  );
  const behind: Record<string, Figure[]> = { one: [], three: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, upstreams] of [
      ['one', ports.slice(0, 1)],
      ['three', ports],
    ] as const) {
      const nginxPort = await freePort();
      const conf = join(dir, `nginx-${name}.conf`);
      writeFileSync(conf, nginxConfig(dir, nginxPort, upstreams));
      const nginx = spawnQuiet(NGINX, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')]);
      await waitForPort(nginxPort);
      const procs: Record<string, number> = { nginx: nginx.pid as number, redis: redisChild.pid as number };
      const all = [onRedis, ...more];
      upstreams.forEach((_, i) => {
        procs[`instance ${i + 1}`] = (all[i] as HttpServerProcess).pid;
      });
      behind[name]?.push(await measure(`http://127.0.0.1:${nginxPort}`, procs, redis));
      await stopChild(nginx);
    }
  }
  const one = medianFigure(behind.one ?? []);
  const three = medianFigure(behind.three ?? []);
  const loadAfter = loadavg();
  lines.push(
    '# Cluster bench (issue 14)',
    '',
    `\`node dist/bench/cluster.js\` at ${new Date().toISOString()}: ${CLIENTS} keep-alive clients, each with its own stateful session, \`tools/call echo\` (11 B) with JSON replies, closed loop; ${ROUNDS} rounds interleaved (${WARMUP_MS / 1000} s warm-up, ${MEASURE_MS / 1000} s timed), medians shown. Redis ${REDIS_SERVER} with appendonly and appendfsync always. Load average before ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' / ')} (1/5/15 min; this machine has 2 cores shared with other work). CPU: milliseconds each process used during the 5 s timed phase.`,
    '',
    // Aligned as biome's formatter aligns tables, so the file passes `npx biome ci .` as written.
    ...alignedTable(
      ['setup', 'calls/s', 'p50 ms', 'p99 ms', 'CPU ms (timed phase)', 'Redis commands per call'],
      [
        row('one instance, stores in memory', m),
        row('one instance, stores on Redis', r),
        row('nginx → one instance (Redis)', one),
        row('nginx → three instances (Redis)', three),
      ],
    ),
    '',
    `Redis-backed / in-memory on one instance: **${(r.callsPerSec / m.callsPerSec).toFixed(2)}×** (target ≥ 0.7×). Three instances / one instance behind nginx: **${(three.callsPerSec / one.callsPerSec).toFixed(2)}×**.`,
    '',
  );
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  if (!process.argv.includes('--no-write'))
    writeFileSync(resolve(here, '../../bench/RESULTS-cluster.md'), text);
} finally {
  for (const p of started) await p.stop().catch(() => undefined);
  redis.disconnect();
  await stopChild(redisChild);
  rmSync(dir, { recursive: true, force: true });
}
