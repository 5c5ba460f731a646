// Instructions per HTTP request of a real server process (node:http, the adapter, the endpoint, the server) under
// valgrind's callgrind, which do not depend on how busy the machine is (issues 23 and 24):
//
//   npm run -s build && node dist/bench/http-callgrind.js [--impl mcpkit,raw] [--setups stateless,json,sse,modern]
//     [--clients 1,8] [--warmup 12000] [--calls 4000] [--baseline DIR] [--keep]
//
// Per implementation, HTTP setup and client count: the bench server (`servers/*-http.js`, the same files and modes as
// `npm run bench`) runs under `valgrind --tool=callgrind --separate-threads=yes`; the load generator (`load/http.ts`,
// outside valgrind) opens the clients (one keep-alive connection each; initialize per client in the session setups),
// sends the warm-up calls, zeroes the counters (`callgrind_control -z`), sends the counted calls, dumps them
// (`callgrind_control -d`). Printed: main-thread instructions per call (the event loop: node:http, the adapter, the
// endpoint, the server, scavenges) and all threads' (GC helpers and the rest too). With 1 client every request
// arrives in a turn of the event loop of its own, so per-turn costs count in full; with 8 the slowed-down server
// finds several requests ready per turn. A `--baseline` checkout's mcpkit-http.ts must read BENCH_MAX_LOOP_DELAY_MS
// (from this commit on), or its server sheds load under valgrind.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { baselineImplementation, type HttpWorkloadMode, IMPLEMENTATIONS } from './implementations.js';
import { drive } from './load/driver.js';
import { HttpLoad, HttpServerProcess, type HttpStyle } from './load/http.js';

// mcpkit's bench server keeps its load shedder and its head and body time limits, with limits valgrind's slowness
// never reaches (on a loaded machine node answered 408 to the starved server at the 10 s head limit).
process.env.BENCH_MAX_LOOP_DELAY_MS = '600000';

type Setup = Exclude<HttpWorkloadMode, 'memory'>;
const STYLE: Record<Setup, HttpStyle> = {
  stateless: 'stateless',
  json: 'session',
  sse: 'session',
  modern: 'modern',
};

const { values } = parseArgs({
  options: {
    impl: { type: 'string', default: 'mcpkit,raw' },
    setups: { type: 'string', default: 'stateless,json,sse,modern' },
    clients: { type: 'string', default: '1,8' },
    // 12,000 calls: TurboFan is done compiling before the count (at 4,000 it still was, on every thread, and the main
    // thread's count moved by several thousand instructions between runs); 4,000 counted ones span several scavenges.
    warmup: { type: 'string', default: '12000' },
    calls: { type: 'string', default: '4000' },
    baseline: { type: 'string' },
    // Keeps each run's callgrind files (their folder printed on stderr) for `callgrind_annotate`.
    keep: { type: 'boolean', default: false },
  },
});
const list = (s: string) => s.split(',').map((x) => x.trim());
const warmup = Number(values.warmup);
const calls = Number(values.calls);
const implementations = [
  ...IMPLEMENTATIONS,
  ...(values.baseline === undefined ? [] : [baselineImplementation(values.baseline, 'before')]),
].filter((i) => list(values.impl).includes(i.name) || i.name === 'mcpkit-before');

/** Main-thread and all-threads instructions of the last dump of `pid` in `dir`. */
function lastDump(dir: string, pid: number): { main: number; all: number } {
  const files = readdirSync(dir).filter((f) => f.startsWith(`cg.${pid}.`));
  // Files are cg.<pid>.<dump>-<thread>; the counted phase is the highest dump number.
  const dumpOf = (f: string) => Number(f.slice(`cg.${pid}.`.length).split('-')[0]);
  const last = Math.max(...files.map(dumpOf));
  let main = 0;
  let all = 0;
  for (const f of files.filter((x) => dumpOf(x) === last)) {
    const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(dir, f), 'utf8'));
    const n = Number(totals?.[1] ?? 0);
    all += n;
    if (f.endsWith('-01')) main = n;
  }
  return { main, all };
}

async function measure(
  impl: (typeof implementations)[number],
  setup: Setup,
  clients: number,
): Promise<{ main: number; all: number }> {
  const http = impl.http;
  const mode = http?.modes[setup];
  if (!http || !mode) throw new Error(`${impl.name} has no ${setup} server`);
  const dir = mkdtempSync(join(tmpdir(), 'http-callgrind-'));
  const server = new HttpServerProcess(
    {
      command: 'valgrind',
      args: [
        '--tool=callgrind',
        '--separate-threads=yes',
        `--callgrind-out-file=${join(dir, 'cg.%p')}`,
        http.command.command,
        ...http.command.args,
      ],
    },
    mode,
  );
  const load = new HttpLoad(await server.ready(300_000), STYLE[setup]);
  try {
    await load.connect(clients);
    load.prepareEcho('hello world');
    await drive(load, {
      inFlight: clients,
      warmup: { ms: 600_000, maxCalls: warmup },
      measure: { ms: 600_000, maxCalls: calls },
      stallMs: 120_000,
      beforeMeasure: () => execFileSync('callgrind_control', ['-z', String(server.pid)], { stdio: 'ignore' }),
      afterMeasure: () => execFileSync('callgrind_control', ['-d', String(server.pid)], { stdio: 'ignore' }),
    });
    const totals = lastDump(dir, server.pid);
    return { main: totals.main / calls, all: totals.all / calls };
  } finally {
    await load.close();
    await server.stop(5000);
    if (values.keep)
      process.stderr.write(`${impl.name} ${setup} ${clients}: callgrind files kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `| implementation | setup | clients | main-thread instructions per call | all threads per call |`,
);
console.log('| --- | --- | ---: | ---: | ---: |');
for (const setup of list(values.setups) as Setup[]) {
  for (const clients of list(values.clients).map(Number)) {
    for (const impl of implementations) {
      if (!impl.http?.modes[setup]) continue;
      const r = await measure(impl, setup, clients);
      console.log(
        `| ${impl.name} | ${setup} | ${clients} | ${Math.round(r.main).toLocaleString('en')} | ${Math.round(r.all).toLocaleString('en')} |`,
      );
    }
  }
}
