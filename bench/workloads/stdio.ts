// Workloads 1 and 2: `tools/call echo` over stdio against a fresh server process per run, driven by the raw
// JSON-RPC load generator (in the 2025 era, and for workload 1 in the 2026-07-28 revision too). Server CPU comes from /proc/<pid>/stat around the timed phase; peak RSS is VmHWM.
import type { Profile, StdioBounds } from '../config.js';
import { onCpus, unpinned } from '../lib/affinity.js';
import { quantile } from '../lib/stats.js';
import { drive } from '../load/driver.js';
import { type StdioEra, StdioServer } from '../load/stdio.js';
import type { Metric, Workload } from './types.js';

const INIT_TIMEOUT_MS = 15_000;

interface Measured {
  calls: number;
  seconds: number;
  p50Ns: number;
  p99Ns: number;
  serverCpuMs: number;
  loadgenCpuMs: number;
  peakRssKiB: number;
  /** Read and write system calls of the server in the timed phase. */
  reads: number;
  writes: number;
}

/** The figures of a calls workload (CALL_METRICS) from one measurement. */
function callFigures(m: Measured): Record<string, number> {
  return {
    calls_per_s: m.calls / m.seconds,
    p50_us: m.p50Ns / 1e3,
    p99_us: m.p99Ns / 1e3,
    cpu_us_per_call: (m.serverCpuMs * 1e3) / m.calls,
    peak_rss_mib: m.peakRssKiB / 1024,
    loadgen_us_per_call: (m.loadgenCpuMs * 1e3) / m.calls,
    reads_per_call: m.reads / m.calls,
    requests_per_read: m.reads > 0 ? m.calls / m.reads : 0,
    writes_per_call: m.writes / m.calls,
  };
}

/**
 * Spawns the server, initializes it (in the 2026-07-28 revision: one first call), drives `echo(text)` with
 * `inFlight` calls outstanding, stops it by its pid.
 */
async function measure(
  command: import('../load/stdio.js').ServerCommand,
  text: string,
  inFlight: number,
  bounds: StdioBounds,
  profile: Profile,
  next: 'reply' | 'continuation' | 'turn' = 'reply',
  era: StdioEra = 'legacy',
): Promise<Measured> {
  const server = new StdioServer(onCpus(command, 'server'), era);
  try {
    await server.initialize(INIT_TIMEOUT_MS);
    server.prepareEcho(text);
    let cpu0 = 0;
    let cpu1 = 0;
    let io0 = { reads: 0, writes: 0 };
    let io1 = { reads: 0, writes: 0 };
    let own0 = process.cpuUsage();
    let own = { user: 0, system: 0 };
    const result = await drive(server, {
      inFlight,
      next,
      warmup: bounds.warmup,
      measure: bounds.measure,
      stallMs: profile.stallMs,
      beforeMeasure: () => {
        cpu0 = server.cpuMs();
        io0 = server.syscalls();
        own0 = process.cpuUsage();
      },
      afterMeasure: () => {
        cpu1 = server.cpuMs();
        io1 = server.syscalls();
        own = process.cpuUsage(own0);
      },
    });
    const peakRssKiB = server.peakRssKiB();
    return {
      calls: result.calls,
      seconds: result.elapsedNs / 1e9,
      p50Ns: quantile(result.latenciesNs, 0.5),
      p99Ns: quantile(result.latenciesNs, 0.99),
      serverCpuMs: cpu1 - cpu0,
      loadgenCpuMs: (own.user + own.system) / 1e3,
      peakRssKiB,
      reads: io1.reads - io0.reads,
      writes: io1.writes - io0.writes,
    };
  } catch (error) {
    const stderr = server.stderr.trim();
    throw stderr === '' ? error : new Error(`${(error as Error).message}; server stderr: ${stderr}`);
  } finally {
    await server.stop();
  }
}

