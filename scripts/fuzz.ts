// `npm run fuzz`: property-based fuzzing of the framing, the JSON-RPC envelope, URI templates and the HTTP core.
// Each target runs in its own child process (node --expose-gc) under a watchdog: an input that never returns is
// reported as a hang with the seed that reproduces it, and the heap after the run is compared with the heap before.
// A failing input is shrunk, printed and kept in test/fuzz/regressions.json, which the CI slice replays.
//
//   node dist/scripts/fuzz.js [--runs N (total, default 1000000)] [--only name,…] [--seed S] [--jobs J]
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runTarget } from '../test/fuzz/run-target.js';
import { REGRESSIONS_FILE, TARGETS } from '../test/fuzz/targets.js';

/** A child that reports no progress for this long is stuck on one input. */
const STALL_MS = 60_000;
/** Most the heap may grow over one target's run (after a full GC) before it counts as unbounded. */
const HEAP_GROWTH_LIMIT_MB = 32;

interface Report {
  type: 'progress' | 'done';
  done?: number;
  runs?: number;
  failed?: boolean;
  seed?: number;
  counterexample?: unknown;
  error?: string;
  heapBeforeMb?: number;
  heapAfterMb?: number;
  rssMb?: number;
  ms?: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
/** The live heap: two full collections, as V8 frees some caches (compiled regular expressions) only on the second. */
const heapMb = () => {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

async function worker(name: string, runs: number, seed: number): Promise<void> {
  const target = TARGETS.find((t) => t.name === name);
  if (target === undefined) throw new Error(`no fuzz target named ${name}`);
  const send = (report: Report) => process.stdout.write(`${JSON.stringify(report)}\n`);
  await target.setup?.();
  const heapBeforeMb = heapMb();
  const started = performance.now();
  const outcome = await runTarget(target, runs, seed, (done) => send({ type: 'progress', done }));
  const ms = performance.now() - started;
  await target.teardown?.();
  send({
    type: 'done',
    ...outcome,
    heapBeforeMb,
    heapAfterMb: heapMb(),
    rssMb: process.memoryUsage().rss / 2 ** 20,
    ms,
  });
}

interface Result {
  name: string;
  runs: number;
  ms: number;
  heapGrowthMb: number;
  rssMb: number;
  problem?: string;
  counterexample?: unknown;
  seed: number;
}

function runChild(name: string, runs: number, seed: number): Promise<Result> {
  const script = fileURLToPath(import.meta.url);
  const child = spawn(
    process.execPath,
    ['--expose-gc', script, '--worker', name, '--runs', String(runs), '--seed', String(seed)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let lastDone = 0;
  let final: Report | undefined;
  let stalled = false;
  let timer = setTimeout(stall, STALL_MS);
  function stall(): void {
    stalled = true;
    child.kill('SIGKILL');
  }
  createInterface({ input: child.stdout }).on('line', (line) => {
    const report = JSON.parse(line) as Report;
    clearTimeout(timer);
    timer = setTimeout(stall, STALL_MS);
    if (report.type === 'progress') lastDone = report.done ?? lastDone;
    else final = report;
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const base = {
        name,
        seed,
        runs: final?.runs ?? lastDone,
        ms: final?.ms ?? 0,
        rssMb: final?.rssMb ?? 0,
      };
      if (stalled) {
        resolve({
          ...base,
          heapGrowthMb: 0,
          problem: `hang: no progress for ${STALL_MS / 1000} s after about ${lastDone} inputs (rerun with --only ${name} --seed ${seed})`,
        });
        return;
      }
      if (final === undefined) {
        resolve({ ...base, heapGrowthMb: 0, problem: `worker died (exit ${code}, signal ${signal})` });
        return;
      }
      const heapGrowthMb = (final.heapAfterMb ?? 0) - (final.heapBeforeMb ?? 0);
      if (final.failed)
        resolve({
          ...base,
          heapGrowthMb,
          problem: final.error ?? 'failed',
          counterexample: final.counterexample,
        });
      else if (heapGrowthMb > HEAP_GROWTH_LIMIT_MB)
        resolve({ ...base, heapGrowthMb, problem: `heap grew ${heapGrowthMb.toFixed(1)} MB` });
      else resolve({ ...base, heapGrowthMb });
    });
  });
}

function keepRegression(name: string, input: unknown): void {
  const all = JSON.parse(readFileSync(REGRESSIONS_FILE, 'utf8')) as Record<string, unknown[]>;
  const list = all[name] ?? [];
  const text = JSON.stringify(input);
  if (!list.some((kept) => JSON.stringify(kept) === text)) list.push(input);
  all[name] = list;
  writeFileSync(REGRESSIONS_FILE, `${JSON.stringify(all, null, 2)}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      worker: { type: 'string' },
      runs: { type: 'string', default: '1000000' },
      only: { type: 'string' },
      seed: { type: 'string' },
      jobs: { type: 'string', default: '2' },
    },
  });
  const runs = Number(values.runs);
  const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
  if (!Number.isSafeInteger(runs) || runs < 1 || !Number.isSafeInteger(seed))
    throw new Error('--runs and --seed take integers');
  if (values.worker !== undefined) return worker(values.worker, runs, seed);

  const only = values.only?.split(',');
  const targets = TARGETS.filter((t) => only === undefined || only.includes(t.name));
  if (targets.length === 0) throw new Error(`no target among ${TARGETS.map((t) => t.name).join(', ')}`);
  const weights = targets.reduce((sum, t) => sum + t.weight, 0);
  const queue = targets.map((t) => ({
    name: t.name,
    runs: Math.max(1, Math.round((runs * t.weight) / weights)),
  }));
  console.log(`fuzz: ${runs} inputs over ${targets.length} targets, seed ${seed}`);
  const results: Result[] = [];
  const jobs = Math.max(1, Number(values.jobs));
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const result = await runChild(next.name, next.runs, seed);
        results.push(result);
        const rate = result.ms > 0 ? `${Math.round(result.runs / (result.ms / 1000))}/s` : '';
        console.log(
          `  ${result.problem ? 'FAIL' : 'ok  '} ${result.name.padEnd(24)} ${String(result.runs).padStart(8)} inputs ${(result.ms / 1000).toFixed(1).padStart(6)} s ${rate.padStart(9)}  heap ${result.heapGrowthMb >= 0 ? '+' : ''}${result.heapGrowthMb.toFixed(1)} MB  rss ${result.rssMb.toFixed(0)} MB`,
        );
        if (result.problem) {
          console.log(`       ${result.problem.split('\n').slice(0, 8).join('\n       ')}`);
          if (result.counterexample !== undefined) {
            console.log(`       input: ${JSON.stringify(result.counterexample).slice(0, 2000)}`);
            keepRegression(result.name, result.counterexample);
          }
        }
      }
    }),
  );
  const total = results.reduce((sum, r) => sum + r.runs, 0);
  const failed = results.filter((r) => r.problem);
  console.log(`fuzz: ${total} inputs checked, ${failed.length} target(s) failed`);
  if (failed.length > 0) process.exitCode = 1;
}

await main();
