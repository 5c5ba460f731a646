import type { CompleteResult } from '../../spec/types.js';
import type { RequestContext } from '../handler/context.js';

/** Most completion values one response may carry (the spec's limit). */
export const MAX_COMPLETION_VALUES = 100;

/** Already-resolved arguments a completer can use to narrow its suggestions. */
export interface CompletionContext {
  arguments: Record<string, string>;
}

/** Suggests values for one prompt argument or template variable. */
export type Completer = (
  value: string,
  context: CompletionContext,
  ctx: RequestContext,
) => string[] | CompleteResult['completion'] | Promise<string[] | CompleteResult['completion']>;

/** Runs a completer and caps its answer at 100 values, keeping the true total. */
export async function complete(
  completer: Completer | undefined,
  value: string,
  context: CompletionContext,
  ctx: RequestContext,
): Promise<CompleteResult> {
  if (!completer) return { completion: { values: [], total: 0, hasMore: false } };
  const answer = await completer(value, context, ctx);
  const all = Array.isArray(answer) ? answer : answer.values;
  const values = all.length > MAX_COMPLETION_VALUES ? all.slice(0, MAX_COMPLETION_VALUES) : all;
  const total = Array.isArray(answer) ? all.length : (answer.total ?? all.length);
  // Values dropped by the cap always mean there are more, whatever the completer said.
  const hasMore = all.length > values.length || (!Array.isArray(answer) && answer.hasMore === true);
  return { completion: { values, total, hasMore } };
}
