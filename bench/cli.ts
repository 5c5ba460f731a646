// The `mcpkit` command's start-up (issue 11), against the official Inspector's CLI doing the same:
//   node dist/bench/cli.js [--runs 15]
// Wall time of whole processes, from spawn to exit, each variant run in turn (interleaved, so a change of load
// hits them all alike), medians and 90th percentiles:
// - `node -e 0`: the floor, Node's own start;
// - `mcpkit --help` (target: within 100 ms of the floor) and the Inspector CLI's `--help`;
// - the example server's own cold start: spawned by this process, until its answer to `initialize`;
// - `mcpkit tools -- node server.js` (target: within 150 ms of the floor plus the server's cold start) and the
//   Inspector CLI's `node server.js --method tools/list`.
// Besides wall time, each command's CPU time (user + system of the process and the children it waited for, as
// bash's `times` reports them), which a loaded machine inflates far less than wall time.
// The Inspector CLI (@modelcontextprotocol/inspector-cli 1.0.3, installed on its own in tools/bench: this run installs
// it there first when it is not, `node tools/install.mjs bench`) reads its own
// package.json through a path it checks relative to the working directory, so it only runs from a directory
// whose parent holds a package.json: it is run from bench/ (paths are absolute), where that holds.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './implementations.js';
import { quantile } from './lib/stats.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' } } });
const RUNS = Math.max(3, Math.min(200, Number(values.runs) || 15));
const NODE = process.execPath;
const MCPKIT = join(ROOT, 'dist', 'pkg', 'cli.js');
const SERVER = join(ROOT, 'dist', 'examples', 'everything', 'server.js');
const INSPECTOR = join(
  ROOT,
  'tools',
  'bench',
  'node_modules',
  '@modelcontextprotocol',
  'inspector-cli',
  'build',
  'index.js',
);
const INSPECTOR_CWD = join(ROOT, 'bench');

interface Variant {
  name: string;
  /** One run's wall time in ms (throws when the run fails). */
  run(): Promise<number>;
  /** The command line and working directory, for the CPU time (absent: not a single command). */
  command?: { args: string[]; cwd: string };
}

/** CPU time (user + system, ms) of `node args…` and its children, from bash's `times` after it ran. */
function cpuTime(args: string[], cwd: string): Promise<number> {
  const script = '"$@" >/dev/null 2>&1; times';
  const child = spawn('bash', ['-c', script, 'bash', NODE, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => {
      // Second line: the children's user and system time, e.g. "0m0.123s 0m0.045s".
      const line = out.trim().split('\n')[1] ?? '';
      const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map(
        (m) => Number(m[1]) * 60_000 + Number(m[2]) * 1000,
      );
      if (parts.length !== 2) reject(new Error(`unexpected output of times: ${out}`));
      else resolve((parts[0] ?? 0) + (parts[1] ?? 0));
    });
  });
}

/** Runs a process to its end; resolves with its wall time, rejects when it fails or prints nothing expected. */
function timed(args: string[], cwd: string, expect: RegExp): Promise<number> {
  const t0 = performance.now();
  const child = spawn(NODE, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  child.stderr.resume();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0 || !expect.test(out))
        reject(new Error(`${args.join(' ')}: exit ${code}, output ${out.slice(0, 200)}`));
      else resolve(ms);
    });
  });
}

/** The example server's cold start: spawn until the answer to `initialize` (then it is stopped). */
function serverColdStart(): Promise<number> {
  const t0 = performance.now();
  const child: ChildProcess = spawn(NODE, [SERVER], { stdio: ['pipe', 'pipe', 'ignore'] });
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  };
  child.stdin?.write(`${JSON.stringify(initialize)}\n`);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', () => {
      const ms = performance.now() - t0;
      child.kill('SIGKILL');
      resolve(ms);
    });
  });
}

