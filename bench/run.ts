// `npm run bench`: runs every workload against mcpkit, the official SDK 1.x and 2.x and a raw Node baseline,
// interleaving implementations (a rotated order each round), then prints markdown tables with medians, spreads and
// ratios, checks the targets of issue 5, and writes bench/RESULTS.md.
//
//   npm run bench                       full run (about 16 minutes on 2 cores)
//   npm run bench -- --quick            shorter phases, 2 rounds (about two minutes)
//   npm run bench -- --only stdio,inproc   groups: stdio, payload, coldstart, inproc, http (or workload ids)
//   npm run bench -- --rounds 3 --impl mcpkit,raw --no-write
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FULL, type Profile, QUICK } from './config.js';
import { baselineImplementation, IMPLEMENTATIONS, type Implementation, ROOT } from './implementations.js';
import { pinLoadGenerator } from './lib/affinity.js';
import { ForeignLoad, waitForQuiet } from './lib/proc.js';
import { type Results, record, targetsTable, workloadTable } from './lib/report.js';
import { cvPercent, median, summarize } from './lib/stats.js';
import type { ServerCommand } from './load/stdio.js';
import { coldStart } from './workloads/cold-start.js';
import {
  HTTP_CLIENTS,
  HTTP_UNPINNED_CLIENTS,
  httpAuthCalls,
  httpCalls,
  httpGuardCalls,
  httpMemory,
} from './workloads/http.js';
import { clientList, construction, serverList } from './workloads/inproc.js';
import { stdioCalls, stdioClosedLoop, stdioPayload } from './workloads/stdio.js';
import { appliesTo, type Workload } from './workloads/types.js';

const WORKLOADS: readonly Workload[] = [
  stdioCalls(1),
  stdioCalls(16),
  stdioCalls(1, 'modern'),
  stdioCalls(16, 'modern'),
  stdioClosedLoop(16),
  stdioPayload(100 * 1024, '100 KiB', (p) => p.medium),
  stdioPayload(1024 * 1024, '1 MiB', (p) => p.large),
  coldStart,
  serverList,
  clientList,
  construction,
  ...(['stateless', 'json', 'sse', 'modern'] as const).flatMap((mode) =>
    HTTP_CLIENTS.map((clients) => httpCalls(mode, clients)),
  ),
  // The same calls with nothing pinned (issue 24): the other load pattern, beside the pinned one in one run.
  ...(['stateless', 'json', 'sse', 'modern'] as const).flatMap((mode) =>
    HTTP_UNPINNED_CLIENTS.map((clients) => httpCalls(mode, clients, 'unpinned')),
  ),
  httpAuthCalls(8),
  httpGuardCalls(8),
  httpMemory,
];

