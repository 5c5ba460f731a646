import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import type { FuzzTarget } from './target.js';
import { REGRESSIONS_FILE } from './targets.js';

/** The kept failing inputs of `name` (none when the file has no entry). */
export function regressionsOf(name: string): unknown[] {
  const all = JSON.parse(readFileSync(REGRESSIONS_FILE, 'utf8')) as Record<string, unknown[]>;
  return all[name] ?? [];
}

/** How one run of a target ended. */
export interface TargetOutcome {
  runs: number;
  failed: boolean;
  seed: number;
  counterexample?: unknown;
  error?: string;
}

/**
 * Replays the target's regressions, then checks `runs` generated inputs with `seed`; `onProgress` hears the count
 * of inputs checked now and then (at most once a second).
 */
export async function runTarget(
  target: FuzzTarget,
  runs: number,
  seed: number,
  onProgress: (done: number) => void = () => {},
): Promise<TargetOutcome> {
  for (const input of regressionsOf(target.name)) {
    try {
      await target.check(input);
    } catch (error) {
      return { runs: 0, failed: true, seed, counterexample: input, error: `regression: ${String(error)}` };
    }
  }
  let done = 0;
  let last = Date.now();
  const tick = () => {
    done++;
    const now = Date.now();
    if (now - last >= 1000) {
      last = now;
      onProgress(done);
    }
  };
  const property = fc.asyncProperty(target.arbitrary, async (input) => {
    tick();
    await target.check(input);
  });
  const details = await fc.check(property, { numRuns: runs, seed, endOnFailure: false });
  if (!details.failed) return { runs: details.numRuns, failed: false, seed };
  return {
    runs: details.numRuns,
    failed: true,
    seed,
    counterexample: details.counterexample?.[0],
    error:
      details.errorInstance instanceof Error
        ? (details.errorInstance.stack ?? details.errorInstance.message)
        : String(details.errorInstance),
  };
}
