import type fc from 'fast-check';

/**
 * One fuzz target: inputs drawn from `arbitrary`, each handed to `check`, which throws (or rejects) when the code
 * under test misbehaves. Inputs are JSON values, so a failing one can be kept in `regressions.json` and replayed.
 */
export interface FuzzTarget<T = unknown> {
  /** Stable name, used by `--only` and in regressions.json. */
  readonly name: string;
  /** Share of the full run's inputs (the weights of all targets are summed). */
  readonly weight: number;
  /** The generator; every value it yields is plain JSON. */
  readonly arbitrary: fc.Arbitrary<T>;
  /** Throws when the property does not hold for `input`. */
  check(input: T): void | Promise<void>;
  /** Called once before the first input (a target that keeps a server creates it here). */
  setup?(): Promise<void> | void;
  /** Called once after the last input. */
  teardown?(): Promise<void> | void;
}

/** Throws an Error with `message` when `condition` is false. */
export function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Byte chunks of `bytes` cut at the given offsets (taken modulo its length, sorted, deduplicated). */
export function cutBytes(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % (bytes.length + 1))))].sort(
    (a, b) => a - b,
  );
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of points) {
    if (p <= from) continue;
    out.push(bytes.subarray(from, p));
    from = p;
  }
  if (from < bytes.length) out.push(bytes.subarray(from));
  return out;
}

/** Text chunks of `text` cut at the given offsets (as {@link cutBytes}, in UTF-16 units). */
export function cutText(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1))))].sort(
    (a, b) => a - b,
  );
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    if (p <= from) continue;
    out.push(text.slice(from, p));
    from = p;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}