const USAGE = `usage: npm run bench -- [--quick] [--only GROUPS] [--rounds N] [--impl NAMES] [--no-write]
  --quick         shorter phases and 2 rounds
  --only GROUPS   comma-separated groups (stdio, payload, coldstart, inproc, http) or workload ids (${WORKLOADS.map((w) => w.id).join(', ')})
  --rounds N      rounds (default: 5, or 2 with --quick; the http group runs in the first 3, or 2, of them)
  --impl NAMES    comma-separated implementations (${IMPLEMENTATIONS.map((i) => i.name).join(', ')})
  --no-write      do not write bench/RESULTS.md
  --baseline DIR  also measure mcpkit as built in DIR (a checkout at an earlier commit, built there): "mcpkit / before" ratios
  --no-pin        do not pin the load generator to CPU 0 and the servers to the other CPUs
  --pattern P     the HTTP call workloads' load patterns: pinned, unpinned or both (default both; the unpinned ones
                  are the 8-client workloads with the suffix -unpinned)
  --cpu-prof DIR  run the stdio and HTTP servers under node --cpu-prof, writing profiles to DIR (skews the numbers)`;

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv,
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    rounds: { type: 'string' },
    impl: { type: 'string' },
    baseline: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'no-pin': { type: 'boolean', default: false },
    pattern: { type: 'string', default: 'both' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const base = values.quick ? QUICK : FULL;
const profile: Profile = {
  ...base,
  rounds: values.rounds === undefined ? base.rounds : Number(values.rounds),
};
if (!Number.isInteger(profile.rounds) || profile.rounds < 1 || profile.rounds > 50) {
  console.error(`--rounds must be an integer from 1 to 50\n${USAGE}`);
  process.exit(2);
}
const only = values.only?.split(',').map((s) => s.trim());
const pattern = values.pattern;
if (pattern !== 'both' && pattern !== 'pinned' && pattern !== 'unpinned') {
  console.error(`--pattern must be pinned, unpinned or both\n${USAGE}`);
  process.exit(2);
}
/** Whether a workload's load pattern is selected (only the HTTP call workloads have two). */
const patternSelected = (w: Workload) =>
  pattern === 'both' ||
  w.group !== 'http' ||
  (w.id.endsWith('-unpinned') ? pattern === 'unpinned' : pattern === 'pinned' || !HTTP_CALL.test(w.id));
const HTTP_CALL = /^http-(stateless|json|sse|modern)-\d+$/;
const workloads = WORKLOADS.filter(
  (w) =>
    (!only ||
      only.includes(w.group) ||
      only.includes(w.id) ||
      only.includes(w.id.replace(/-unpinned$/, ''))) &&
    patternSelected(w),
);
const implNames = values.impl?.split(',').map((s) => s.trim());
const profDir = values['cpu-prof'];
const profiled = (command: ServerCommand): ServerCommand =>
  profDir === undefined
    ? command
    : { ...command, args: ['--cpu-prof', '--cpu-prof-dir', profDir, ...command.args] };
const baselineDir = values.baseline;
const candidates: readonly Implementation[] =
  baselineDir === undefined
    ? IMPLEMENTATIONS
    : [
        IMPLEMENTATIONS[0]!,
        baselineImplementation(baselineDir, baselineLabel(baselineDir)),
        ...IMPLEMENTATIONS.slice(1),
      ];
const impls = candidates
  .filter((i) => !implNames || implNames.includes(i.name) || i.name === 'mcpkit-before')
  .map((i) =>
    profDir === undefined
      ? i
      : {
          ...i,
          stdio: profiled(i.stdio),
          ...(i.http ? { http: { ...i.http, command: profiled(i.http.command) } } : {}),
        },
  );
const pinned = values['no-pin'] ? false : pinLoadGenerator();
if (workloads.length === 0 || impls.length === 0) {
  console.error(`nothing selected\n${USAGE}`);
  process.exit(2);
}

/** The baseline's column heading: its commit, when DIR is a git checkout. */
function baselineLabel(dir: string): string {
  try {
    const commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
    return `mcpkit before (${commit})`;
  } catch {
    return `mcpkit before (${dir})`;
  }
}

/** A fixed CPU-bound task, timed at the start of every round: its spread is the machine's noise. */
function calibrate(): number {
  const doc = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(200) }] } };
  const t0 = process.hrtime.bigint();
  let n = 0;
  for (let i = 0; i < 20_000; i++) n += (JSON.parse(JSON.stringify(doc)) as { id: number }).id;
  if (n !== 20_000) throw new Error('calibration');
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** The mcpkit source measured: the commit, and whether src/ had uncommitted changes. */
function sourceState(): string {
  try {
    const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const head = git(['rev-parse', '--short', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--', 'src']) !== '';
    return dirty ? `${head} with uncommitted changes in src/` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

const results: Results = new Map();
const failures: string[] = [];
const calibrations: number[] = [];
const loadBefore = os.loadavg();
const started = Date.now();
const command = `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`;

console.error(
  `${command}: ${profile.name} profile, ${profile.rounds} round(s), ${workloads.length} workload(s), ${impls.map((i) => i.name).join(', ')}`,
);
const foreignPerRound: number[] = [];
const QUIET_CORES = 0.3;
let quietBudgetMs = profile.name === 'quick' ? 10_000 : 60_000;
let noisyStarts = 0;
let runs = 0;
for (let round = 0; round < profile.rounds; round++) {
  const foreign = new ForeignLoad();
  foreign.start();
  calibrations.push(median([calibrate(), calibrate(), calibrate()]));
  const order = rotate(impls, round);
  for (const workload of workloads) {
    if (workload.rounds !== undefined && round >= workload.rounds(profile)) continue;
    for (const impl of order) {
      if (!appliesTo(workload, impl)) continue;
      // Wait briefly for a quiet moment (other processes share this machine); bounded per run and in total.
      // One 150 ms probe always; more (up to 2 s) while the total waiting budget lasts.
      const w0 = Date.now();
      if (!(await waitForQuiet(QUIET_CORES, 150, Math.min(2000, quietBudgetMs)))) noisyStarts++;
      quietBudgetMs = Math.max(0, quietBudgetMs - (Date.now() - w0));
      const t0 = Date.now();
      runs++;
      try {
        const measured = await workload.run(impl, profile);
        record(results, workload.id, impl.name, measured);
        const first = workload.metrics[0]!;
        console.error(
          `  round ${round + 1}/${profile.rounds} ${workload.id} ${impl.name}: ${first.label} ${measured[first.key]?.toFixed(first.digits)} ${first.unit} (${Date.now() - t0} ms)`,
        );
      } catch (error) {
        const message = `round ${round + 1} ${workload.id} ${impl.name}: ${(error as Error).message}`;
        failures.push(message);
        console.error(`  FAILED ${message}`);
      }
    }
  }
  foreignPerRound.push(foreign.stop());
  console.error(
    `  round ${round + 1}: other processes kept ${foreignPerRound.at(-1)?.toFixed(2)} cores busy`,
  );
}
const elapsedS = (Date.now() - started) / 1000;
const foreignCores = summarize(foreignPerRound);
const loadAfter = os.loadavg();

const cpus = os.cpus();
const machine = `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${os.release()}, Node ${process.version}`;
const noise = cvPercent(calibrations);
const httpRounds = workloads.some((w) => w.group === 'http')
  ? Math.min(profile.rounds, profile.httpRounds)
  : 0;
const sections: string[] = [
  '# mcpkit benchmarks',
  '',
  `Command: \`${command}\` (${profile.name} profile, ${profile.rounds} rounds${httpRounds > 0 && httpRounds < profile.rounds ? `, the HTTP workloads in the first ${httpRounds}` : ''}; ${elapsedS.toFixed(0)} s), ${new Date().toISOString()}.`,
  '',
  `mcpkit source: ${sourceState()}. ${pinned ? 'Load generator pinned to CPU 0, servers to the other CPUs (taskset).' : 'No CPU pinning.'}`,
  '',
  `Machine: ${machine}. Load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}.`,
  '',
  `Machine noise: processes outside the benchmark kept ${foreignCores.median.toFixed(2)} of ${cpus.length} cores busy (median over rounds; ${foreignCores.min.toFixed(2)}–${foreignCores.max.toFixed(2)}); ${noisyStarts} of ${runs} runs started without a quiet 150 ms window (other processes under ${QUIET_CORES} cores) after a bounded wait; a fixed JSON task timed at the start of each round varied by ${noise.toFixed(1)}% (coefficient of variation over ${calibrations.length} rounds; median ${median(calibrations).toFixed(1)} ms). Sequential round trips on this virtual machine are dominated by cross-CPU wake-ups, so their spread is the widest.`,
  '',
  'Each cell is the median over rounds, ±half the min–max range as a percentage of the median. Implementations run',
  'interleaved (a rotated order each round), every stdio and HTTP run against a fresh server process. ↑ higher is better, ↓',
  'lower is better; ratios are mcpkit ÷ the other implementation for every metric, so for ↓ metrics below 1× means',
  'mcpkit is better. Versions are in the column headings.',
  '',
  '## Targets (issue 5; reported, never asserted)',
  '',
  targetsTable(results),
  '',
];
for (const workload of workloads) {
  sections.push(
    `## ${workload.title}`,
    '',
    `Produced by \`${command}\` (this run); alone: \`npm run bench -- --only ${workload.id}\`.`,
    '',
    workloadTable(results, workload, impls),
    '',
  );
}
sections.push(
  '## Method',
  '',
  '- stdio: the load generator (`bench/load/stdio.ts`) spawns `node <server>` and speaks raw NDJSON JSON-RPC, so every implementation is driven identically; it performs the initialize handshake, warms up, then keeps 1 or 16 `tools/call echo` requests in flight for a bounded time and count. `stdio-seq-modern` and `stdio-16-modern` speak the 2026-07-28 revision instead (no handshake: a first call; every request carries the `_meta` envelope with protocol version, client capabilities and client info; every result must have `resultType: complete`), against mcpkit and the raw baseline (the stdio servers of the official SDKs do not speak it). Latency is per call with `process.hrtime.bigint()`; server CPU is utime+stime from `/proc/<pid>/stat` across the timed phase; peak RSS is `VmHWM`. Small replies are fully parsed and checked; large ones are checked by id and length, with a full check of the first and every 256th. `stdio-16` issues each next call inside the handler of the reply that freed its slot; `stdio-16-closed` (not pinned) resumes the clients whose replies have arrived one per turn of the event loop of the load generator (`setImmediate`, after the loop has polled for I/O again), as a host whose 16 concurrent tool calls are tasks of their own does, so every request is its own write with a turn of the loop between two. Server read and write system calls per call come from `/proc/<pid>/io` (`syscr`, `syscw`); requests per server read is calls over reads: 1 means every request arrived in a chunk of its own.',
  '- The raw baseline (`bench/servers/raw-stdio.ts`) only splits lines, `JSON.parse`s and `JSON.stringify`s over the same pipe.',
  '- Every server exposes the same `echo` tool with a zod `z.object({ text: z.string() })` input schema.',
  '- Cold start: spawn to the initialize reply, each paired with a `node -e 0` spawn-to-exit run; the floor median is subtracted per implementation.',
  "- In-process (`bench/inproc/`, a fresh process per implementation): the server's own stdio transport on in-memory streams (request bytes in, response bytes out, no pipe); the client's `listTools()` against a scripted responder that parses a fresh copy of a canned 100-tool result per reply (official v2 with `cacheMode: 'refresh'`); construction of a server with 20 tools including building the zod schemas. Operations are timed in interleaved blocks (A B C A B C …) sized after two untimed warm-up passes, so no block is sized by JIT compilation; the median block is reported.",
  "- HTTP (`bench/load/http.ts`, `bench/workloads/http.ts`): each server (`bench/servers/*-http.ts`) listens on 127.0.0.1 and exposes the same `echo` tool; the load generator opens 1, 8 or 32 keep-alive clients (one undici `Client` with one connection each), performs `initialize` + `notifications/initialized` per client in the session setups, and keeps one `tools/call echo` in flight per client for a bounded time and count; every reply is checked (status 200, the JSON body or SSE events parsed, the echoed text compared). Setups: stateless = mcpkit `serve(server, { sessions: false, responseMode: 'json' })`, official v1 `StreamableHTTPServerTransport` with `sessionIdGenerator: undefined` and `enableJsonResponse` (a new server and transport per request, as v1 requires), official v2 the same idiom with `WebStandardStreamableHTTPServerTransport`; JSON / SSE sessions = mcpkit `responseMode: 'json'` / `'sse'` (sessions on), official v1 a server and transport per session with / without `enableJsonResponse`; 2026-07-28 = requests carrying the `_meta` envelope and the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers, against mcpkit `serve()` with its defaults (the same endpoint that serves 2025 sessions) and official v2 `createMcpHandler` with its defaults. The raw baseline (`bench/servers/raw-http.ts`) is plain `node:http` that `JSON.parse`s the body and `JSON.stringify`s a JSON-RPC result (one fixed session id for initialize), used for all three 2025 setups. v1 and raw run on plain `node:http` (no express).",
  '- Official v2 serves HTTP as a fetch handler `(Request) => Promise<Response>`; the bench serves it from `node:http` through a small adapter (`bench/servers/http-common.ts`: read the body, build a `Request`, copy the `Response` back), whose cost is part of what v2 is measured with.',
  "- Idle-session memory: 50 warm-up sessions and up to 5,000 `tools/call` on 8 of them (so the V8 heap has grown its young generation before the baseline; without this the first thousand sessions of either library pay for up to ~30 MB of it), a reading, then 2,000 more sessions and a second reading; per-1,000 numbers are half the difference. Sessions are opened with initialize + notifications/initialized each over 8 keep-alive connections, which are then closed; the sessions stay open and idle. Each reading is the server's own `process.memoryUsage()` after two `gc()` calls (the servers run with `--expose-gc`; SIGUSR2 asks for a reading). mcpkit runs `serve()` with its defaults, official v1 its default SSE replies with a server and transport per session. MB = 10^6 bytes.",
  '- The load generator shares the 2 cores with the server; its own CPU per call is in the stdio and HTTP call tables.',
  '',
);
if (failures.length > 0) sections.push('## Failures', '', ...failures.map((f) => `- ${f}`), '');
const report = sections.join('\n');

console.log(report);
if (!values['no-write']) {
  const file = join(ROOT, 'bench', 'RESULTS.md');
  writeFileSync(file, report);
  console.error(`wrote ${file}`);
}
process.exitCode = failures.length > 0 ? 1 : 0;
