/**
 * The error behind a tool result: a handler's thrown error becomes an `isError` result (the model sees it), and the
 * error itself rides along under a symbol (never encoded) for error normalization and the audit record.
 */
import type { JsonObject } from '../../jsonrpc/types.js';

const FAILURE: unique symbol = Symbol('mcpkit.failure');

/** What went wrong behind a result: the thrown error, and the outcome a guard gave it. */
export interface Failure {
  readonly error: unknown;
  /** Set by guards: 'timeout' (a deadline passed), 'too_large' (a size limit). Default: 'error'. */
  readonly outcome?: 'timeout' | 'too_large' | undefined;
  /** The reference error normalization gave the client in place of the message. */
  readonly ref?: string | undefined;
}

/** Marks `result` as made from a failure (a non-enumerable symbol property: JSON never sees it). */
export function withFailure<T extends JsonObject>(result: T, failure: Failure): T {
  Object.defineProperty(result, FAILURE, { value: failure, enumerable: false });
  return result;
}

/** The failure behind a result, if it was made from one. */
export function failureOf(result: JsonObject): Failure | undefined {
  return (result as { [FAILURE]?: Failure })[FAILURE];
}
