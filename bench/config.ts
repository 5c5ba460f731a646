// Run profiles: how long and how often each workload runs. Every phase is bounded in time and in count.
import type { PhaseBounds } from './load/driver.js';

/** Bounds of one stdio workload. */
export interface StdioBounds {
  warmup: PhaseBounds;
  measure: PhaseBounds;
}

/** Everything the workloads need to know about how hard to run. */
export interface Profile {
  name: 'full' | 'quick';
  /** Rounds; each round runs every workload once per implementation, in a rotated order. */
  rounds: number;
  /** stdio tools/call with the 11-byte payload. */
  small: StdioBounds;
  /** stdio with the 100 KiB payload. */
  medium: StdioBounds;
  /** stdio with the 1 MiB payload. */
  large: StdioBounds;
  /** Streamable HTTP tools/call with the 11-byte payload, per run (one run per client count). */
  http: StdioBounds;
  /** Rounds of the HTTP workloads (the first rounds of `rounds`; they are the longest part of a run). */
  httpRounds: number;
  /** Idle sessions per step of the memory workload (two steps, after a few warm-up sessions). */
  idleSessions: number;
  /** A phase fails when its server stops answering for this long. */
  stallMs: number;
  /** Cold starts (each paired with a `node -e 0` floor) per implementation per round. */
  coldStarts: number;
  /** In-process micro-benchmarks: timed blocks per run and the time budget of one run. */
  inprocBlocks: number;
  inprocBudgetMs: number;
}

/** The default run: about 16 minutes on a 2-core machine (HTTP runs warm up for 2 s each). */
export const FULL: Profile = {
  name: 'full',
  rounds: 5,
  small: { warmup: { ms: 500, maxCalls: 50_000 }, measure: { ms: 2000, maxCalls: 400_000 } },
  medium: { warmup: { ms: 300, maxCalls: 2000 }, measure: { ms: 1500, maxCalls: 40_000 } },
  large: { warmup: { ms: 500, maxCalls: 400 }, measure: { ms: 2000, maxCalls: 4000 } },
  // Warm-up long enough for every server's request path to be optimized (after 400 ms much of mcpkit's still ran in
  // baseline code, and a raw server of a few functions tiers up at once): the rows compare steady states.
  http: { warmup: { ms: 2000, maxCalls: 100_000 }, measure: { ms: 1500, maxCalls: 200_000 } },
  httpRounds: 3,
  idleSessions: 1000,
  stallMs: 10_000,
  coldStarts: 6,
  inprocBlocks: 15,
  inprocBudgetMs: 2500,
};

/** `--quick`: the same workloads, shorter; under a minute and a half. */
export const QUICK: Profile = {
  name: 'quick',
  rounds: 2,
  small: { warmup: { ms: 200, maxCalls: 20_000 }, measure: { ms: 500, maxCalls: 100_000 } },
  medium: { warmup: { ms: 100, maxCalls: 500 }, measure: { ms: 400, maxCalls: 10_000 } },
  large: { warmup: { ms: 200, maxCalls: 100 }, measure: { ms: 500, maxCalls: 1000 } },
  http: { warmup: { ms: 200, maxCalls: 10_000 }, measure: { ms: 500, maxCalls: 50_000 } },
  httpRounds: 2,
  idleSessions: 1000,
  stallMs: 10_000,
  coldStarts: 3,
  inprocBlocks: 7,
  inprocBudgetMs: 1500,
};
