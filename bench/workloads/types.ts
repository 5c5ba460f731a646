// What a workload is: something run once per implementation per round, returning named numbers.
import type { Profile } from '../config.js';
import type { Implementation } from '../implementations.js';

/** Workload families, selectable with `--only`. */
export type Group = 'stdio' | 'payload' | 'coldstart' | 'inproc' | 'http';

/** One reported quantity. */
export interface Metric {
  key: string;
  label: string;
  unit: string;
  /** Which direction is better; ratios are printed as mcpkit / other either way. */
  better: 'higher' | 'lower';
  /** Decimal places in the table. */
  digits: number;
  /** Shown with its ratios (default true); false for context-only numbers. */
  ratios?: boolean;
}

/** One workload. */
export interface Workload {
  id: string;
  group: Group;
  title: string;
  metrics: readonly Metric[];
  /** Rounds it runs in (the first ones); every round when absent. */
  rounds?(profile: Profile): number;
  /** Whether it applies to this implementation (e.g. in-process benchmarks skip the raw baseline). */
  applies(impl: Implementation): boolean;
  /** Runs once; resolves to a value per metric key. */
  run(impl: Implementation, profile: Profile): Promise<Record<string, number>>;
}

/** Whether `workload` runs against `impl` (the workload's own rule and the implementation's group limit). */
export function appliesTo(workload: Workload, impl: Implementation): boolean {
  return workload.applies(impl) && (impl.groups === undefined || impl.groups.includes(workload.group));
}
