// Workloads 3 and 4 of issue 5 over Streamable HTTP, each run against a fresh server process on 127.0.0.1:
// `tools/call echo` (11 B) from 1, 8 or 32 keep-alive clients in four server setups (stateless 2025, sessions with
// JSON replies, sessions with SSE replies, the stateless 2026-07-28 revision), and the memory of 1,000 idle
// initialized sessions. Server CPU comes from /proc/<pid>/stat around the timed phase; memory from the server's own
// process.memoryUsage() after forced collections.
import type { Profile } from '../config.js';
import type { HttpWorkloadMode, Implementation } from '../implementations.js';
import { onCpus, unpinned } from '../lib/affinity.js';
import { quantile } from '../lib/stats.js';
import { drive } from '../load/driver.js';
import { HttpLoad, HttpServerProcess, type HttpStyle, openSessions } from '../load/http.js';
import type { HttpMode } from '../servers/http-common.js';
import type { Metric, Workload } from './types.js';

const READY_TIMEOUT_MS = 15_000;
const TEXT = 'hello world'; // 11 bytes

/** Concurrent keep-alive clients of the call workloads. */
export const HTTP_CLIENTS: readonly number[] = [1, 8, 32];

/** Clients of the call workloads also run with nothing pinned (`-unpinned`): the 8 of issue 24's independent runs. */
export const HTTP_UNPINNED_CLIENTS: readonly number[] = [8];

/**
 * How the load meets the server: `pinned` (the load generator on CPU 0, the server on the others, as every workload
 * by default), or `unpinned` (nothing pinned: closed-loop clients and the server scheduled anywhere, as an independent
 * harness on a machine of its own runs them; the server then finds fewer requests ready per turn of its event loop,
 * so per-turn costs weigh more, and the load generator no longer caps the fastest server alone on its core).
 */
export type HttpPattern = 'pinned' | 'unpinned';

const STYLE: Record<Exclude<HttpWorkloadMode, 'memory'>, HttpStyle> = {
  stateless: 'stateless',
  json: 'session',
  sse: 'session',
  modern: 'modern',
};

const TITLE: Record<Exclude<HttpWorkloadMode, 'memory'>, string> = {
  stateless: 'Streamable HTTP tools/call, 11 B, stateless (no sessions, JSON replies)',
  json: 'Streamable HTTP tools/call, 11 B, a session per client, JSON replies',
  sse: 'Streamable HTTP tools/call, 11 B, a session per client, SSE replies',
  modern: 'Streamable HTTP tools/call, 11 B, stateless revision 2026-07-28 (`_meta` envelope, Mcp-* headers)',
};

const CALL_METRICS: readonly Metric[] = [
  { key: 'calls_per_s', label: 'calls/s', unit: 'calls/s', better: 'higher', digits: 0 },
  { key: 'p50_us', label: 'p50 latency', unit: 'µs', better: 'lower', digits: 0 },
  { key: 'p99_us', label: 'p99 latency', unit: 'µs', better: 'lower', digits: 0 },
  { key: 'cpu_us_per_call', label: 'server CPU per call', unit: 'µs', better: 'lower', digits: 1 },
  { key: 'peak_rss_mib', label: 'server peak RSS', unit: 'MiB', better: 'lower', digits: 1 },
  {
    key: 'loadgen_us_per_call',
    label: 'load generator CPU per call',
    unit: 'µs',
    better: 'lower',
    digits: 1,
    ratios: false,
  },
];

/** Spawns `impl`'s HTTP server in its mode for `mode` (taskset onto the server CPUs); stops it afterwards. */
async function withServer<T>(
  impl: Implementation,
  mode: HttpWorkloadMode,
  body: (server: HttpServerProcess, origin: string) => Promise<T>,
): Promise<T> {
  const http = impl.http;
  const serverMode = http?.modes[mode];
  if (!http || !serverMode) throw new Error(`${impl.name} has no HTTP server for ${mode}`);
  const server = new HttpServerProcess(onCpus(http.command, 'server'), serverMode);
  try {
    return await body(server, await server.ready(READY_TIMEOUT_MS));
  } catch (error) {
    const stderr = server.stderr.trim();
    throw stderr === '' ? error : new Error(`${(error as Error).message}; server stderr: ${stderr}`);
  } finally {
    await server.stop();
  }
}

