// Workload 6: in-process micro-benchmarks, each in a fresh process per implementation (inproc/worker.ts), bounded
// in time and stopped by its pid if it overruns.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../implementations.js';
import { onCpus } from '../lib/affinity.js';
import type { Metric, Workload } from './types.js';

const WORKER = join(ROOT, 'dist', 'bench', 'inproc', 'worker.js');

function runWorker(
  bench: string,
  impl: string,
  blocks: number,
  budgetMs: number,
): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const command = onCpus(
      { command: process.execPath, args: [WORKER, bench, impl, String(blocks), String(budgetMs)] },
      'server',
    );
    const child = spawn(command.command, command.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-4096);
    });
    // Generous: warm-up, module loading and the three blocks allowed past the budget.
    const limitMs = budgetMs * 4 + 30_000;
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) {
        resolve((JSON.parse(line) as { metrics: Record<string, number> }).metrics);
      } else {
        reject(new Error(`${bench} ${impl}: worker exited (code ${code}, signal ${signal}): ${err.trim()}`));
      }
    });
  });
}

function inproc(id: string, bench: string, title: string, metrics: readonly Metric[]): Workload {
  return {
    id,
    group: 'inproc',
    title,
    metrics,
    applies: (impl) => impl.inproc,
    run: (impl, profile) => runWorker(bench, impl.name, profile.inprocBlocks, profile.inprocBudgetMs),
  };
}

/** tools/list of 100 tools against ping and tools/call, through the server's stdio transport on in-memory streams. */
export const serverList = inproc(
  'inproc-server',
  'server-list',
  'in-process server: request bytes in to response bytes out (100 tools registered)',
  [
    { key: 'ping_us', label: 'ping', unit: 'µs', better: 'lower', digits: 1 },
    { key: 'list_us', label: 'tools/list (100 tools)', unit: 'µs', better: 'lower', digits: 1 },
    { key: 'list_over_ping', label: 'tools/list ÷ ping', unit: '×', better: 'lower', digits: 1 },
    { key: 'call_us', label: 'tools/call echo', unit: 'µs', better: 'lower', digits: 1 },
  ],
);

/** The client's listTools() against a scripted server listing 100 tools with output schemas. */
export const clientList = inproc(
  'inproc-client',
  'client-list',
  'in-process client: listTools() of 100 tools with output schemas',
  [
    { key: 'list_ms', label: 'listTools(), steady', unit: 'ms', better: 'lower', digits: 3 },
    { key: 'first_ms', label: 'listTools(), first call', unit: 'ms', better: 'lower', digits: 2 },
  ],
);

/** Server construction with 20 tools, and construction through the first tools/list. */
export const construction = inproc(
  'inproc-construct',
  'construct',
  'in-process server construction, 20 tools (zod input and output schemas)',
  [
    { key: 'construct_ms', label: 'construct', unit: 'ms', better: 'lower', digits: 2 },
    {
      key: 'ready_ms',
      label: 'construct + serve + initialize + tools/list',
      unit: 'ms',
      better: 'lower',
      digits: 2,
    },
  ],
);
