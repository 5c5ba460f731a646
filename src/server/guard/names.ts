/** Names that guard options refer to, checked against what is registered when the server starts serving. */
import type { JsonObject } from '../../jsonrpc/types.js';
import type { NamedKind } from '../definitions/access.js';
import { invalid } from './rate.js';

/** One name an option refers to, and the option, for the error. */
export interface NameRef {
  readonly kind: NamedKind;
  readonly name: string;
  readonly where: string;
}

/** What is registered, to check names against. */
export interface Registered {
  has(kind: NamedKind, name: string): boolean;
}

/** Whether a name is a pattern ("*" matches any run of characters): patterns are not checked. */
export function isPattern(name: string): boolean {
  return name.includes('*');
}

/** Compiles a "*" pattern once into a predicate (exact names compare as strings). */
export function matcher(pattern: string): (name: string) => boolean {
  if (!isPattern(pattern)) return (name) => name === pattern;
  if (pattern === '*') return () => true;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const re = new RegExp(`^${source}$`, 's');
  return (name) => re.test(name);
}

/** Refuses the first name that matches nothing registered. */
export function checkNames(refs: readonly NameRef[], registered: Registered): void {
  for (const ref of refs) {
    if (isPattern(ref.name) || registered.has(ref.kind, ref.name)) continue;
    throw invalid(
      ref.where,
      `no ${ref.kind} named ${JSON.stringify(ref.name)} is registered (register it first, or use a "*" pattern)`,
    );
  }
}

/** The entries of a record option, refusing a value that is not a plain object. */
export function entriesOf<T>(value: Record<string, T> | undefined, where: string): [string, T][] {
  if (value === undefined) return [];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(where, 'must be an object keyed by name');
  return Object.entries(value);
}

export type { JsonObject };
