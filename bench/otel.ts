// The OpenTelemetry bench (issue 29), not part of `npm run bench`: `npm run -s build && node dist/bench/otel.js`.
// mcpkit over stateless Streamable HTTP at 8 keep-alive clients, `tools/call echo`, closed loop: the server as it is
// (mcpkit/otel not imported) against the same server instrumented by mcpkit/otel with the real SDK, every span
// sampled and batched to an exporter that drops it, metrics read every second by a reader that drops them. Rounds
// interleaved; prints the medians and the ratio (target: instrumented >= 0.9x). Environment: OTEL_BENCH_ROUNDS
// (default 5), OTEL_BENCH_MEASURE_MS (default 5000), OTEL_BENCH_CLIENTS (default 8). Run it on a quiet machine.
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './lib/proc.js';
import { drive } from './load/driver.js';
import { HttpLoad, HttpServerProcess } from './load/http.js';

const here = dirname(fileURLToPath(import.meta.url));
const SERVER = { command: process.execPath, args: [join(here, 'servers/mcpkit-http.js')] };
const CLIENTS = Number(process.env.OTEL_BENCH_CLIENTS ?? 8);
const ROUNDS = Number(process.env.OTEL_BENCH_ROUNDS ?? 5);
const MEASURE_MS = Number(process.env.OTEL_BENCH_MEASURE_MS ?? 5000);
const WARMUP_MS = Math.min(2000, MEASURE_MS);
const SETUPS = [
  { name: 'off (mcpkit/otel not imported)', mode: 'stateless' },
  { name: 'on (sampled, no-op exporter)', mode: 'stateless-otel' },
] as const;

interface Figure {
  callsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  serverCpuMs: number;
}

async function measure(mode: string): Promise<Figure> {
  const server = new HttpServerProcess(SERVER, mode);
  try {
    const origin = await server.ready(60_000); // generous: a loaded machine starts the SDK slowly
    const load = new HttpLoad(origin, 'stateless');
    await load.connect(CLIENTS);
    load.prepareEcho('hello world');
    let before = 0;
    let cpu = 0;
    const result = await drive(load, {
      inFlight: CLIENTS,
      warmup: { ms: WARMUP_MS, maxCalls: 10_000_000 },
      measure: { ms: MEASURE_MS, maxCalls: 10_000_000 },
      stallMs: 10_000,
      firstId: 1,
      beforeMeasure: () => {
        before = cpuMs(server.pid);
      },
      afterMeasure: () => {
        cpu = cpuMs(server.pid) - before;
      },
    });
    await load.close();
    const sorted = Float64Array.from(result.latenciesNs).sort();
    const at = (p: number) => (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) / 1e6;
    return {
      callsPerSec: (result.calls * 1e9) / result.elapsedNs,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      serverCpuMs: cpu / (result.calls / 1000),
    };
  } finally {
    await server.stop();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const figures = new Map<string, Figure[]>(SETUPS.map((s) => [s.mode, []]));
const loadBefore = loadavg();
for (let round = 0; round < ROUNDS; round++) {
  // A rotated order each round, so neither setup always runs first.
  const order = round % 2 === 0 ? SETUPS : [...SETUPS].reverse();
  for (const setup of order) figures.get(setup.mode)?.push(await measure(setup.mode));
}
const loadAfter = loadavg();
console.log(
  `mcpkit stateless HTTP, ${CLIENTS} clients, tools/call echo; ${ROUNDS} rounds interleaved (${WARMUP_MS / 1000} s warm-up, ${MEASURE_MS / 1000} s timed), medians. Load average before ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' / ')}.\n`,
);
console.log('| setup | calls/s | p50 ms | p99 ms | server CPU ms per 1000 calls |');
console.log('| --- | --- | --- | --- | --- |');
for (const setup of SETUPS) {
  const all = figures.get(setup.mode) ?? [];
  console.log(
    `| ${setup.name} | ${median(all.map((f) => f.callsPerSec)).toFixed(0)} | ${median(all.map((f) => f.p50Ms)).toFixed(3)} | ${median(all.map((f) => f.p99Ms)).toFixed(3)} | ${median(all.map((f) => f.serverCpuMs)).toFixed(1)} |`,
  );
}
const off = median((figures.get('stateless') ?? []).map((f) => f.callsPerSec));
const on = median((figures.get('stateless-otel') ?? []).map((f) => f.callsPerSec));
console.log(`\ninstrumented / off: ${(on / off).toFixed(2)}x (target >= 0.9x)`);