/**
 * Workload 3: `tools/call echo` from `clients` keep-alive clients, in one server setup; `unpinned` runs it with
 * nothing pinned (id suffix `-unpinned`).
 */
export function httpCalls(
  mode: Exclude<HttpWorkloadMode, 'memory'>,
  clients: number,
  pattern: HttpPattern = 'pinned',
): Workload {
  const run = (impl: Implementation, profile: Profile) =>
    withServer(impl, mode, async (server, origin) => {
      const load = new HttpLoad(origin, STYLE[mode]);
      try {
        await load.connect(clients);
        load.prepareEcho(TEXT);
        let cpu0 = 0;
        let cpu1 = 0;
        let own0 = process.cpuUsage();
        let own = { user: 0, system: 0 };
        const result = await drive(load, {
          inFlight: clients,
          warmup: profile.http.warmup,
          measure: profile.http.measure,
          stallMs: profile.stallMs,
          beforeMeasure: () => {
            cpu0 = server.cpuMs();
            own0 = process.cpuUsage();
          },
          afterMeasure: () => {
            cpu1 = server.cpuMs();
            own = process.cpuUsage(own0);
          },
        });
        const calls = result.calls;
        return {
          calls_per_s: calls / (result.elapsedNs / 1e9),
          p50_us: quantile(result.latenciesNs, 0.5) / 1e3,
          p99_us: quantile(result.latenciesNs, 0.99) / 1e3,
          cpu_us_per_call: ((cpu1 - cpu0) * 1e3) / calls,
          peak_rss_mib: server.peakRssKiB() / 1024,
          loadgen_us_per_call: (own.user + own.system) / calls,
        };
      } finally {
        await load.close();
      }
    });
  const free = pattern === 'unpinned';
  return {
    id: `http-${mode}-${clients}${free ? '-unpinned' : ''}`,
    group: 'http',
    title: `${TITLE[mode]}, ${clients} client${clients === 1 ? '' : 's'}${free ? ', nothing pinned' : ''}`,
    metrics: CALL_METRICS,
    rounds: (profile) => profile.httpRounds,
    applies: (impl) => impl.http?.modes[mode] !== undefined,
    run: free ? (impl, profile) => unpinned(() => run(impl, profile)) : run,
  };
}

/** Sessions opened (and left idle) before the first reading, so lazily loaded code is not counted. */
const WARM_SESSIONS = 50;
/** Calls on 8 of them before the first reading: V8 sizes its young generation under this traffic, not later. */
const WARM_CALLS = { ms: 2000, maxCalls: 5000 };
const MB = 1e6;

/**
 * Workload 4: memory per 1,000 idle initialized sessions (initialize + notifications/initialized each). After 50
 * warm-up sessions and up to 5,000 `tools/call` on 8 of them (so the V8 heap has grown its young generation before
 * the baseline; otherwise the first thousand sessions pay for up to ~30 MB of it), a reading; then 2 × 1,000 more
 * sessions and a second reading. Per-1,000 numbers are half the difference.
 */
export const httpMemory: Workload = {
  id: 'http-memory',
  group: 'http',
  title: 'Streamable HTTP: memory of idle initialized sessions',
  metrics: [
    {
      key: 'rss_mb_per_1000',
      label: 'RSS growth per 1,000 sessions',
      unit: 'MB',
      better: 'lower',
      digits: 1,
    },
    {
      key: 'heap_mb_per_1000',
      label: 'heapUsed growth per 1,000 sessions',
      unit: 'MB',
      better: 'lower',
      digits: 2,
    },
    { key: 'rss_base_mib', label: 'server RSS after the warm-up', unit: 'MiB', better: 'lower', digits: 1 },
    {
      key: 'rss_after_mib',
      label: 'server RSS with all sessions open',
      unit: 'MiB',
      better: 'lower',
      digits: 1,
    },
    { key: 'sessions_per_s', label: 'sessions opened per second', unit: '/s', better: 'higher', digits: 0 },
  ],
  rounds: (profile) => profile.httpRounds,
  applies: (impl) => impl.http?.modes.memory !== undefined,
  run: (impl, profile) =>
    withServer(impl, 'memory', async (server, origin) => {
      const n = profile.idleSessions;
      await openSessions(origin, WARM_SESSIONS, 4);
      const load = new HttpLoad(origin, 'session');
      try {
        await load.connect(8);
        load.prepareEcho(TEXT);
        await drive(load, {
          inFlight: 8,
          warmup: { ms: 0, maxCalls: 1 },
          measure: WARM_CALLS,
          stallMs: profile.stallMs,
        });
      } finally {
        await load.close();
      }
      const m0 = await server.memory(READY_TIMEOUT_MS);
      if (!m0.gc) throw new Error('the server was not started with --expose-gc');
      const t0 = performance.now();
      await openSessions(origin, n, 8);
      const seconds = (performance.now() - t0) / 1000;
      await openSessions(origin, n, 8);
      const m2 = await server.memory(READY_TIMEOUT_MS);
      const per1000 = 1000 / (2 * n);
      return {
        rss_mb_per_1000: ((m2.rss - m0.rss) / MB) * per1000,
        heap_mb_per_1000: ((m2.heapUsed - m0.heapUsed) / MB) * per1000,
        rss_base_mib: m0.rss / 2 ** 20,
        rss_after_mib: m2.rss / 2 ** 20,
        sessions_per_s: n / seconds,
      };
    }),
};

