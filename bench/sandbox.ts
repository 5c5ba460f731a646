// The sandbox's cost (issue 26), mcpkit only, Linux with bwrap:
//   node dist/bench/sandbox.js [--starts 20] [--calls 3000]
// 1. Start: our example server over stdio, spawn to the first byte of its `initialize` answer, plain against
//    sandboxed (the safe preset: the sandbox prepared, its control groups made, sh, bwrap and prlimit started),
//    interleaved one of each: wall-clock medians and minimums, and the CPU time used to the first answer (this
//    process and the server's process tree: less sensitive than wall time to what else the machine runs); and the
//    same through a Host (start to ready, lists included).
//    The floor: `node -e 0` bare against through the sandbox's command line (the sandbox's own fixed cost).
// 2. Tool calls: `tools/call echo` through a Host over stdio, one plain server and one sandboxed, sequential,
//    interleaved in blocks: medians of the blocks, the p99 of single calls, and each server's CPU per call (its
//    process tree, from /proc).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ServerSandbox } from '../src/host/sandbox/launch.js';
import { resolveSandbox } from '../src/host/sandbox/policy.js';
import { SandboxedStdioTransport } from '../src/host/sandbox/sandboxed-transport.js';
import { Host, type ServerConfig } from '../src/host.js';
import { defaultEnvironment, StdioClientTransport } from '../src/stdio.js';
import { ROOT } from './implementations.js';
import { cpuMs } from './lib/proc.js';

const { values } = parseArgs({
  options: { starts: { type: 'string', default: '20' }, calls: { type: 'string', default: '3000' } },
});
const STARTS = Math.max(3, Math.min(200, Number(values.starts)));
const CALLS = Math.max(200, Math.min(100_000, Number(values.calls)));
const EXAMPLE = join(ROOT, 'dist', 'examples', 'everything', 'server.js');
const PRESET = resolveSandbox(true, undefined);
if (!PRESET) throw new Error('no preset');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))] as number;
}

const INITIALIZE = {
  jsonrpc: '2.0' as const,
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
};

/**
 * Spawn (and for the sandbox, prepare) to the first message back, then closed: the wall time, and the CPU time used
 * by then (this process's, and the server's process tree's: sh, bwrap and the server for a sandboxed one).
 */
async function firstAnswer(
  transport: StdioClientTransport | SandboxedStdioTransport,
): Promise<[number, number]> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let answered!: () => void;
  const answer = new Promise<void>((resolve) => {
    answered = resolve;
  });
  await transport.start({
    onmessage: () => answered(),
    oninvalid: () => undefined,
    onerror: () => undefined,
    onclose: () => undefined,
  });
  await transport.send(INITIALIZE);
  await answer;
  const ms = performance.now() - t0;
  const own = process.cpuUsage(c0);
  const cpu = (own.user + own.system) / 1000 + treeCpuMs(transport.pid as number);
  await transport.close();
  return [ms, cpu];
}

async function startFigures(): Promise<void> {
  const options = { command: process.execPath, args: [EXAMPLE], env: {} };
  const sandbox = new ServerSandbox(options, PRESET as NonNullable<typeof PRESET>, () => undefined);
  const wall = { plain: [] as number[], boxed: [] as number[] };
  const cpu = { plain: [] as number[], boxed: [] as number[] };
  const open = {
    plain: () => new StdioClientTransport(options),
    boxed: () => new SandboxedStdioTransport(sandbox, options),
  };
  // One of each first, not counted: files and the bwrap binary in the page cache.
  await firstAnswer(open.plain());
  await firstAnswer(open.boxed());
  for (let i = 0; i < STARTS; i++) {
    for (const kind of ['plain', 'boxed'] as const) {
      const [ms, used] = await firstAnswer(open[kind]());
      wall[kind].push(ms);
      cpu[kind].push(used);
    }
  }
  const line = (label: string, xs: typeof wall, pick: (v: number[]) => number) => {
    const p = pick(xs.plain);
    const b = pick(xs.boxed);
    return `  ${label}: plain ${p.toFixed(1)} ms, sandboxed ${b.toFixed(1)} ms, the sandbox adds ${(b - p).toFixed(1)} ms`;
  };
  console.log(
    `start, spawn to the first byte of the initialize answer, ${STARTS} of each, interleaved (target: adds <= 50 ms):`,
  );
  console.log(line('wall, median', wall, median));
  console.log(line('wall, minimum', wall, (v) => Math.min(...v)));
  console.log(line('CPU used to the first answer (this process and the server tree), median', cpu, median));
}

/** CPU time of a process and every process below it, in milliseconds (from /proc). */
function treeCpuMs(root: number): number {
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
  let total = 0;
  for (const pid of parent.keys()) {
    let p: number | undefined = pid;
    for (let i = 0; i < 64 && p !== undefined && p !== root && p > 1; i++) p = parent.get(p);
    if (p === root) total += cpuMs(pid);
  }
  return total;
}

/**
 * The sandbox's own fixed cost, without a server's start in it: `node -e 0` run bare against run through the
 * sandbox's command line (the preparation, sh joining the control groups, bwrap, prlimit), interleaved.
 */
