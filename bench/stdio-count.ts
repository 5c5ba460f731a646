// Issue 24: the stdio rows in instructions, which do not depend on how busy the machine is. A stdio server process
// (mcpkit's bench server, or the raw baseline) runs under callgrind on real pipes and answers `tools/call echo`
// in the 2025 era (after `initialize`) or in the 2026-07-28 revision (the `_meta` envelope on every request, no
// handshake), 16 requests per write or one at a time; the run is made with two call counts and the difference of the
// server's main-thread instruction totals over the difference of the counts is the cost of one call (start-up,
// warm-up and compilation cancel out). The raw baseline is the bench's own (servers/raw-stdio.ts):
//
//   node dist/bench/stdio-count.js <mcpkit|raw|<dir of a built mcpkit>> <2025|2026> <p16|seq> [calls1] [calls2]
//   node dist/bench/stdio-count.js serve-raw            # the raw baseline server itself
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const RAW_SERVER = join(HERE, 'servers', 'raw-stdio.js');
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'mcpkit-bench', version: '1.0.0' },
};
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'mcpkit-bench', version: '1.0.0' },
  },
})}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`;

/** Runs one server under callgrind for `calls` calls; resolves with its main thread's instruction total. */
async function countOnce(server: string[], era: string, pattern: string, calls: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'stdio-count-'));
  // STDIO_COUNT_PROF=<dir>: a CPU profile of the server instead of callgrind (for where the instructions go).
  const prof = process.env.STDIO_COUNT_PROF;
  const args =
    prof === undefined
      ? [
          '--tool=callgrind',
          '--separate-threads=yes',
          `--callgrind-out-file=${join(dir, 'cg.out')}`,
          process.execPath,
          ...server,
        ]
      : ['--cpu-prof', `--cpu-prof-dir=${prof}`, ...server];
  const child = spawn(prof === undefined ? 'valgrind' : process.execPath, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const meta = era === '2026' ? `,"_meta":${JSON.stringify(MODERN_META)}` : '';
  const request = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello world"}${meta}}}\n`;
  let lines = 0;
  let waiting: { n: number; resolve: () => void } | undefined;
  let tail = '';
  child.stdout.on('data', (c: Buffer) => {
    const text = tail + c.toString();
    const parts = text.split('\n');
    tail = parts.pop() ?? '';
    for (const line of parts) {
      if (line.includes('"error"')) throw new Error(`error reply: ${line}`);
      lines++;
    }
    if (waiting && lines >= waiting.n) {
      const w = waiting;
      waiting = undefined;
      w.resolve();
    }
  });
  const until = (n: number) =>
    new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no reply: ${stderr}`)), 600_000);
      waiting = {
        n,
        resolve: () => {
          clearTimeout(timer);
          res();
        },
      };
    });
  let expect = 0;
  if (era === '2025') {
    child.stdin.write(INITIALIZE);
    expect = 1;
    await until(expect);
  }
  const batch = pattern === 'p16' ? 16 : 1;
  let id = 1;
  for (let done = 0; done < calls; done += batch) {
    let text = '';
    for (let i = 0; i < batch; i++) text += request(id++);
    child.stdin.write(text);
    expect += batch;
    await until(expect);
  }
  child.stdin.end();
  await exited;
  if (prof !== undefined) {
    rmSync(dir, { recursive: true, force: true });
    return 0;
  }
  const out = readdirSync(dir).find((f) => f.endsWith('-01'));
  if (out === undefined) throw new Error(`no callgrind output in ${dir}: ${stderr}`);
  const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, out), 'utf8'));
  // STDIO_COUNT_KEEP=1 keeps the callgrind output (for callgrind_annotate) and prints where it is.
  if (process.env.STDIO_COUNT_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
  else console.log(`callgrind output: ${join(dir, out)}`);
  if (!total) throw new Error('no total in the callgrind output');
  return Number(total[1]);
}

function serverOf(impl: string): string[] {
  if (impl === 'raw') return [RAW_SERVER];
  const root = impl === 'mcpkit' ? resolve(HERE, '..', '..') : resolve(impl);
  return [join(root, 'dist', 'bench', 'servers', 'mcpkit-stdio.js')];
}

async function main(): Promise<void> {
  const [impl = 'mcpkit', era = '2025', pattern = 'p16', a = '2000', b = '6000'] = process.argv.slice(2);
  if (impl === 'serve-raw') {
    await import(pathToFileURL(RAW_SERVER).href);
    return;
  }
  const n1 = Number(a);
  const n2 = Number(b);
  const server = serverOf(impl);
  const i1 = await countOnce(server, era, pattern, n1);
  const i2 = await countOnce(server, era, pattern, n2);
  console.log(
    `${impl} ${era} ${pattern}: ${Math.round((i2 - i1) / (n2 - n1))} instructions per call (${i1} at ${n1}, ${i2} at ${n2})`,
  );
}

await main();
