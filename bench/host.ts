// The host's figures (issue 10), mcpkit only:
//   node dist/bench/host.js [--servers 10] [--calls 2000]
// 1. Start: a host with N stdio servers (our example server) ready, against the slowest of N hosts with one
//    server each started one after another (the parallel start should cost about the slowest single, not the sum).
//    The floor: the same N server processes started bare (no host: spawn, write one `initialize`, read its answer),
//    in parallel and alone, so what the host adds to the start is the difference, not a guess.
// 2. Overhead, in-process (our example server over the in-memory transport, through the host's `transportFor`):
//    host.callTool (registry lookup, approval with policy `allow`, activity log) against a direct client.callTool
//    on the same connection, interleaved in blocks, medians per call; the difference is what the host adds.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createEverythingServer } from '../examples/everything/everything.js';
import { Host, type ServerConfig } from '../src/host.js';
import { createLinkedTransports } from '../src/index.js';
import { ROOT } from './implementations.js';

const { values } = parseArgs({
  options: { servers: { type: 'string', default: '10' }, calls: { type: 'string', default: '2000' } },
});
const SERVERS = Math.max(1, Math.min(50, Number(values.servers)));
const CALLS = Math.max(100, Math.min(100_000, Number(values.calls)));
const EXAMPLE = join(ROOT, 'dist', 'examples', 'everything', 'server.js');

function server(name: string): ServerConfig {
  return {
    name,
    transport: { type: 'stdio', command: process.execPath, args: [EXAMPLE], env: {}, namedEnv: [] },
    disabled: false,
    trusted: false,
    source: { file: 'bench', format: 'mcpkit' },
  };
}

async function timedStart(configs: ServerConfig[]): Promise<{ ms: number; host: Host }> {
  const host = new Host(configs, { defaultApproval: 'allow' });
  const t0 = performance.now();
  const states = await host.start();
  const ms = performance.now() - t0;
  const bad = states.filter((s) => s.state !== 'ready');
  if (bad.length > 0) throw new Error(`not ready: ${bad.map((s) => `${s.name} ${s.reason}`).join('; ')}`);
  return { ms, host };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function startFigures(): Promise<void> {
  const singles: number[] = [];
  for (let i = 0; i < SERVERS; i++) {
    const { ms, host } = await timedStart([server(`s${i}`)]);
    singles.push(ms);
    await host.close();
  }
  const { ms, host } = await timedStart(Array.from({ length: SERVERS }, (_, i) => server(`s${i}`)));
  await host.close();
  const slowest = Math.max(...singles);
  const sum = singles.reduce((a, b) => a + b, 0);
  console.log(`start, ${SERVERS} stdio servers in parallel: ${ms.toFixed(0)} ms`);
  console.log(
    `  singles one after another: slowest ${slowest.toFixed(0)} ms, median ${median(singles).toFixed(0)} ms, sum ${sum.toFixed(0)} ms`,
  );
  console.log(
    `  parallel / slowest single: ${(ms / slowest).toFixed(2)}x; parallel / sum: ${(ms / sum).toFixed(2)}x`,
  );
}

/** One bare server process: spawned, sent `initialize`, timed to its answer's first byte, then ended. */
function bareStart(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [EXAMPLE], { stdio: ['pipe', 'pipe', 'ignore'] });
    child.once('error', reject);
    child.stdout.once('data', () => {
      const ms = performance.now() - t0;
      child.kill();
      resolve(ms);
    });
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'bench', version: '1' },
        },
      })}\n`,
    );
  });
}

async function floorFigures(): Promise<void> {
  const alone: number[] = [];
  for (let i = 0; i < SERVERS; i++) alone.push(await bareStart());
  const t0 = performance.now();
  await Promise.all(Array.from({ length: SERVERS }, () => bareStart()));
  const parallel = performance.now() - t0;
  console.log(
    `floor: ${SERVERS} bare server processes (spawn, initialize, first byte of the answer), no host:`,
  );
  console.log(
    `  in parallel ${parallel.toFixed(0)} ms; alone one after another: slowest ${Math.max(...alone).toFixed(0)} ms, median ${median(alone).toFixed(0)} ms`,
  );
}

async function overheadFigures(): Promise<void> {
  const inProcess = createEverythingServer();
  const host = new Host([server('one')], {
    defaultApproval: 'allow',
    transportFor: () => {
      const [clientSide, serverSide] = createLinkedTransports();
      void inProcess.connect(serverSide);
      return clientSide;
    },
  });
  await host.start();
  const client = host.clientOf('one');
  if (!client) throw new Error('no client');
  const args = { text: 'x' };
  for (let i = 0; i < 500; i++) {
    await client.callTool('echo', args);
    await host.callTool('one__echo', args);
  }
  const direct: number[] = [];
  const hosted: number[] = [];
  const BLOCK = 50;
  for (let done = 0; done < CALLS; done += BLOCK) {
    let t0 = performance.now();
    for (let i = 0; i < BLOCK; i++) await client.callTool('echo', args);
    direct.push(((performance.now() - t0) * 1000) / BLOCK);
    t0 = performance.now();
    for (let i = 0; i < BLOCK; i++) await host.callTool('one__echo', args);
    hosted.push(((performance.now() - t0) * 1000) / BLOCK);
  }
  await host.close();
  const d = median(direct);
  const h = median(hosted);
  console.log(`tool call in-process, ${CALLS} each, interleaved blocks of ${BLOCK}:`);
  console.log(
    `  direct client.callTool ${d.toFixed(1)} us, host.callTool ${h.toFixed(1)} us, host overhead ${(h - d).toFixed(1)} us (target <= 30 us)`,
  );
}

console.log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
await floorFigures();
await startFigures();
await overheadFigures();
console.log(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
