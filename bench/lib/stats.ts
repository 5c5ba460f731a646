// Small statistics helpers: medians, percentiles and the spread of repeated measurements.

/** The q-quantile (0..1) of `values` by nearest rank on a sorted copy; NaN for an empty list. */
export function quantile(values: ArrayLike<number>, q: number): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
  return sorted[rank]!;
}

/** The median (the mean of the two middle values for an even count); NaN for an empty list. */
export function median(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median, minimum and maximum of repeated measurements of one quantity. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** Summarises repeated measurements (NaN entries, from failed runs, are dropped). */
export function summarize(values: readonly number[]): Summary {
  const ok = values.filter((v) => Number.isFinite(v));
  if (ok.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  return { median: median(ok), min: Math.min(...ok), max: Math.max(...ok), n: ok.length };
}

/** Half the min-max range relative to the median, in percent: the spread printed as "±x%". */
export function spreadPercent(s: Summary): number {
  if (!(s.median > 0) || s.n < 2) return 0;
  return ((s.max - s.min) / 2 / s.median) * 100;
}

/** Coefficient of variation in percent (standard deviation / mean). */
export function cvPercent(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1);
  return mean === 0 ? 0 : (Math.sqrt(variance) / mean) * 100;
}
