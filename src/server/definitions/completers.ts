import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { CompletionReference } from '../../spec/types.js';
import type { Completer } from './completion.js';
import type { PromptDef, PromptUpdate } from './prompts.js';
import type { Registry } from './registry.js';
import type { TemplateDef, TemplateUpdate } from './resources.js';

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
