// The sandbox's cost (issue 26), mcpkit only, Linux with bwrap:
//   node dist/bench/sandbox.js [--starts 20] [--calls 3000]
// 1. Start: our example server over stdio, spawn to the first byte of its `initialize` answer, plain against
//    sandboxed (the safe preset: the sandbox prepared, its control groups made, sh, bwrap and prlimit started),
//    interleaved one of each, medians; and the same through a Host (start to ready, lists included).
// 2. Tool calls: `tools/call echo` through a Host over stdio, one plain server and one sandboxed, sequential,
//    interleaved in blocks, medians of the blocks and the p99 of single calls.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ServerSandbox } from '../src/host/sandbox/launch.js';
import { resolveSandbox } from '../src/host/sandbox/policy.js';
import { SandboxedStdioTransport } from '../src/host/sandbox/sandboxed-transport.js';
import { Host, type ServerConfig } from '../src/host.js';
import type { Transport } from '../src/index.js';
import { StdioClientTransport } from '../src/stdio.js';
import { ROOT } from './implementations.js';

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

/** Spawn (and for the sandbox, prepare) to the first message back; then closed. */
async function firstAnswer(transport: Transport): Promise<number> {
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
  await transport.close();
  return ms;
}

async function startFigures(): Promise<void> {
  const options = { command: process.execPath, args: [EXAMPLE], env: {} };
  const sandbox = new ServerSandbox(options, PRESET as NonNullable<typeof PRESET>, () => undefined);
  const plain: number[] = [];
  const boxed: number[] = [];
  // One of each first, not counted: files and the bwrap binary in the page cache.
  await firstAnswer(new StdioClientTransport(options));
  await firstAnswer(new SandboxedStdioTransport(sandbox, options));
  for (let i = 0; i < STARTS; i++) {
    plain.push(await firstAnswer(new StdioClientTransport(options)));
    boxed.push(await firstAnswer(new SandboxedStdioTransport(sandbox, options)));
  }
  const p = median(plain);
  const b = median(boxed);
  console.log(
    `start, spawn to the first byte of the initialize answer, ${STARTS} of each, interleaved (medians):`,
  );
  console.log(
    `  plain ${p.toFixed(1)} ms, sandboxed ${b.toFixed(1)} ms: the sandbox adds ${(b - p).toFixed(1)} ms (target <= 50 ms)`,
  );
  console.log(
    `  (min plain ${Math.min(...plain).toFixed(1)} ms, sandboxed ${Math.min(...boxed).toFixed(1)} ms: ${(Math.min(...boxed) - Math.min(...plain)).toFixed(1)} ms)`,
  );
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
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average at start: ${load()}`);
await startFigures();
await hostStartFigures();
await callFigures();
console.log(`load average at the end: ${load()}`);
