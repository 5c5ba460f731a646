import type { SamplingMessage } from '../../spec/types.js';
import {
  completeModel,
  isObject,
  ModelError,
  type ModelHttpOptions,
  type StreamEvent,
  tokenUsage,
} from './http.js';
import { type Part, partsOf, toolResultParts } from './parts.js';
import {
  blocksOf,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  PROVIDER_BLOCKS_META,
  type ProviderBlock,
  toolUse,
  withProviderBlocks,
} from './types.js';

/** Options of {@link AnthropicModel}. */
export interface AnthropicOptions extends ModelHttpOptions {
  model: string;
  /** The API root (its `/v1/messages` is called). Default `https://api.anthropic.com`. */
  baseUrl: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  /** The `anthropic-version` header. Default `2023-06-01`. */
  version?: string;
  /** Stream the answer (server-sent events). Default true. */
  stream?: boolean;
  /** Extra headers (`anthropic-beta`, …). */
  headers?: Record<string, string>;
  /**
   * The variant of the API's tool search tool used for `toolSearch: 'provider'` requests: `bm25` (natural-language
   * queries, the default) or `regex`.
   */
  toolSearch?: 'bm25' | 'regex';
}

type Json = Record<string, unknown>;

const PROVIDER = 'anthropic';

/**
 * Anthropic's tool search tool ("Tool search tool", Claude developer docs, beta `advanced-tool-use-2025-11-20`): a
 * server tool `{ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' }` (or the `regex` variant)
 * beside tools marked `defer_loading: true`. The answer carries a `server_tool_use` block (its `input.query`) and a
 * `tool_search_tool_result` block (`content: { type: 'tool_search_tool_search_result', tool_references: [{ type:
 * 'tool_reference', tool_name }] }`) before the `tool_use` of a tool it found; both are sent back as they came.
 */