const variants: Variant[] = [
  {
    name: 'node -e 0 (floor)',
    run: () => timed(['-e', '0'], ROOT, /^$/),
    command: { args: ['-e', '0'], cwd: ROOT },
  },
  {
    name: 'mcpkit --help',
    run: () => timed([MCPKIT, '--help'], ROOT, /Usage: mcpkit/),
    command: { args: [MCPKIT, '--help'], cwd: ROOT },
  },
  { name: 'example server cold start (to initialize answer)', run: serverColdStart },
  {
    name: 'mcpkit tools -- node server.js',
    run: () => timed([MCPKIT, 'tools', '--', NODE, SERVER], ROOT, /^echo\s/m),
    command: { args: [MCPKIT, 'tools', '--', NODE, SERVER], cwd: ROOT },
  },
  {
    name: 'node server.js, stdin closed (its own start and exit)',
    run: () => timed([SERVER], ROOT, /^$/),
    command: { args: [SERVER], cwd: ROOT },
  },
];
// Installed on demand (once per lockfile); a failed install leaves the comparison out, said below.
const installed = spawnSync(NODE, [join(ROOT, 'tools', 'install.mjs'), 'bench'], { stdio: ['ignore', 2, 2] });
const inspector = installed.status === 0 && existsSync(INSPECTOR);
if (inspector) {
  variants.push(
    {
      name: 'Inspector CLI --help',
      run: () => timed([INSPECTOR, '--help'], INSPECTOR_CWD, /Usage: inspector-cli/),
      command: { args: [INSPECTOR, '--help'], cwd: INSPECTOR_CWD },
    },
    {
      name: 'Inspector CLI node server.js --method tools/list',
      run: () => timed([INSPECTOR, NODE, SERVER, '--method', 'tools/list'], INSPECTOR_CWD, /"name": "echo"/),
      command: { args: [INSPECTOR, NODE, SERVER, '--method', 'tools/list'], cwd: INSPECTOR_CWD },
    },
  );
}

const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
const cpu = new Map<string, number[]>(variants.map((v) => [v.name, []]));
const loadBefore = loadavg();
// One warm-up round (file-system caches), not counted.
for (const v of variants) await v.run();
for (let i = 0; i < RUNS; i++) {
  for (const v of variants) {
    times.get(v.name)?.push(await v.run());
    if (v.command) cpu.get(v.name)?.push(await cpuTime(v.command.args, v.command.cwd));
  }
}
const loadAfter = loadavg();

const med = (name: string) => quantile(times.get(name) ?? [], 0.5);
const floor = med('node -e 0 (floor)');
const cold = med('example server cold start (to initialize answer)');
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
console.log(`mcpkit command start-up, ${RUNS} runs each, interleaved; Node ${process.version}`);
console.log(
  `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
);
console.log('');
const cpuMed = (name: string) => quantile(cpu.get(name) ?? [], 0.5);
const cpuFloor = cpuMed('node -e 0 (floor)');
console.log('| variant | wall median | wall p90 | wall above floor | CPU median | CPU above floor |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const v of variants) {
  const t = times.get(v.name) ?? [];
  const m = quantile(t, 0.5);
  const floorRow = v.name.startsWith('node -e');
  const c = v.command ? fmt(cpuMed(v.name)) : '';
  const cAbove = v.command && !floorRow ? fmt(cpuMed(v.name) - cpuFloor) : '';
  console.log(
    `| ${v.name} | ${fmt(m)} | ${fmt(quantile(t, 0.9))} | ${floorRow ? '' : fmt(m - floor)} | ${c} | ${cAbove} |`,
  );
}
console.log('');
const help = med('mcpkit --help') - floor;
console.log(
  `mcpkit --help above the floor: ${fmt(help)} (target ≤ 100 ms: ${help <= 100 ? 'met' : 'NOT met'})`,
);
const tools = med('mcpkit tools -- node server.js') - cold - floor;
console.log(
  `mcpkit tools above the floor plus the server's cold start: ${fmt(tools)} (target ≤ 150 ms: ${tools <= 150 ? 'met' : 'NOT met'})`,
);
const helpCpu = cpuMed('mcpkit --help') - cpuFloor;
const toolsCpu =
  cpuMed('mcpkit tools -- node server.js') -
  cpuMed('node server.js, stdin closed (its own start and exit)') -
  cpuFloor;
console.log(
  `CPU: mcpkit --help above node -e 0: ${fmt(helpCpu)}; mcpkit tools above node -e 0 plus the server's own start and exit: ${fmt(toolsCpu)}`,
);
if (inspector) {
  console.log(
    `Inspector CLI / mcpkit CPU: --help ${(cpuMed('Inspector CLI --help') / cpuMed('mcpkit --help')).toFixed(2)}×, tools ${(cpuMed('Inspector CLI node server.js --method tools/list') / cpuMed('mcpkit tools -- node server.js')).toFixed(2)}×`,
  );
  console.log(
    `Inspector CLI / mcpkit: --help ${(med('Inspector CLI --help') / med('mcpkit --help')).toFixed(2)}×, tools ${(med('Inspector CLI node server.js --method tools/list') / med('mcpkit tools -- node server.js')).toFixed(2)}×`,
  );
} else console.log('Inspector CLI not installed: no comparison');
