/** Rates as written in options ("5/s", "100/min", "10/30s") and checks of numbers given as options. */
import { McpkitError } from '../../jsonrpc/errors.js';
import type { BucketShape } from '../../store/rate-limit-store.js';

const UNITS: Readonly<Record<string, number>> = {
  ms: 0.001,
  s: 1,
  sec: 1,
  second: 1,
  m: 60,
  min: 60,
  minute: 60,
  h: 3600,
  hour: 3600,
  d: 86_400,
  day: 86_400,
};

const RATE = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)?\s*([a-z]+)\s*$/;

/** A rate: a string like "5/s", "100/min" or "10/30s" (burst = the count), or a bucket shape. */
export type Rate = string | BucketShape;

/**
 * The bucket of a rate: "N/period" holds N tokens and refills N per period. `where` names the option in errors.
 *
 * @example parseRate('5/s', 'rateLimit') // { capacity: 5, refillPerSecond: 5 }
 */
export function parseRate(rate: Rate, where: string): BucketShape {
  if (typeof rate === 'object' && rate !== null) {
    const { capacity, refillPerSecond } = rate;
    if (!Number.isInteger(capacity) || capacity < 1)
      throw invalid(where, `capacity must be a positive integer, got ${String(capacity)}`);
    if (typeof refillPerSecond !== 'number' || !(refillPerSecond > 0) || !Number.isFinite(refillPerSecond))
      throw invalid(where, `refillPerSecond must be a positive number, got ${String(refillPerSecond)}`);
    return Object.freeze({ capacity, refillPerSecond });
  }
  const m = typeof rate === 'string' ? RATE.exec(rate) : null;
  const unit = m?.[3] === undefined ? undefined : (UNITS[m[3]] ?? UNITS[m[3].replace(/s$/, '')]);
  if (!m || unit === undefined) {
    throw invalid(
      where,
      `${JSON.stringify(rate)} is not a rate: write a count per period such as "5/s", "100/min", "10/30s" or "1000/h"`,
    );
  }
  const count = Number(m[1]);
  const periods = m[2] === undefined ? 1 : Number(m[2]);
  if (!Number.isInteger(count) || count < 1)
    throw invalid(where, `${JSON.stringify(rate)}: the count must be a positive integer`);
  if (!(periods > 0)) throw invalid(where, `${JSON.stringify(rate)}: the period must be positive`);
  return Object.freeze({ capacity: count, refillPerSecond: count / (periods * unit) });
}

/** A rate as people read it, for messages: "5/s" or "2.5 per s". */
export function describeRate(shape: BucketShape): string {
  const perSecond = shape.refillPerSecond;
  if (Number.isInteger(perSecond)) return `${perSecond}/s`;
  const perMinute = perSecond * 60;
  if (Math.abs(perMinute - Math.round(perMinute)) < 1e-9) return `${Math.round(perMinute)}/min`;
  return `${Math.round(perSecond * 3600)}/h`;
}

/** Checks a positive integer option (a count, a size, a number of milliseconds). */
export function positiveInteger(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw invalid(where, `must be a positive integer, got ${JSON.stringify(value)}`);
  return value;
}

/** Checks a non-negative integer option. */
export function nonNegativeInteger(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw invalid(where, `must be a non-negative integer, got ${JSON.stringify(value)}`);
  return value;
}

/** A refused option: an `INVALID_DEFINITION` naming where it is. */
export function invalid(where: string, why: string): McpkitError {
  return new McpkitError('INVALID_DEFINITION', `Invalid server option ${where}: ${why}`);
}
