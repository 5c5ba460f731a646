// Markdown output: one table per workload (median ±spread per implementation, then mcpkit's ratios), and the
// targets of issue 5 with whether each is met.
import type { Implementation, ImplName } from '../implementations.js';
import { appliesTo, type Metric, type Workload } from '../workloads/types.js';
import { type Summary, spreadPercent, summarize } from './stats.js';

/** Every value measured: workload id -> implementation -> metric key -> one value per round. */
export type Results = Map<string, Map<ImplName, Record<string, number[]>>>;

/** Records one run's values. */
export function record(
  results: Results,
  workload: string,
  impl: ImplName,
  values: Record<string, number>,
): void {
  let byImpl = results.get(workload);
  if (!byImpl) {
    byImpl = new Map();
    results.set(workload, byImpl);
  }
  let byMetric = byImpl.get(impl);
  if (!byMetric) {
    byMetric = {};
    byImpl.set(impl, byMetric);
  }
  for (const [key, value] of Object.entries(values)) {
    const list = byMetric[key] ?? [];
    list.push(value);
    byMetric[key] = list;
  }
}

/** The summary of one metric of one implementation, if it was measured. */
export function summaryOf(
  results: Results,
  workload: string,
  impl: ImplName,
  metric: string,
): Summary | undefined {
  const values = results.get(workload)?.get(impl)?.[metric];
  if (!values || values.length === 0) return undefined;
  const s = summarize(values);
  return s.n === 0 ? undefined : s;
}