async function floorFigures(): Promise<void> {
  const sandbox = new ServerSandbox(
    { command: process.execPath, args: ['-e', '0'], env: {} },
    PRESET as NonNullable<typeof PRESET>,
    () => undefined,
  );
  const bare: number[] = [];
  const boxed: number[] = [];
  // The environment a server gets (this one's NODE_EXTRA_CA_CERTS, say, would cost the bare start alone).
  const env = { ...defaultEnvironment(), TMPDIR: '/tmp' };
  for (let i = 0; i < STARTS * 2; i++) {
    let t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore', env });
    bare.push(performance.now() - t0);
    t0 = performance.now();
    const start = await sandbox.start();
    const run = spawnSync(start.command, start.args, {
      stdio: 'ignore',
      env: { ...defaultEnvironment(), ...start.env },
      cwd: start.cwd,
    });
    boxed.push(performance.now() - t0);
    await start.close();
    if (run.status !== 0) throw new Error(`the sandboxed node -e 0 exited with ${run.status}`);
  }
  const row = (label: string, pick: (v: number[]) => number) =>
    `  ${label}: bare ${pick(bare).toFixed(1)} ms, sandboxed ${pick(boxed).toFixed(1)} ms, the sandbox adds ${(pick(boxed) - pick(bare)).toFixed(1)} ms`;
  console.log(`floor: node -e 0, ${bare.length} of each, interleaved:`);
  console.log(row('median', median));
  console.log(row('minimum', (v) => Math.min(...v)));
}

function server(name: string, sandbox: boolean): ServerConfig {
  return {
    name,
    transport: { type: 'stdio', command: process.execPath, args: [EXAMPLE], env: {}, namedEnv: [] },
    disabled: false,
    trusted: false,
    source: { file: 'bench', format: 'mcpkit' },
    sandbox,
  };
}

async function hostStartFigures(): Promise<void> {
  const plain: number[] = [];
  const boxed: number[] = [];
  for (let i = 0; i < Math.ceil(STARTS / 2); i++) {
    for (const [sandbox, into] of [
      [false, plain],
      [true, boxed],
    ] as const) {
      const host = new Host([server('one', sandbox)], { defaultApproval: 'allow' });
      const t0 = performance.now();
      const [state] = await host.start();
      into.push(performance.now() - t0);
      if (state?.state !== 'ready') throw new Error(`not ready: ${state?.reason}`);
      await host.close();
    }
  }
  const p = median(plain);
  const b = median(boxed);
  console.log(`host start to ready (handshake and lists), ${plain.length} of each, interleaved (medians):`);
  console.log(`  plain ${p.toFixed(1)} ms, sandboxed ${b.toFixed(1)} ms: +${(b - p).toFixed(1)} ms`);
}

async function callFigures(): Promise<void> {
  const host = new Host([server('plain', false), server('boxed', true)], { defaultApproval: 'allow' });
  const states = await host.start();
  if (states.some((s) => s.state !== 'ready')) throw new Error(JSON.stringify(states));
  const args = { text: 'x' };
  for (let i = 0; i < 500; i++) {
    await host.callTool('plain__echo', args);
    await host.callTool('boxed__echo', args);
  }
  const blocks: Record<'plain' | 'boxed', number[]> = { plain: [], boxed: [] };
  const singles: Record<'plain' | 'boxed', number[]> = { plain: [], boxed: [] };
  const pids = { plain: host.pidOf('plain') as number, boxed: host.pidOf('boxed') as number };
  const cpu0 = { plain: treeCpuMs(pids.plain), boxed: treeCpuMs(pids.boxed) };
  const BLOCK = 50;
  for (let done = 0; done < CALLS; done += BLOCK) {
    for (const name of ['plain', 'boxed'] as const) {
      const t0 = performance.now();
      for (let i = 0; i < BLOCK; i++) {
        const c0 = performance.now();
        await host.callTool(`${name}__echo`, args);
        singles[name].push((performance.now() - c0) * 1000);
      }
      blocks[name].push(((performance.now() - t0) * 1000) / BLOCK);
    }
  }
  const perCall = (kind: 'plain' | 'boxed') => ((treeCpuMs(pids[kind]) - cpu0[kind]) * 1000) / CALLS;
  const serverCpu = { plain: perCall('plain'), boxed: perCall('boxed') };
  await host.close();
  const p = median(blocks.plain);
  const b = median(blocks.boxed);
  console.log(`tool call through a host over stdio, ${CALLS} each, interleaved blocks of ${BLOCK}:`);
  console.log(
    `  plain ${p.toFixed(0)} us, sandboxed ${b.toFixed(0)} us per call (median of blocks; difference ${(b - p).toFixed(0)} us, ${((b / p - 1) * 100).toFixed(1)}%)`,
  );
  console.log(
    `  p99 of single calls: plain ${quantile(singles.plain, 0.99).toFixed(0)} us, sandboxed ${quantile(singles.boxed, 0.99).toFixed(0)} us`,
  );
  const spread = (xs: number[]) => `${quantile(xs, 0.25).toFixed(0)}–${quantile(xs, 0.75).toFixed(0)}`;
  console.log(
    `  block medians' interquartile range: plain ${spread(blocks.plain)} us, sandboxed ${spread(blocks.boxed)} us`,
  );
  console.log(
    `  the server's CPU per call (its process tree): plain ${serverCpu.plain.toFixed(0)} us, sandboxed ${serverCpu.boxed.toFixed(0)} us`,
  );
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average at start: ${load()}`);
await floorFigures();
await startFigures();
await hostStartFigures();
await callFigures();
console.log(`load average at the end: ${load()}`);
