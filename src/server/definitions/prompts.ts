import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { type InputRequiredReturn, isInputRequired } from '../../spec/input-required.js';
import type { GetPromptResult, Icon, Meta, Prompt, PromptArgument, PromptMessage } from '../../spec/types.js';
import type { RequestContext } from '../handler/context.js';
import type { Around } from '../handler/middleware.js';
import type { Completer } from './completion.js';

/** One prompt argument's definition. */
export interface PromptArgumentConfig {
  title?: string;
  description?: string;
  required?: boolean;
  /** Suggests values for `completion/complete`. */
  complete?: Completer;
}

/** A prompt's definition (everything but its name and handler). */
export interface PromptConfig<A extends string = string> {
  title?: string;
  description?: string;
  arguments?: Record<A, PromptArgumentConfig>;
  icons?: Icon[];
  _meta?: Meta;
  /**
   * OAuth scopes a caller needs to use this: an authenticated request without them is refused (over HTTP, 403
   * \`insufficient_scope\` naming them, so the client steps up) and does not see it listed. Requests that were not
   * authenticated (no \`auth\` on the endpoint, stdio) are not checked.
   */
  requiredScopes?: readonly string[];
}

/** What a prompt handler may return: a full result, a list of messages, or one user text. */
export type PromptReturn = GetPromptResult | PromptMessage[] | string;

/** A prompt handler. */
export type PromptHandler<A extends string = string> = (
  args: Record<A, string>,
  ctx: RequestContext,
) => PromptReturn | InputRequiredReturn | Promise<PromptReturn | InputRequiredReturn>;

/** A registered prompt. */
export interface PromptDef {
  name: string;
  config: PromptConfig;
  handler: PromptHandler;
  required: readonly string[];
  /** Set on a prompt a mount added: its own server's middleware around its gets and completions. */
  around?: Around;
}

/** Changes accepted by a prompt handle's `update`. */
export type PromptUpdate = Partial<PromptConfig> & { handler?: PromptHandler };

/** Checks a prompt definition. */
export function definePrompt(name: string, config: PromptConfig, handler: PromptHandler): PromptDef {
  if (name === '') throw new McpkitError('INVALID_DEFINITION', 'A prompt needs a non-empty name');
  const args = Object.entries<PromptArgumentConfig>(config.arguments ?? {});
  return { name, config, handler, required: args.filter(([, a]) => a.required).map(([n]) => n) };
}

/** Applies an update to a prompt definition. */
export function updatePrompt(def: PromptDef, changes: PromptUpdate): PromptDef {
  const { handler, ...config } = changes;
  return definePrompt(def.name, { ...def.config, ...config }, handler ?? def.handler);
}

/** The prompt as listed by `prompts/list`. */
export function describePrompt(def: PromptDef): JsonObject {
  const { title, description, icons, _meta } = def.config;
  const prompt: Prompt = { name: def.name };
  if (title !== undefined) prompt.title = title;
  if (description !== undefined) prompt.description = description;
  const args = Object.entries<PromptArgumentConfig>(def.config.arguments ?? {});
  if (args.length > 0) {
    prompt.arguments = args.map(([argName, a]) => {
      const out: PromptArgument = { name: argName };
      if (a.title !== undefined) out.title = a.title;
      if (a.description !== undefined) out.description = a.description;
      if (a.required !== undefined) out.required = a.required;
      return out;
    });
  }
  if (icons !== undefined) prompt.icons = icons;
  if (_meta !== undefined) prompt._meta = _meta;
  return prompt;
}

/** Runs `prompts/get`: checks the arguments, runs the handler, normalises the result. */
export async function getPrompt(def: PromptDef, rawArgs: unknown, ctx: RequestContext): Promise<JsonObject> {
  const args = rawArgs ?? {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw new JsonRpcError(ErrorCode.InvalidParams, 'Prompt arguments must be an object of strings');
  }
  const record = args as Record<string, unknown>;
  for (const [k, v] of Object.entries(record)) {
    if (typeof v !== 'string')
      throw new JsonRpcError(ErrorCode.InvalidParams, `Prompt argument "${k}" must be a string`);
  }
  const missing = def.required.filter((n) => record[n] === undefined);
  if (missing.length > 0) {
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      `Missing required argument(s) for prompt ${def.name}: ${missing.join(', ')}`,
    );
  }
  const returned = await def.handler(record as Record<string, string>, ctx);
  if (isInputRequired(returned)) return returned;
  if (typeof returned === 'string')
    return { messages: [{ role: 'user', content: { type: 'text', text: returned } }] };
  if (Array.isArray(returned)) return { messages: returned };
  return returned;
}
