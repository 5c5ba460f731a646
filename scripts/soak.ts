// `npm run soak`: leaks, overload and starvation, against the soak server (test/soak/server.ts) in its own process.
//   node dist/scripts/soak.js [--scale full|ci] [--only sessions,requests,overload,idle]
// full: 100,000 sessions opened and closed; 1,000,000 requests on one session; 10x capacity; 10,000 idle connections.
// ci:   the same scenarios, smaller, with the same checks (timing figures are printed, never checked).
import { type ChildProcess, spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const SCALES = {
  full: { sessions: 100_000, requests: 1_000_000, overloadSeconds: 8, idle: 10_000, slowReaders: 50 },
  ci: { sessions: 2_000, requests: 20_000, overloadSeconds: 2, idle: 1_000, slowReaders: 5 },
} as const;
type Scale = (typeof SCALES)[keyof typeof SCALES];

const ACCEPT = 'application/json, text/event-stream';
const REVISION = '2025-11-25';
const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  console.log(`    ${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

interface Soak {
  child: ChildProcess;
  url: URL;
  pool: Pool;
}

async function start(args: string[] = [], connections = 8): Promise<Soak> {
  const script = fileURLToPath(new URL('../test/soak/server.js', import.meta.url));
  const child = spawn(process.execPath, ['--expose-gc', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`soak server exited (${code})`)));
  });
  const url = new URL(line);
  return { child, url, pool: new Pool(url.origin, { connections, pipelining: 1 }) };
}

async function stop(soak: Soak): Promise<void> {
  await soak.pool.close();
  const exited = new Promise((resolve) => soak.child.once('exit', resolve));
  soak.child.kill('SIGTERM');
  await exited;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

async function post(soak: Soak, body: unknown, session?: string, pool = soak.pool): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT };
  if (session !== undefined) {
    headers['mcp-session-id'] = session;
    headers['mcp-protocol-version'] = REVISION;
  }
  const res = await pool.request({
    path: soak.url.pathname,
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'soak', version: '1' } },
};

async function openSession(soak: Soak): Promise<string> {
  const reply = await post(soak, INIT);
  const id = reply.headers['mcp-session-id'];
  if (reply.status !== 200 || typeof id !== 'string')
    throw new Error(`initialize: ${reply.status} ${reply.text}`);
  await post(soak, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
  return id;
}

async function closeSession(soak: Soak, id: string): Promise<void> {
  const res = await soak.pool.request({
    path: soak.url.pathname,
    method: 'DELETE',
    headers: { 'mcp-session-id': id, 'mcp-protocol-version': REVISION },
  });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`DELETE: ${res.statusCode}`);
}

let nextId = 1;
const call = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** The soak server's heap and RSS after two full GCs, in MiB (asked in a session of its own, closed after). */
async function memory(soak: Soak): Promise<{ heap: number; committed: number; rss: number }> {
  const id = await openSession(soak);
  const reply = await post(soak, call('memory', {}), id);
  await closeSession(soak, id);
  const json = JSON.parse(reply.text.startsWith('{') ? reply.text : reply.text.split('data: ')[1]!) as {
    result: { structuredContent: { heapUsed: number; heapTotal: number; rss: number } };
  };
  const { heapUsed, heapTotal, rss } = json.result.structuredContent;
  return { heap: heapUsed / 2 ** 20, committed: heapTotal / 2 ** 20, rss: rss / 2 ** 20 };
}

/** Runs `total` tasks with `concurrency` workers. */
async function inParallel(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

const mb = (n: number) => `${n.toFixed(1)} MiB`;
const pct = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
};

async function sessions(scale: Scale): Promise<void> {
  console.log(`  sessions: ${scale.sessions} opened and closed, 8 at a time, in ten stages`);
  const soak = await start();
  const churn = (n: number) => inParallel(n, 8, async () => closeSession(soak, await openSession(soak)));
  try {
    // Warm-up: the first tenth, so V8's heap has grown into its working size before the baseline is read.
    const stage = Math.floor(scale.sessions / 10);
    await churn(stage);
    const base = await memory(soak);
    const line = (label: string, m: { heap: number; committed: number; rss: number }) =>
      console.log(
        `    ${label.padEnd(18)} heap ${mb(m.heap)} (committed ${mb(m.committed)}), rss ${mb(m.rss)}`,
      );
    line(`after ${stage}`, base);
    const started = performance.now();
    let after = base;
    for (let i = 1; i <= 10; i++) {
      await churn(stage);
      if (i % 3 === 0 || i === 10) {
        after = await memory(soak);
        line(`after ${stage * (i + 1)}`, after);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`    ${((stage * 10) / seconds).toFixed(0)} sessions/s`);
    const rssGrowth = `${((after.rss / base.rss - 1) * 100).toFixed(1)}%`;
    // At CI scale the numbers are too small for a 5% bound on the RSS to mean anything; the heap, the leak signal,
    // is judged at both scales.
    if (scale === SCALES.full)
      check(
        after.rss <= base.rss * 1.05,
        `RSS within 5% of the baseline after ${stage * 10} more sessions (${rssGrowth})`,
      );
    else console.log(`    (RSS ${rssGrowth}: judged at full scale only)`);
    check(
      after.heap <= base.heap + 2,
      `heap back to the baseline (+${(after.heap - base.heap).toFixed(2)} MiB, bound 2)`,
    );
  } finally {
    await stop(soak);
  }
}

async function requests(scale: Scale): Promise<void> {
  console.log(`  requests: ${scale.requests} tools/call on one session, 8 in flight`);
  const soak = await start();
  try {
    const id = await openSession(soak);
    const tenth = Math.floor(scale.requests / 10);
    let bad = 0;
    const one = async () => {
      const reply = await post(soak, call('echo', { text: 'soak' }), id);
      if (reply.status !== 200) bad++;
    };
    await inParallel(tenth, 8, one);
    const base = await memory(soak);
    const started = performance.now();
    await inParallel(scale.requests - tenth, 8, one);
    const seconds = (performance.now() - started) / 1000;
    const after = await memory(soak);
    console.log(
      `    ${((scale.requests - tenth) / seconds).toFixed(0)} requests/s; heap ${mb(base.heap)} -> ${mb(after.heap)} from 10% to 100%`,
    );
    check(bad === 0, `every request answered 200 (${bad} not)`);
    check(
      after.heap <= base.heap + 1,
      `no heap growth (+${(after.heap - base.heap).toFixed(2)} MiB, bound 1)`,
    );
  } finally {
    await stop(soak);
  }
}

async function overload(scale: Scale): Promise<void> {
  console.log(`  overload: stateless echo at ten times the measured capacity for ${scale.overloadSeconds} s`);
  // Admission limits an operator would set for this small server: 64 requests in flight, 200 ms of loop delay.
  const soak = await start(['--stateless', '--max-in-flight', '64', '--max-delay-ms', '200'], 8);
  // Many clients, not one queue: a request never waits in the generator for a free connection.
  const flood = new Pool(soak.url.origin, { connections: 4096, pipelining: 1 });
  const body = () => call('echo_async', { text: 'x' });
  try {
    // Capacity: 8 closed-loop clients for 2 s.
    let served = 0;
    const until = performance.now() + 2000;
    await inParallel(8, 8, async () => {
      while (performance.now() < until) {
        await post(soak, body());
        served++;
      }
    });
    const capacity = served / 2;
    const rate = capacity * 10;
    console.log(`    capacity ${capacity.toFixed(0)} req/s; offering ${rate.toFixed(0)} req/s open loop`);
    const statuses = new Map<number, number>();
    const admitted: number[] = [];
    let errors = 0;
    let retryAfter = true;
    const pending: Promise<void>[] = [];
    const started = performance.now();
    let sent = 0;
    while (performance.now() - started < scale.overloadSeconds * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * rate);
      for (; sent < due; sent++) {
        const t0 = performance.now();
        pending.push(
          post(soak, body(), undefined, flood).then(
            (reply) => {
              statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
              if (reply.status === 200) admitted.push(performance.now() - t0);
              if (reply.status === 503 && reply.headers['retry-after'] === undefined) retryAfter = false;
            },
            () => {
              errors++;
            },
          ),
        );
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(pending);
    const shed = statuses.get(503) ?? 0;
    console.log(
      `    ${sent} offered: ${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}${errors ? `, ${errors} connection errors` : ''}; admitted p50 ${pct(admitted, 50).toFixed(0)} ms, p99 ${pct(admitted, 99).toFixed(0)} ms`,
    );
    check(errors === 0, 'every offered request answered (no connection dropped)');
    check(
      [...statuses.keys()].every((s) => s === 200 || s === 503 || s === 429),
      'answers are 200, or 503/429 shed',
    );
    check(shed > 0 && retryAfter, `the server shed load with 503 and Retry-After (${shed})`);
    // Recovery: once the flood stops, a normal load is served in full by clients that honour Retry-After (a few
    // retries at most: a machine busy with other work may still be shed now and then).
    let recovered = 0;
    let retried = 0;
    let refused = 0;
    await inParallel(2000, 8, async () => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const reply = await post(soak, body());
        if (reply.status === 200) {
          recovered++;
          return;
        }
        retried++;
        await new Promise((resolve) => setTimeout(resolve, 1000 * Number(reply.headers['retry-after'] ?? 1)));
      }
      refused++;
    });
    check(
      refused === 0,
      `after the flood every request is served (${recovered} ok, ${retried} retried once shed, ${refused} never)`,
    );
  } finally {
    await flood.close();
    await stop(soak);
  }
}

async function idle(scale: Scale): Promise<void> {
  console.log(
    `  idle: ${scale.idle} idle connections and ${scale.slowReaders} SSE readers that never read, under a flood of notifications`,
  );
  const soak = await start();
  const sockets: Socket[] = [];
  try {
    const port = Number(soak.url.port);
    const latencies = async () => {
      const id = await openSession(soak);
      const times: number[] = [];
      let bad = 0;
      await inParallel(2000, 8, async () => {
        const t0 = performance.now();
        const reply = await post(soak, call('echo', { text: 'x' }), id);
        times.push(performance.now() - t0);
        if (reply.status !== 200) bad++;
      });
      await closeSession(soak, id);
      return { times, bad };
    };
    const quiet = await latencies();
    for (let i = 0; i < scale.idle; i++) {
      const socket = connect({ host: '127.0.0.1', port });
      socket.on('error', () => {});
      sockets.push(socket);
      if (i % 500 === 499) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Slow readers: sessions subscribed to the big updates, each with a GET stream whose socket is never read.
    for (let i = 0; i < scale.slowReaders; i++) {
      const id = await openSession(soak);
      await post(
        soak,
        { jsonrpc: '2.0', id: nextId++, method: 'resources/subscribe', params: { uri: 'test://big/' } },
        id,
      );
      const socket = connect({ host: '127.0.0.1', port });
      socket.on('error', () => {});
      socket.write(
        `GET ${soak.url.pathname} HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${id}\r\nmcp-protocol-version: ${REVISION}\r\n\r\n`,
      );
      socket.pause();
      sockets.push(socket);
    }
    // The readers' streams fill (each is cut off past its 8 MiB backlog), then the other client is measured while
    // the stalled readers and idle connections are still there and updates keep coming.
    const flooder = await openSession(soak);
    const first = await post(soak, call('broadcast', { times: 700 }), flooder);
    const trickle = post(soak, call('broadcast', { times: 100 }), flooder);
    const busy = await latencies();
    const floodReply = await trickle;
    if (first.status !== 200) failures.push(`broadcast answered ${first.status}`);
    const mem = await memory(soak);
    console.log(
      `    echo p50/p99: quiet ${pct(quiet.times, 50).toFixed(1)}/${pct(quiet.times, 99).toFixed(1)} ms, with idle and slow readers ${pct(busy.times, 50).toFixed(1)}/${pct(busy.times, 99).toFixed(1)} ms; server rss ${mb(mem.rss)}`,
    );
    check(
      busy.bad === 0 && floodReply.status === 200,
      `every call of the other client answered (${busy.bad} not) while ${scale.slowReaders} readers stall`,
    );
  } finally {
    for (const socket of sockets) socket.destroy();
    await stop(soak);
  }
}

const SCENARIOS = { sessions, requests, overload, idle } as const;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { scale: { type: 'string', default: 'full' }, only: { type: 'string' } },
  });
  const scale = SCALES[values.scale as keyof typeof SCALES];
  if (scale === undefined) throw new Error('--scale full|ci');
  const only = values.only?.split(',') ?? Object.keys(SCENARIOS);
  console.log(`soak (${values.scale})`);
  for (const name of only) {
    const run = SCENARIOS[name as keyof typeof SCENARIOS];
    if (run === undefined) throw new Error(`no scenario ${name}`);
    await run(scale);
  }
  console.log(failures.length === 0 ? 'soak: all checks hold' : `soak: ${failures.length} check(s) failed`);
  if (failures.length > 0) process.exitCode = 1;
}

await main();
