// Issue 24: cold start in instructions, which do not depend on how busy the machine is. The whole process (every
// thread: V8 compiles on helper threads) runs under callgrind from spawn to its first answer over stdio: the zod bench
// server (`servers/mcpkit-stdio.ts`) of this checkout or of another built one until it answers `initialize`, and the
// floors in the same run: `node -e 0` until it exits and `import('zod')` alone. A server gets SIGTERM once it has
// answered (callgrind writes its totals on the way out). Each row is the median of `--runs` runs (default 3):
//
//   node dist/bench/cold-start-count.js [--runs N] [--node PATH] [--cache] [row...]
//
// A row is `floor`, `zod`, `mcpkit` (this checkout) or the folder of a built mcpkit checkout; `http:mcpkit` or
// `http:<folder>` is the same server over HTTP (`servers/mcpkit-http.ts`, `serve()` from mcpkit/node, its defaults,
// no legacy endpoint) until it answers an `initialize` POSTed once it printed its port. `--node` runs another
// Node binary; `--cache` gives every run the same fresh NODE_COMPILE_CACHE folder after one unmeasured run has filled
// it (Node 22.1+), so the rows read as a warm compile cache (stdio rows: a priming run ends its input, and Node
// writes the cache as it exits).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cold', version: '1' } },
})}\n`;

interface Options {
  node: string;
  env: NodeJS.ProcessEnv;
}

/** One process under callgrind; the total instructions of all its threads (`prime`: the run that fills the cache). */
async function countOnce(
  args: string[],
  answers: boolean | 'http',
  options: Options,
  prime = false,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-cold-'));
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', `--callgrind-out-file=${join(dir, 'out')}`, options.node, ...args],
    { stdio: ['pipe', 'pipe', 'pipe'], env: options.env },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  if (answers === 'http') {
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no answer: ${stderr}`)), 900_000);
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const port = /listening (\d+)/.exec(out)?.[1];
        if (port === undefined) return;
        out = '';
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        fetch(`http://127.0.0.1:${port}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: INITIALIZE,
        })
          .then(async (r) => {
            const text = await r.text();
            clearTimeout(timer);
            if (!text.includes('"result"')) rej(new Error(`not a result: ${r.status} ${text}`));
            else res();
          })
          .catch(rej);
      });
    });
    child.kill('SIGTERM');
  } else if (answers) {
    let out = '';
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no answer: ${stderr}`)), 900_000);
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (!out.includes('\n')) return;
        clearTimeout(timer);
        if (!out.includes('"result"')) rej(new Error(`not a result: ${out}`));
        else res();
      });
      child.stdin.write(INITIALIZE);
    });
    // A priming run ends its input instead: the server exits on its own, and Node writes the compile cache on exit.
    if (prime) child.stdin.end();
    else child.kill('SIGTERM');
  } else child.stdin.end();
  await exited;
  const file = readdirSync(dir).find((f) => f.startsWith('out'));
  const text = file === undefined ? '' : readFileSync(join(dir, file), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  const total = /^(?:summary|totals): (\d+)/m.exec(text);
  if (!total) throw new Error(`no callgrind total: ${stderr}`);
  return Number(total[1]);
}

function rowArgs(row: string): { args: string[]; answers: boolean | 'http' } {
  if (row === 'floor') return { args: ['-e', '0'], answers: false };
  if (row === 'zod') return { args: ['--input-type=module', '-e', "await import('zod')"], answers: false };
  if (row.startsWith('http:')) {
    const dir = row.slice('http:'.length);
    const root = dir === 'mcpkit' ? resolve(HERE, '..', '..') : resolve(dir);
    return {
      args: [join(root, 'dist', 'bench', 'servers', 'mcpkit-http.js'), '0', 'default'],
      answers: 'http',
    };
  }
  const root = row === 'mcpkit' ? resolve(HERE, '..', '..') : resolve(row);
  return { args: [join(root, 'dist', 'bench', 'servers', 'mcpkit-stdio.js')], answers: true };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let runs = 3;
  let node = process.execPath;
  let cache = false;
  const rows: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') runs = Number(argv[++i]);
    else if (a === '--node') node = argv[++i] ?? node;
    else if (a === '--cache') cache = true;
    else if (a !== undefined) rows.push(a);
  }
  if (rows.length === 0) rows.push('floor', 'zod', 'mcpkit');
  const env = { ...process.env };
  delete env.NODE_COMPILE_CACHE;
  const cacheDir = cache ? mkdtempSync(join(tmpdir(), 'mcpkit-cold-cache-')) : undefined;
  if (cacheDir !== undefined) env.NODE_COMPILE_CACHE = cacheDir;
  const options = { node, env };
  let floor: number | undefined;
  for (const row of rows) {
    const { args, answers } = rowArgs(row);
    if (cacheDir !== undefined) await countOnce(args, answers, options, true);
    const counts: number[] = [];
    for (let i = 0; i < runs; i++) counts.push(await countOnce(args, answers, options));
    counts.sort((x, y) => x - y);
    const median = counts[Math.floor(counts.length / 2)] ?? 0;
    if (row === 'floor') floor = median;
    const above =
      floor === undefined || row === 'floor' ? '' : ` (+${((median - floor) / 1e9).toFixed(3)} G)`;
    console.log(
      `${row}: ${(median / 1e9).toFixed(3)} G${above}  [${counts.map((c) => (c / 1e9).toFixed(3)).join(' ')}]`,
    );
  }
  if (cacheDir !== undefined) rmSync(cacheDir, { recursive: true, force: true });
}

await main();