function fmt(value: number, digits: number): string {
  if (!Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function cell(s: Summary | undefined, metric: Metric): string {
  if (!s) return '—';
  const spread = spreadPercent(s);
  return s.n < 2 ? fmt(s.median, metric.digits) : `${fmt(s.median, metric.digits)} ±${spread.toFixed(0)}%`;
}

function ratio(a: Summary | undefined, b: Summary | undefined): string {
  if (!a || !b || !(b.median > 0)) return '—';
  const r = a.median / b.median;
  return `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`;
}

const RATIO_COLUMNS: readonly { impl: ImplName; label: string }[] = [
  { impl: 'mcpkit-before', label: 'mcpkit / before' },
  { impl: 'official-v1', label: 'mcpkit / v1' },
  { impl: 'official-v2', label: 'mcpkit / v2' },
  { impl: 'raw', label: 'mcpkit / raw' },
];

/** The markdown table of one workload. */
export function workloadTable(
  results: Results,
  workload: Workload,
  impls: readonly Implementation[],
): string {
  const shown = impls.filter((i) => appliesTo(workload, i));
  const ratios = RATIO_COLUMNS.filter((c) => shown.some((i) => i.name === c.impl) && c.impl !== 'mcpkit');
  const hasMcpkit = shown.some((i) => i.name === 'mcpkit');
  const head = ['metric', ...shown.map((i) => i.label), ...(hasMcpkit ? ratios.map((c) => c.label) : [])];
  const lines = [
    `| ${head.join(' | ')} |`,
    `| ${head.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
  ];
  for (const metric of workload.metrics) {
    const arrow = metric.better === 'higher' ? '↑' : '↓';
    const row = [`${metric.label} (${metric.unit}) ${arrow}`];
    for (const impl of shown) row.push(cell(summaryOf(results, workload.id, impl.name, metric.key), metric));
    if (hasMcpkit) {
      const mine = summaryOf(results, workload.id, 'mcpkit', metric.key);
      for (const c of ratios) {
        row.push(
          metric.ratios === false ? '' : ratio(mine, summaryOf(results, workload.id, c.impl, metric.key)),
        );
      }
    }
    lines.push(`| ${row.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** One target of issue 5: how to compute the measured value, and the bound. */
export interface Target {
  text: string;
  /** The value compared with the bound, or undefined when not measured in this run. */
  value(results: Results): number | undefined;
  bound: number;
  /** 'min': value must be >= bound; 'max': value must be <= bound; 'report': a value with no bound. */
  kind: 'min' | 'max' | 'report';
  unit: string;
}

function ratioOf(workload: string, metric: string, other: ImplName) {
  return (results: Results) => {
    const a = summaryOf(results, workload, 'mcpkit', metric);
    const b = summaryOf(results, workload, other, metric);
    return a && b && b.median > 0 ? a.median / b.median : undefined;
  };
}

function mcpkitValue(workload: string, metric: string, impl: ImplName = 'mcpkit') {
  return (results: Results) => summaryOf(results, workload, impl, metric)?.median;
}

/** The targets of issue 5 (reported, never asserted). */
export const TARGETS: readonly Target[] = [
  {
    text: 'stdio, 16 in flight, 11 B: calls/s ≥ 0.8× raw',
    value: ratioOf('stdio-16', 'calls_per_s', 'raw'),
    bound: 0.8,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'stdio, 16 in flight, 11 B: calls/s ≥ 3× official v1',
    value: ratioOf('stdio-16', 'calls_per_s', 'official-v1'),
    bound: 3,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'stdio, 16 closed-loop clients, not pinned, 11 B: calls/s ≥ 0.8× raw (issue 8)',
    value: ratioOf('stdio-16-closed', 'calls_per_s', 'raw'),
    bound: 0.8,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'stdio, 16 closed-loop clients, not pinned, 11 B: calls/s vs official v1 (a ratio, no bound)',
    value: ratioOf('stdio-16-closed', 'calls_per_s', 'official-v1'),
    bound: 0,
    kind: 'report',
    unit: '×',
  },
  {
    text: 'stdio, sequential, 11 B: calls/s ≥ 0.9× raw',
    value: ratioOf('stdio-seq', 'calls_per_s', 'raw'),
    bound: 0.9,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'stdio, 1 MiB payload: throughput ≥ 0.95× raw',
    value: ratioOf('payload-1mib', 'mb_per_s', 'raw'),
    bound: 0.95,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'cold start ≤ 40 ms above the node -e 0 floor (echo server with zod, as the SDK servers)',
    value: mcpkitValue('cold-start', 'above_floor_ms'),
    bound: 40,
    kind: 'max',
    unit: ' ms',
  },
  {
    text: 'cold start ≤ 40 ms above the node -e 0 floor (echo server with a JSON Schema, no zod)',
    value: mcpkitValue('cold-start', 'above_floor_ms', 'mcpkit-json'),
    bound: 40,
    kind: 'max',
    unit: ' ms',
  },
  {
    text: 'tools/list of 100 tools about the cost of a ping (read as ≤ 1.5× a ping, server side)',
    value: mcpkitValue('inproc-server', 'list_over_ping'),
    bound: 1.5,
    kind: 'max',
    unit: '×',
  },
  {
    text: 'client listTools() with 100 output schemas ≤ 2 ms',
    value: mcpkitValue('inproc-client', 'list_ms'),
    bound: 2,
    kind: 'max',
    unit: ' ms',
  },
  {
    text: 'HTTP stateless, 8 clients: calls/s ≥ 0.6× raw',
    value: ratioOf('http-stateless-8', 'calls_per_s', 'raw'),
    bound: 0.6,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'HTTP stateless, 8 clients: calls/s ≥ 7× official v1',
    value: ratioOf('http-stateless-8', 'calls_per_s', 'official-v1'),
    bound: 7,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'HTTP sessions, JSON replies, 8 clients: calls/s ≥ 0.5× raw',
    value: ratioOf('http-json-8', 'calls_per_s', 'raw'),
    bound: 0.5,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'HTTP sessions, SSE replies, 8 clients: calls/s ≥ 0.5× raw',
    value: ratioOf('http-sse-8', 'calls_per_s', 'raw'),
    bound: 0.5,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'HTTP idle sessions: RSS ≤ 5 MB per 1,000 (official v1 about 45–50 MB)',
    value: mcpkitValue('http-memory', 'rss_mb_per_1000'),
    bound: 5,
    kind: 'max',
    unit: ' MB',
  },
  {
    text: 'HTTP stateless, 8 clients: calls/s ≥ 0.75× raw (issue 8)',
    value: ratioOf('http-stateless-8', 'calls_per_s', 'raw'),
    bound: 0.75,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'HTTP stateless 2026-07-28, 8 clients: calls/s ≥ 0.75× raw (issue 8; raw adds resultType and serverInfo)',
    value: ratioOf('http-modern-8', 'calls_per_s', 'raw'),
    bound: 0.75,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'HTTP stateless 2026-07-28, 8 clients: calls/s vs official v2 createMcpHandler (a ratio, no bound)',
    value: ratioOf('http-modern-8', 'calls_per_s', 'official-v2'),
    bound: 0,
    kind: 'report',
    unit: '×',
  },
  {
    text: 'HTTP stateless, 8 clients, JWT bearer auth on every request: calls/s ≥ 0.8× the same server without auth (issue 9)',
    value: mcpkitValue('http-stateless-auth-8', 'auth_ratio'),
    bound: 0.8,
    kind: 'min',
    unit: '×',
  },
  {
    text: 'HTTP stateless, 8 clients, rate limit + access rules + audit to a callback: calls/s ≥ 0.85× the same server without them (issue 13)',
    value: mcpkitValue('http-stateless-guards-8', 'guard_ratio'),
    bound: 0.85,
    kind: 'min',
    unit: '×',
  },
  ...issue24Targets(''),
  ...issue24Targets('-unpinned'),
];

/**
 * Issue 24's targets for one load pattern (`suffix`: '' pinned, '-unpinned' nothing pinned), and issue 23's measure:
 * every HTTP row at 8 clients ≥ 0.8× raw throughput (SSE replies ≥ 0.7×) with server CPU per call ≤ 1.25× raw;
 * the 2025 stateless path ≥ 0.9× raw, its server CPU per call at most the 2026-07-28 path's.
 */
function issue24Targets(suffix: string): Target[] {
  const where = suffix === '' ? 'pinned' : 'nothing pinned';
  const rows = [
    ['stateless', 'HTTP 2025 stateless', 0.8],
    ['json', 'HTTP 2025 sessions, JSON replies', 0.8],
    ['sse', 'HTTP 2025 sessions, SSE replies', 0.7],
    ['modern', 'HTTP 2026-07-28', 0.8],
  ] as const;
  const out: Target[] = [];
  for (const [mode, text, bound] of rows) {
    const id = `http-${mode}-8${suffix}`;
    out.push(
      {
        text: `${text}, 8 clients, ${where}: calls/s ≥ ${bound}× raw (issue 24)`,
        value: ratioOf(id, 'calls_per_s', 'raw'),
        bound,
        kind: 'min',
        unit: '×',
      },
      {
        text: `${text}, 8 clients, ${where}: server CPU per call ≤ 1.25× raw (issue 24)`,
        value: ratioOf(id, 'cpu_us_per_call', 'raw'),
        bound: 1.25,
        kind: 'max',
        unit: '×',
      },
    );
  }
  out.push(
    {
      text: `HTTP 2025 stateless, 8 clients, ${where}: calls/s ≥ 0.9× raw (issue 23)`,
      value: ratioOf(`http-stateless-8${suffix}`, 'calls_per_s', 'raw'),
      bound: 0.9,
      kind: 'min',
      unit: '×',
    },
    {
      text: `HTTP 2025 stateless, 8 clients, ${where}: server CPU per call ≤ the 2026-07-28 path's (issue 23)`,
      value: (results) => {
        const a = summaryOf(results, `http-stateless-8${suffix}`, 'mcpkit', 'cpu_us_per_call');
        const b = summaryOf(results, `http-modern-8${suffix}`, 'mcpkit', 'cpu_us_per_call');
        return a && b && b.median > 0 ? a.median / b.median : undefined;
      },
      bound: 1,
      kind: 'max',
      unit: '×',
    },
  );
  return out;
}

/** The targets table: measured value and met / missed / not run. */
export function targetsTable(results: Results): string {
  const lines = ['| target | mcpkit | verdict |', '| --- | ---: | --- |'];
  for (const t of TARGETS) {
    const v = t.value(results);
    const shown = v === undefined ? '—' : `${v >= 100 ? v.toFixed(0) : v.toFixed(2)}${t.unit}`;
    const verdict =
      v === undefined
        ? 'not run'
        : t.kind === 'report'
          ? 'reported'
          : (t.kind === 'min' ? v >= t.bound : v <= t.bound)
            ? '**met**'
            : '**missed**';
    lines.push(`| ${t.text} | ${shown} | ${verdict} |`);
  }
  return lines.join('\n');
}