/** Measured phases per setup in one run of the auth workload, alternating (plain, auth, plain, auth, ...). */
const AUTH_PHASES = 3;

/**
 * Two servers of `impl` running side by side on the server CPUs, `base` and `other`, each loaded by `clients`
 * keep-alive clients; their measured phases alternate (`AUTH_PHASES` each) so both see the same machine. Calls/s
 * and server CPU per call of each.
 */
async function alternate(
  impl: Implementation,
  profile: Profile,
  clients: number,
  base: HttpMode,
  other: HttpMode,
  otherHeaders: (server: HttpServerProcess) => Promise<Record<string, string>>,
): Promise<{ base: PairTotals; other: PairTotals }> {
  const http = impl.http;
  if (!http) throw new Error(`${impl.name} has no HTTP server`);
  const command = onCpus(http.command, 'server');
  const baseServer = new HttpServerProcess(command, base);
  const otherServer = new HttpServerProcess(command, other);
  const headers = otherHeaders(otherServer);
  headers.catch(() => {}); // a server that fails first is reported by ready() below
  const loads: HttpLoad[] = [];
  try {
    const baseLoad = new HttpLoad(await baseServer.ready(READY_TIMEOUT_MS), 'stateless');
    loads.push(baseLoad);
    const otherOrigin = await otherServer.ready(READY_TIMEOUT_MS);
    const otherLoad = new HttpLoad(otherOrigin, 'stateless', await headers);
    loads.push(otherLoad);
    const totals = { base: { calls: 0, ns: 0, cpuMs: 0 }, other: { calls: 0, ns: 0, cpuMs: 0 } };
    for (const load of loads) {
      await load.connect(clients);
      load.prepareEcho(TEXT);
    }
    for (let phase = 0; phase < AUTH_PHASES * 2; phase++) {
      const key = phase % 2 === 0 ? 'base' : 'other';
      const load = key === 'base' ? baseLoad : otherLoad;
      const server = key === 'base' ? baseServer : otherServer;
      let cpu0 = 0;
      let cpu1 = 0;
      const result = await drive(load, {
        inFlight: clients,
        warmup: profile.http.warmup,
        measure: profile.http.measure,
        stallMs: profile.stallMs,
        firstId: phase * 1_000_000 + 1,
        beforeMeasure: () => {
          cpu0 = server.cpuMs();
        },
        afterMeasure: () => {
          cpu1 = server.cpuMs();
        },
      });
      totals[key].calls += result.calls;
      totals[key].ns += result.elapsedNs;
      totals[key].cpuMs += cpu1 - cpu0;
    }
    return totals;
  } catch (error) {
    const stderr = `${baseServer.stderr.trim()} ${otherServer.stderr.trim()}`.trim();
    throw stderr === '' ? error : new Error(`${(error as Error).message}; server stderr: ${stderr}`);
  } finally {
    await Promise.all(loads.map((l) => l.close()));
    await Promise.all([baseServer.stop(), otherServer.stop()]);
  }
}

interface PairTotals {
  calls: number;
  ns: number;
  cpuMs: number;
}

const rate = (t: PairTotals) => t.calls / (t.ns / 1e9);
const cpuPerCall = (t: PairTotals) => (t.cpuMs * 1e3) / t.calls;