const CALL_METRICS: readonly Metric[] = [
  { key: 'calls_per_s', label: 'calls/s', unit: 'calls/s', better: 'higher', digits: 0 },
  { key: 'p50_us', label: 'p50 latency', unit: 'µs', better: 'lower', digits: 0 },
  { key: 'p99_us', label: 'p99 latency', unit: 'µs', better: 'lower', digits: 0 },
  { key: 'cpu_us_per_call', label: 'server CPU per call', unit: 'µs', better: 'lower', digits: 1 },
  { key: 'peak_rss_mib', label: 'server peak RSS', unit: 'MiB', better: 'lower', digits: 1 },
  {
    key: 'reads_per_call',
    label: 'server reads per call',
    unit: '',
    better: 'lower',
    digits: 2,
    ratios: false,
  },
  {
    key: 'requests_per_read',
    label: 'requests per server read',
    unit: '',
    better: 'lower',
    digits: 2,
    ratios: false,
  },
  {
    key: 'writes_per_call',
    label: 'server writes per call',
    unit: '',
    better: 'lower',
    digits: 2,
    ratios: false,
  },
  {
    key: 'loadgen_us_per_call',
    label: 'load generator CPU per call',
    unit: 'µs',
    better: 'lower',
    digits: 1,
    ratios: false,
  },
];

/**
 * Workload 1: the 11-byte payload, sequential or with `inFlight` requests outstanding; `era` 'modern' speaks the
 * 2026-07-28 revision (ids with the suffix -modern), against the implementations whose stdio server speaks it.
 */
export function stdioCalls(inFlight: number, era: StdioEra = 'legacy'): Workload {
  const text = 'hello world'; // 11 bytes
  const modern = era === 'modern';
  return {
    id: `${inFlight === 1 ? 'stdio-seq' : `stdio-${inFlight}`}${modern ? '-modern' : ''}`,
    group: 'stdio',
    title: `${
      inFlight === 1
        ? 'stdio tools/call, 11 B payload, sequential'
        : `stdio tools/call, 11 B payload, ${inFlight} in flight`
    }${modern ? ', revision 2026-07-28 (`_meta` envelope, no handshake)' : ''}`,
    metrics: CALL_METRICS,
    applies: (impl) => !modern || impl.modernStdio === true,
    async run(impl, profile) {
      const m = await measure(impl.stdio, text, inFlight, profile.small, profile, 'reply', era);
      return callFigures(m);
    },
  };
}

/**
 * Workload 1b: `clients` concurrent clients on one stdio connection, each sending its next call once its reply has
 * arrived, from a task of its own (as a host running several tool calls concurrently does), with nothing pinned: the
 * clients whose replies came resume one per turn of the generator's event loop, each after the loop has polled for
 * I/O again, so every request is its own write with the loop's work between two, and requests reach the server one
 * or a few per read: the per-read and per-turn costs of the server count, not only its per-message cost.
 */
export function stdioClosedLoop(clients: number): Workload {
  const text = 'hello world';
  return {
    id: `stdio-${clients}-closed`,
    group: 'stdio',
    title: `stdio tools/call, 11 B payload, ${clients} closed-loop clients, not pinned`,
    metrics: CALL_METRICS,
    applies: () => true,
    async run(impl, profile) {
      const m = await unpinned(() => measure(impl.stdio, text, clients, profile.small, profile, 'turn'));
      return callFigures(m);
    },
  };
}

/** Workload 2: a large payload, sequential: MB/s of echoed payload (1 MB = 10^6 bytes). */
export function stdioPayload(bytes: number, label: string, bounds: (p: Profile) => StdioBounds): Workload {
  const text = 'x'.repeat(bytes);
  return {
    id: `payload-${label.replace(/\s+/g, '').toLowerCase()}`,
    group: 'payload',
    title: `stdio tools/call, ${label} payload, sequential`,
    metrics: [
      { key: 'mb_per_s', label: 'payload throughput', unit: 'MB/s', better: 'higher', digits: 1 },
      { key: 'p50_ms', label: 'p50 latency', unit: 'ms', better: 'lower', digits: 2 },
      { key: 'cpu_ms_per_mb', label: 'server CPU per MB', unit: 'ms', better: 'lower', digits: 2 },
      { key: 'peak_rss_mib', label: 'server peak RSS', unit: 'MiB', better: 'lower', digits: 1 },
    ],
    applies: () => true,
    async run(impl, profile) {
      const m = await measure(impl.stdio, text, 1, bounds(profile), profile);
      const mb = (m.calls * bytes) / 1e6;
      return {
        mb_per_s: mb / m.seconds,
        p50_ms: m.p50Ns / 1e6,
        cpu_ms_per_mb: m.serverCpuMs / mb,
        peak_rss_mib: m.peakRssKiB / 1024,
      };
    },
  };
}
