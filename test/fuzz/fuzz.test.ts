// The CI slice of `npm run fuzz`: every target replays the inputs that once failed (regressions.json), then checks a
// few thousand fresh ones. The seed changes from run to run and is printed with any failure, so a failure here is
// reproduced with `node dist/scripts/fuzz.js --only <target> --seed <seed>`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runTarget } from './run-target.js';
import { TARGETS } from './targets.js';

/** Fresh inputs per target in CI; the full run (`npm run fuzz`) checks 1,000,000 in all. */
const SLICE = 2_000;

describe('fuzz slice', () => {
  for (const target of TARGETS) {
    test(target.name, { timeout: 120_000 }, async () => {
      const seed = Date.now() % 2 ** 31;
      await target.setup?.();
      try {
        const outcome = await runTarget(target, SLICE, seed);
        assert.equal(
          outcome.failed,
          false,
          `${target.name} failed (seed ${seed}): ${outcome.error}\ninput: ${JSON.stringify(outcome.counterexample)}`,
        );
        assert.equal(outcome.runs, SLICE);
      } finally {
        await target.teardown?.();
      }
    });
  }
});
