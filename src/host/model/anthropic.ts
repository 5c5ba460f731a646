import type { SamplingMessage, TextContent, ToolUseContent } from '../../spec/types.js';
import {
  isObject,
  jsonBody,
  ModelError,
  type ModelHttpOptions,
  postModel,
  type StreamEvent,
  streamEvents,
} from './http.js';
import { type Part, partsOf, toolResultParts } from './parts.js';
import {
  blocksOf,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  toolUse,
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
}

type Json = Record<string, unknown>;

const PROVIDER = 'anthropic';

/**
 * The Anthropic Messages API (`POST {baseUrl}/v1/messages`): `tool_use` / `tool_result` blocks, streamed as
 * `message_start`, `content_block_start` / `_delta` (`text_delta`, `input_json_delta`) / `_stop`, `message_delta`,
 * `message_stop`, with `ping` and `error` events.
 */
export class AnthropicModel implements ModelAdapter {
  readonly provider = PROVIDER;
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
      body.tools = request.tools.map((t) => ({
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        input_schema: t.inputSchema,
      }));
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
    const body = this.body(request);
    const response = await postModel(this.#url, this.#headers, body, {
      ...this.#options,
      provider: PROVIDER,
      signal: request.signal,
      onevent: request.onevent,
    });
    if (body.stream !== true) return this.#whole(await jsonBody(response, PROVIDER));
    return this.#streamed(streamEvents(response, PROVIDER, request.onevent), request);
  }

  #whole(body: Json): ModelResponse {
    if (!Array.isArray(body.content)) throw invalid('no content array in the answer');
    const content: (TextContent | ToolUseContent)[] = [];
    for (const block of body.content) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string' && block.text !== '')
        content.push({ type: 'text', text: block.text });
      else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string')
        content.push(toolUse(block.id, block.name, JSON.stringify(block.input ?? {})));
      // Other blocks (thinking, server tools) are not part of the conversation mcpkit keeps.
    }
    const usage = usageOf(body.usage);
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
      { kind: 'text'; text: string } | { kind: 'tool'; id: string; name: string; json: string }
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
          }
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
          }
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
    const content: (TextContent | ToolUseContent)[] = [];
    for (const [, block] of [...blocks].sort((a, b) => a[0] - b[0])) {
      if (block.kind === 'text') {
        if (block.text !== '') content.push({ type: 'text', text: block.text });
      } else content.push(toolUse(block.id, block.name, block.json));
    }
    const usage: ModelUsage | undefined = sawUsage ? { inputTokens, outputTokens } : undefined;
    if (usage) emit?.({ type: 'usage', usage });
    return { role: 'assistant', content, model, stopReason: stopReason(stop), ...(usage ? { usage } : {}) };
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
      } else if (b.type === 'tool_use') {
        if (message.role === 'assistant')
          rest.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
        else rest.push({ type: 'text', text: `[tool_use ${b.name}]` });
      } else for (const p of partsOf([b])) if (p.type !== 'text' || p.text !== '') rest.push(block(p));
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

function usageOf(usage: unknown): ModelUsage | undefined {
  if (!isObject(usage) || typeof usage.input_tokens !== 'number' || typeof usage.output_tokens !== 'number')
    return undefined;
  return { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };
}

function invalid(why: string): ModelError {
  return new ModelError('MODEL_INVALID_RESPONSE', `anthropic answered oddly: ${why}`, { provider: PROVIDER });
}