/** A metric of a paired workload (no ratios between implementations: only mcpkit runs it). */
function pairMetric(
  key: string,
  label: string,
  unit: string,
  better: 'higher' | 'lower',
  digits: number,
): Metric {
  return { key, label, unit, better, digits, ratios: false };
}

/**
 * Issue 9's figure: stateless `tools/call echo` from `clients` keep-alive clients with a JWT bearer token on every
 * request (checked by `jwtVerifier` against an issuer's JWKS; the verified token is cached), beside the same server
 * without auth, in one run: both servers run side by side and their measured phases alternate, so machine noise
 * hits both alike. mcpkit only; the ratio is auth / plain throughput (target >= 0.8).
 */
export function httpAuthCalls(clients: number): Workload {
  return {
    id: `http-stateless-auth-${clients}`,
    group: 'http',
    title: `Streamable HTTP tools/call, 11 B, stateless, ${clients} clients: JWT bearer auth on every request vs none`,
    metrics: [
      {
        key: 'auth_calls_per_s',
        label: 'calls/s with JWT auth',
        unit: 'calls/s',
        better: 'higher',
        digits: 0,
        ratios: false,
      },
      {
        key: 'plain_calls_per_s',
        label: 'calls/s without auth',
        unit: 'calls/s',
        better: 'higher',
        digits: 0,
        ratios: false,
      },
      {
        key: 'auth_ratio',
        label: 'auth / no auth throughput',
        unit: '×',
        better: 'higher',
        digits: 3,
        ratios: false,
      },
      {
        key: 'auth_cpu_us_per_call',
        label: 'server CPU per call with auth',
        unit: 'µs',
        better: 'lower',
        digits: 1,
        ratios: false,
      },
      {
        key: 'plain_cpu_us_per_call',
        label: 'server CPU per call without auth',
        unit: 'µs',
        better: 'lower',
        digits: 1,
        ratios: false,
      },
    ],
    rounds: (profile) => profile.httpRounds,
    applies: (impl) => impl.name === 'mcpkit',
    run: async (impl, profile) => {
      const totals = await alternate(
        impl,
        profile,
        clients,
        'stateless',
        'stateless-auth',
        async (server) => ({
          authorization: `Bearer ${await server.line('token ', READY_TIMEOUT_MS)}`,
        }),
      );
      return {
        auth_calls_per_s: rate(totals.other),
        plain_calls_per_s: rate(totals.base),
        auth_ratio: rate(totals.other) / rate(totals.base),
        auth_cpu_us_per_call: cpuPerCall(totals.other),
        plain_cpu_us_per_call: cpuPerCall(totals.base),
      };
    },
  };
}

/**
 * Issue 13: `http-stateless-8` with the server's guards on (a rate limit per client on tool calls that the load never
 * reaches, access rules, an audit record of every call to a callback) beside the same server without them, both
 * running, their measured phases alternating: calls/s of each and the ratio guarded / plain (target ≥ 0.85).
 */
export function httpGuardCalls(clients: number): Workload {
  return {
    id: `http-stateless-guards-${clients}`,
    group: 'http',
    title: `Streamable HTTP tools/call, 11 B, stateless, ${clients} clients: rate limit, access rules and audit on vs none`,
    metrics: [
      pairMetric('guarded_calls_per_s', 'calls/s with the guards', 'calls/s', 'higher', 0),
      pairMetric('plain_calls_per_s', 'calls/s without', 'calls/s', 'higher', 0),
      pairMetric('guard_ratio', 'guarded / plain throughput', '×', 'higher', 3),
      pairMetric('guarded_cpu_us_per_call', 'server CPU per call with the guards', 'µs', 'lower', 1),
      pairMetric('plain_cpu_us_per_call', 'server CPU per call without', 'µs', 'lower', 1),
    ],
    rounds: (profile) => profile.httpRounds,
    applies: (impl) => impl.name === 'mcpkit',
    run: async (impl, profile) => {
      const totals = await alternate(
        impl,
        profile,
        clients,
        'stateless',
        'stateless-guards',
        async () => ({}),
      );
      return {
        guarded_calls_per_s: rate(totals.other),
        plain_calls_per_s: rate(totals.base),
        guard_ratio: rate(totals.other) / rate(totals.base),
        guarded_cpu_us_per_call: cpuPerCall(totals.other),
        plain_cpu_us_per_call: cpuPerCall(totals.base),
      };
    },
  };
}
