import type {
  SamplingContent,
  SamplingMessage,
  TextContent,
  Tool,
  ToolUseContent,
} from '../../spec/types.js';

/**
 * One request to a model. The conversation is MCP's own sampling messages (text, image, audio, `tool_use`,
 * `tool_result` whose content is any MCP content block), so a server's sampling request and a chat share one form and
 * an adapter converts it once, into what its API accepts.
 */
export interface ModelRequest {
  messages: SamplingMessage[];
  /** The system prompt. */
  system?: string;
  /** The tools the model may call (MCP tool definitions: name, description, inputSchema). */
  tools?: readonly ModelTool[];
  /**
   * `provider`: the API's own tool search over the tools marked `defer` (their definitions are not put in the model's
   * context until its search finds them). Only for an adapter whose `deferredToolSearch` is true; others refuse it.
   */
  toolSearch?: 'provider';
  /** Whether the model may, must or must not call tools. Default `auto` when tools are given. */
  toolChoice?: 'auto' | 'required' | 'none';
  /** The most tokens the answer may have. Default 4096. */
  maxTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  signal?: AbortSignal;
  /** Streamed pieces of the answer as they come (and retries), for a user interface. */
  onevent?: (event: ModelStreamEvent) => void;
}

/** A tool offered to the model; `defer`: found by the provider's own tool search, not loaded up front. */
export type ModelTool = Pick<Tool, 'name' | 'description' | 'inputSchema'> & { defer?: boolean };

/** What the model answered: its text and tool calls, why it stopped, what it cost. */
export interface ModelResponse {
  role: 'assistant';
  /** Text blocks and `tool_use` blocks, in the model's order. */
  content: (TextContent | ToolUseContent)[];
  /** The model that answered (as the API names it). */
  model: string;
  /** MCP's names: `endTurn`, `toolUse`, `maxTokens`, `stopSequence`; others as the API gave them. */
  stopReason: string;
  usage?: ModelUsage;
}

/** Tokens a request used. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A piece of a streamed answer, or a retry the adapter is about to make. */
export type ModelStreamEvent =
  | { type: 'text'; text: string }
  | { type: 'tool-use-start'; id: string; name: string }
  | { type: 'tool-use-delta'; id: string; json: string }
  | { type: 'usage'; usage: ModelUsage }
  | { type: 'retry'; attempt: number; status: number; delayMs: number }
  /** A stream chunk that could not be read was skipped. */
  | { type: 'skipped'; reason: string };

/** A model API behind one small interface (one file per API). */
export interface ModelAdapter {
  /** `openai`, `anthropic`, `ollama`, … */
  readonly provider: string;
  /** The model's name as the API knows it. */
  readonly model: string;
  /** Whether it speaks its API's own tool search (`ModelRequest.toolSearch: 'provider'` with deferred tools). */
  readonly deferredToolSearch?: boolean;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/**
 * The `_meta` key of a block carrying the provider's own blocks that came before it in the answer (a server-side tool
 * search and its result): kept in the conversation as they were and sent back before that block, to the same API.
 */
export const PROVIDER_BLOCKS_META = 'mcpkit/providerBlocks';

/** The `_meta` key of a `tool_use` whose arguments the model sent as text that is not a JSON object. */
export const INVALID_ARGUMENTS_META = 'mcpkit/invalidArguments';

/** Reads a tool call's streamed or given argument text; text that is not a JSON object is kept aside in `_meta`. */
export function toolUse(id: string, name: string, argumentsText: string): ToolUseContent {
  const text = argumentsText.trim();
  if (text === '') return { type: 'tool_use', id, name, input: {} };
  try {
    const input: unknown = JSON.parse(text);
    if (input !== null && typeof input === 'object' && !Array.isArray(input))
      return { type: 'tool_use', id, name, input: input as Record<string, unknown> };
  } catch {
    // Not JSON: kept in _meta so the chat can tell the model, instead of calling the tool with nothing.
  }
  return { type: 'tool_use', id, name, input: {}, _meta: { [INVALID_ARGUMENTS_META]: argumentsText } };
}

/** The blocks of a message's content (a single block or an array). */
export function blocksOf(content: SamplingContent | SamplingContent[]): SamplingContent[] {
  return Array.isArray(content) ? content : [content];
}

/** A block of an answer as an adapter reads it: text, a tool call, or one of the provider's own blocks kept as it came. */
export type ProviderBlock = TextContent | ToolUseContent | { raw: Record<string, unknown> };

/**
 * The answer's text and tool calls, each carrying in `_meta` the provider blocks just before it, so the conversation
 * sends them back in place.
 */
export function withProviderBlocks(blocks: readonly ProviderBlock[]): (TextContent | ToolUseContent)[] {
  const out: (TextContent | ToolUseContent)[] = [];
  let pending: Record<string, unknown>[] = [];
  const carry = (b: TextContent | ToolUseContent): TextContent | ToolUseContent =>
    pending.length === 0 ? b : { ...b, _meta: { ...b._meta, [PROVIDER_BLOCKS_META]: pending } };
  for (const b of blocks) {
    if ('raw' in b) {
      pending.push(b.raw);
      continue;
    }
    out.push(carry(b));
    pending = [];
  }
  // Blocks after the last text or call (or an answer of nothing else) ride on an empty text, sent back in place.
  if (pending.length > 0) out.push({ type: 'text', text: '', _meta: { [PROVIDER_BLOCKS_META]: pending } });
  return out;
}