const TOOL_SEARCH_BETA = 'advanced-tool-use-2025-11-20';
const TOOL_SEARCH_TOOLS = {
  bm25: { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
  regex: { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
} as const;
/** The provider's blocks kept in the conversation (the others, thinking for one, are dropped). */
const KEPT_BLOCKS = new Set(['server_tool_use', 'tool_search_tool_result']);

/**
 * The Anthropic Messages API (`POST {baseUrl}/v1/messages`): `tool_use` / `tool_result` blocks, streamed as
 * `message_start`, `content_block_start` / `_delta` (`text_delta`, `input_json_delta`) / `_stop`, `message_delta`,
 * `message_stop`, with `ping` and `error` events.
 */
export class AnthropicModel implements ModelAdapter {
  readonly provider = PROVIDER;
  readonly deferredToolSearch = true;
  readonly model: string;
  /** The API's root, as given (what {@link checkModelServer} checks). */
  readonly baseUrl: string;
  readonly #options: AnthropicOptions;
  readonly #url: string;
  readonly #headers: Record<string, string>;

  constructor(options: AnthropicOptions) {
    this.#options = options;
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    this.#url = `${options.baseUrl.replace(/\/+$/, '')}/v1/messages`;
    this.#headers = {
      'anthropic-version': options.version ?? '2023-06-01',
      ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
      ...options.headers,
    };
  }

  /** The request body this adapter sends for `request` (what the API documents). */
  body(request: ModelRequest): Json {
    const body: Json = {
      model: this.model,
      max_tokens: request.maxTokens ?? 4096,
      messages: anthropicMessages(request.messages),
    };
    if (request.system !== undefined && request.system !== '') body.system = request.system;
    if (request.tools && request.tools.length > 0) {
      const tools: Json[] = request.tools.map((t) => ({
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        input_schema: t.inputSchema,
        ...(t.defer === true && request.toolSearch === 'provider' ? { defer_loading: true } : {}),
      }));
      if (request.toolSearch === 'provider')
        tools.unshift({ ...TOOL_SEARCH_TOOLS[this.#options.toolSearch ?? 'bm25'] });
      body.tools = tools;
      const choice = request.toolChoice ?? 'auto';
      body.tool_choice = { type: choice === 'required' ? 'any' : choice };
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.stopSequences && request.stopSequences.length > 0)
      body.stop_sequences = request.stopSequences;
    if (this.#options.stream ?? true) body.stream = true;
    return body;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const options = { ...this.#options, provider: PROVIDER };
    return completeModel(this.#url, this.#headersFor(request), this.body(request), request, options, {
      whole: (body) => this.#whole(body),
      streamed: (events) => this.#streamed(events, request),
    });
  }

  /** The headers of a request: the tool search's beta named beside any the options give. */
  #headersFor(request: ModelRequest): Record<string, string> {
    if (request.toolSearch !== 'provider') return this.#headers;
    const given = Object.entries(this.#headers).find(([k]) => k.toLowerCase() === 'anthropic-beta');
    const betas = given ? given[1].split(',').map((b) => b.trim()) : [];
    const headers = Object.fromEntries(
      Object.entries(this.#headers).filter(([k]) => k.toLowerCase() !== 'anthropic-beta'),
    );
    return { ...headers, 'anthropic-beta': [...new Set([...betas, TOOL_SEARCH_BETA])].join(',') };
  }

  #whole(body: Json): ModelResponse {
    if (!Array.isArray(body.content)) throw invalid('no content array in the answer');
    const content = withProviderBlocks(
      body.content.flatMap((block): ProviderBlock[] => {
        if (!isObject(block)) return [];
        if (block.type === 'text' && typeof block.text === 'string' && block.text !== '')
          return [{ type: 'text', text: block.text }];
        if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string')
          return [toolUse(block.id, block.name, JSON.stringify(block.input ?? {}))];
        if (typeof block.type === 'string' && KEPT_BLOCKS.has(block.type)) return [{ raw: block }];
        // Other blocks (thinking, other server tools) are not part of the conversation mcpkit keeps.
        return [];
      }),
    );
    const usage = tokenUsage(body.usage);
    return {
      role: 'assistant',
      content,
      model: typeof body.model === 'string' ? body.model : this.model,
      stopReason: stopReason(body.stop_reason),
      ...(usage ? { usage } : {}),
    };
  }

  async #streamed(events: AsyncGenerator<StreamEvent>, request: ModelRequest): Promise<ModelResponse> {
    const emit = request.onevent;
    let model = this.model;
    let stop: unknown;
    let inputTokens = 0;
    let outputTokens = 0;
    let sawUsage = false;
    let started = false;
    let stopped = false;
    const blocks = new Map<
      number,
      | { kind: 'text'; text: string }
      | { kind: 'tool'; id: string; name: string; json: string }
      | { kind: 'raw'; block: Json; json: string }
    >();
    for await (const { event, data } of events) {
      const type = typeof data.type === 'string' ? data.type : event;
      switch (type) {
        case 'message_start': {
          started = true;
          const message = isObject(data.message) ? data.message : {};
          if (typeof message.model === 'string') model = message.model;
          const u = isObject(message.usage) ? message.usage : undefined;
          if (u && typeof u.input_tokens === 'number') {
            inputTokens = u.input_tokens;
            sawUsage = true;
          }
          if (u && typeof u.output_tokens === 'number') outputTokens = u.output_tokens;
          break;
        }
        case 'content_block_start': {
          const index = Number(data.index);
          const block = isObject(data.content_block) ? data.content_block : {};
          if (block.type === 'text') {
            const text = typeof block.text === 'string' ? block.text : '';
            blocks.set(index, { kind: 'text', text });
            if (text !== '') emit?.({ type: 'text', text });
          } else if (
            block.type === 'tool_use' &&
            typeof block.id === 'string' &&
            typeof block.name === 'string'
          ) {
            blocks.set(index, { kind: 'tool', id: block.id, name: block.name, json: '' });
            emit?.({ type: 'tool-use-start', id: block.id, name: block.name });
          } else if (typeof block.type === 'string' && KEPT_BLOCKS.has(block.type))
            blocks.set(index, { kind: 'raw', block: { ...block }, json: '' });
          break;
        }
        case 'content_block_delta': {
          const block = blocks.get(Number(data.index));
          const delta = isObject(data.delta) ? data.delta : {};
          if (block?.kind === 'text' && delta.type === 'text_delta' && typeof delta.text === 'string') {
            block.text += delta.text;
            emit?.({ type: 'text', text: delta.text });
          } else if (
            block?.kind === 'tool' &&
            delta.type === 'input_json_delta' &&
            typeof delta.partial_json === 'string'
          ) {
            block.json += delta.partial_json;
            emit?.({ type: 'tool-use-delta', id: block.id, json: delta.partial_json });
          } else if (
            block?.kind === 'raw' &&
            delta.type === 'input_json_delta' &&
            typeof delta.partial_json === 'string'
          )
            block.json += delta.partial_json;
          break;
        }
        case 'message_delta': {
          const delta = isObject(data.delta) ? data.delta : {};
          if (delta.stop_reason !== undefined && delta.stop_reason !== null) stop = delta.stop_reason;
          const u = isObject(data.usage) ? data.usage : undefined;
          if (u && typeof u.output_tokens === 'number') {
            outputTokens = u.output_tokens;
            sawUsage = true;
          }
          break;
        }
        case 'message_stop':
          stopped = true;
          break;
        case 'error': {
          const error = isObject(data.error) ? data.error : {};
          const kind = typeof error.type === 'string' ? error.type : undefined;
          const message = typeof error.message === 'string' ? error.message : JSON.stringify(data);
          throw new ModelError(
            kind === 'rate_limit_error' ? 'MODEL_RATE_LIMITED' : 'MODEL_REQUEST_FAILED',
            `anthropic stream error${kind ? ` ${kind}` : ''}: ${message}`,
            { provider: PROVIDER, ...(kind ? { type: kind } : {}) },
          );
        }
        default:
          // ping, content_block_stop and events of later API versions need nothing.
          break;
      }
    }
    if (!started) throw invalid('the stream had no message_start');
    if (!stopped && stop === undefined) throw invalid('the stream ended before message_stop');
    const ordered: ProviderBlock[] = [];
    for (const [, block] of [...blocks].sort((a, b) => a[0] - b[0])) {
      if (block.kind === 'text') {
        if (block.text !== '') ordered.push({ type: 'text', text: block.text });
      } else if (block.kind === 'tool') ordered.push(toolUse(block.id, block.name, block.json));
      else ordered.push({ raw: rawBlock(block.block, block.json) });
    }
    const content = withProviderBlocks(ordered);
    const usage: ModelUsage | undefined = sawUsage ? { inputTokens, outputTokens } : undefined;
    if (usage) emit?.({ type: 'usage', usage });
    return { role: 'assistant', content, model, stopReason: stopReason(stop), ...(usage ? { usage } : {}) };
  }
}

/** A streamed provider block with its input, when it streamed one. */
function rawBlock(block: Json, json: string): Json {
  if (json.trim() === '') return block;
  try {
    return { ...block, input: JSON.parse(json) as unknown };
  } catch {
    // Input that is not JSON is sent back as it came (the API judges it).
    return block;
  }
}

/** MCP sampling messages as Messages API turns: same-role neighbours merged, tool results first in a user turn. */
export function anthropicMessages(messages: readonly SamplingMessage[]): Json[] {
  const out: { role: 'user' | 'assistant'; content: Json[] }[] = [];
  for (const message of messages) {
    const results: Json[] = [];
    const rest: Json[] = [];
    for (const b of blocksOf(message.content)) {
      if (b.type === 'tool_result') {
        results.push({
          type: 'tool_result',
          tool_use_id: b.toolUseId,
          content: toolResultParts(b).map(block),
          ...(b.isError === true ? { is_error: true } : {}),
        });
      } else {
        const provider = message.role === 'assistant' ? b._meta?.[PROVIDER_BLOCKS_META] : undefined;
        if (Array.isArray(provider)) for (const raw of provider) if (isObject(raw)) rest.push(raw);
        if (b.type === 'tool_use') {
          if (message.role === 'assistant')
            rest.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
          else rest.push({ type: 'text', text: `[tool_use ${b.name}]` });
        } else for (const p of partsOf([b])) if (p.type !== 'text' || p.text !== '') rest.push(block(p));
      }
    }
    const content = [...results, ...rest];
    if (content.length === 0) continue;
    const last = out[out.length - 1];
    if (last?.role === message.role) {
      // Tool results lead a user turn, also when two user messages are merged.
      if (results.length > 0) last.content = [...results, ...last.content, ...rest];
      else last.content.push(...content);
    } else out.push({ role: message.role, content });
  }
  return out;
}

function block(p: Part): Json {
  if (p.type === 'text') return { type: 'text', text: p.text };
  if (p.type === 'image')
    return { type: 'image', source: { type: 'base64', media_type: p.mimeType, data: p.data } };
  return { type: 'text', text: `[audio of type ${p.mimeType}, not supported by this API]` };
}

function stopReason(reason: unknown): string {
  switch (reason) {
    case 'end_turn':
    case undefined:
    case null:
      return 'endTurn';
    case 'tool_use':
      return 'toolUse';
    case 'max_tokens':
      return 'maxTokens';
    case 'stop_sequence':
      return 'stopSequence';
    default:
      return String(reason);
  }
}

function invalid(why: string): ModelError {
  return new ModelError('MODEL_INVALID_RESPONSE', `anthropic answered oddly: ${why}`, { provider: PROVIDER });
}
