import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { CompleteResult, CompletionReference } from '../../spec/types.js';
import type { RequestContext } from '../handler/context.js';
import type { PromptDef, PromptUpdate } from './prompts.js';
import type { Registry } from './registry.js';
import type { TemplateDef, TemplateUpdate } from './resources.js';

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

/** The completer of a prompt argument or template variable (undefined: none); an unknown ref is -32602. */
export function completerFor(
  prompts: Registry<PromptDef, PromptUpdate>,
  templates: Registry<TemplateDef, TemplateUpdate>,
  ref: CompletionReference | undefined,
  argument: string,
): Completer | undefined {
  if (ref?.type === 'ref/prompt') {
    const prompt = prompts.get(ref.name);
    if (!prompt) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
    return prompt.def.config.arguments?.[argument]?.complete;
  }
  if (ref?.type === 'ref/resource') {
    const template = templates.get(ref.uri);
    if (!template) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
    return template.def.config.complete?.[argument];
  }
  throw new JsonRpcError(
    ErrorCode.InvalidParams,
    'Invalid params: "ref" must be a ref/prompt or ref/resource',
  );
}
