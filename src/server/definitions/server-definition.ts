import type { JsonObject } from '../../jsonrpc/types.js';
import type { CompletionReference } from '../../spec/types.js';
import type { RequestContext } from '../handler/context.js';
import type { Access } from './access.js';
import type { Completer } from './completion.js';
import type { PromptDef, PromptUpdate } from './prompts.js';
import type { Registry } from './registry.js';
import type { ResourceDef, ResourceUpdate, TemplateDef, TemplateUpdate } from './resources.js';
import type { ToolDef, ToolUpdate } from './tools.js';

/** The parts of a server definition the protocol methods read. */
export interface ServerDefinition {
  readonly tools: Registry<ToolDef, ToolUpdate>;
  readonly prompts: Registry<PromptDef, PromptUpdate>;
  readonly resources: Registry<ResourceDef, ResourceUpdate>;
  readonly templates: Registry<TemplateDef, TemplateUpdate>;
  /** One page of `resources/list`: fixed resources, then those the templates list. */
  listResources(cursor: unknown, ctx: RequestContext): JsonObject | Promise<JsonObject>;
  /** The access rules (option `access`, and those of mounted servers), if any. */
  readonly access: Access | undefined;
  /** The completer for a prompt argument or template variable, if any. */
  completerFor(ref: CompletionReference | undefined, argument: string): Completer | undefined;
}
