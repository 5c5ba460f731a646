import type { SamplingMessage, TextContent, ToolUseContent } from '../../spec/types.js';
import { completeModel, isObject, ModelError, type ModelHttpOptions, type StreamEvent } from './http.js';
import { type Part, partsOf, toolResultParts } from './parts.js';
import {
  blocksOf,
  INVALID_ARGUMENTS_META,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  toolUse,
} from './types.js';

/** Options of {@link OpenAIChatModel}. */
export interface OpenAIChatOptions extends ModelHttpOptions {
  model: string;
  /** The API root (its `/chat/completions` is called), e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  baseUrl: string;
  /** Sent as a bearer token when given (local servers often need none). */
  apiKey?: string;
  /** The name given to errors and logs. Default `openai`. */
  provider?: string;
  /** Stream the answer (server-sent events). Default true. */
  stream?: boolean;
  /**
   * The body field of the token limit: OpenAI's current `max_completion_tokens` (default for the `openai`
   * provider) or the older `max_tokens` that other servers speaking this API read (default for the others).
   */
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
  /** Extra headers (an organization, a project). */
  headers?: Record<string, string>;
}

type Json = Record<string, unknown>;

/**
 * The OpenAI Chat Completions API (`POST {baseUrl}/chat/completions`), also spoken by Ollama, vLLM, llama.cpp's
 * server and LM Studio: tools as functions, streamed deltas whose tool-call arguments come in fragments, usage on
 * the last chunk (`stream_options.include_usage`).
 */
export class OpenAIChatModel implements ModelAdapter {
  readonly provider: string;
  readonly model: string;
  /** The API's root, as given (what {@link checkModelServer} checks). */
  readonly baseUrl: string;
  readonly #options: OpenAIChatOptions;
  readonly #url: string;
  readonly #headers: Record<string, string>;

  constructor(options: OpenAIChatOptions) {
    this.#options = options;
    this.provider = options.provider ?? 'openai';
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    this.#url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.#headers = {
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      ...options.headers,
    };
  }

  /** The request body this adapter sends for `request` (what the API documents). */
  body(request: ModelRequest): Json {
    // The Chat Completions API has no tool search of its own; OpenAI's is in the Responses API (OpenAIResponsesModel).
    if (request.toolSearch === 'provider')
      throw new ModelError(
        'MODEL_CONFIG_INVALID',
        `${this.provider}: this API (Chat Completions) has no tool search of its own; use the Responses API (model openai-responses:NAME, OpenAIResponsesModel) or the tool search of the host`,
        { provider: this.provider },
      );
    const stream = this.#options.stream ?? true;
    const field =
      this.#options.maxTokensField ?? (this.provider === 'openai' ? 'max_completion_tokens' : 'max_tokens');
    const body: Json = {
      model: this.model,
      messages: openAIMessages(request.system, request.messages),
      [field]: request.maxTokens ?? 4096,
    };
    if (request.tools && request.tools.length > 0) {
      body.tools = request.tools.map((t) => ({
        type: 'function',
        function: {
          name: t.name,
          ...(t.description === undefined ? {} : { description: t.description }),
          parameters: t.inputSchema,
        },
      }));
      body.tool_choice = request.toolChoice ?? 'auto';
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.stopSequences && request.stopSequences.length > 0) body.stop = request.stopSequences;
    if (stream) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    return body;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const options = { ...this.#options, provider: this.provider };
    return completeModel(this.#url, this.#headers, this.body(request), request, options, {
      whole: (body) => this.#whole(body),
      streamed: (events) => this.#streamed(events, request),
    });
  }

  #whole(body: Json): ModelResponse {
    const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
    const message = isObject(choice) ? choice.message : undefined;
    if (!isObject(choice) || !isObject(message))
      throw this.#invalid(
        isObject(body.error) ? String(body.error.message) : 'no choices[0].message in the answer',
      );
    const content: (TextContent | ToolUseContent)[] = [];
    if (typeof message.content === 'string' && message.content !== '')
      content.push({ type: 'text', text: message.content });
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    calls.forEach((call, i) => {
      const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
      if (!isObject(call) || !fn || typeof fn.name !== 'string') return;
      const id = typeof call.id === 'string' ? call.id : `call_${i}`;
      content.push(
        toolUse(
          id,
          fn.name,
          typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
        ),
      );
    });
    const usage = usageOf(body.usage);
    return {
      role: 'assistant',
      content,
      model: typeof body.model === 'string' ? body.model : this.model,
      stopReason: stopReason(choice.finish_reason, content),
      ...(usage ? { usage } : {}),
    };
  }

  async #streamed(events: AsyncGenerator<StreamEvent>, request: ModelRequest): Promise<ModelResponse> {
    const emit = request.onevent;
    let text = '';
    let model = this.model;
    let finish: unknown;
    let usage: ModelUsage | undefined;
    let chunks = 0;
    const calls = new Map<number, { id: string; name: string; args: string; started: boolean }>();
    for await (const { data } of events) {
      if (isObject(data.error)) {
        const message =
          typeof data.error.message === 'string' ? data.error.message : JSON.stringify(data.error);
        const type = typeof data.error.type === 'string' ? data.error.type : undefined;
        throw new ModelError(
          'MODEL_REQUEST_FAILED',
          `${this.provider} stream error${type ? ` ${type}` : ''}: ${message}`,
          {
            provider: this.provider,
            ...(type ? { type } : {}),
          },
        );
      }
      chunks++;
      if (typeof data.model === 'string') model = data.model;
      const u = usageOf(data.usage);
      if (u) {
        usage = u;
        emit?.({ type: 'usage', usage: u });
      }
      const choice = Array.isArray(data.choices) ? data.choices[0] : undefined;
      if (!isObject(choice)) continue;
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) finish = choice.finish_reason;
      const delta = choice.delta;
      if (!isObject(delta)) continue;
      if (typeof delta.content === 'string' && delta.content !== '') {
        text += delta.content;
        emit?.({ type: 'text', text: delta.content });
      }
      if (!Array.isArray(delta.tool_calls)) continue;
      delta.tool_calls.forEach((piece, position) => {
        if (!isObject(piece)) return;
        const index = typeof piece.index === 'number' ? piece.index : position;
        const fn = isObject(piece.function) ? piece.function : {};
        let call = calls.get(index);
        if (!call) {
          call = { id: '', name: '', args: '', started: false };
          calls.set(index, call);
        }
        if (typeof piece.id === 'string' && piece.id !== '') call.id = piece.id;
        if (typeof fn.name === 'string') call.name += fn.name;
        if (!call.started && call.name !== '') {
          if (call.id === '') call.id = `call_${index}`;
          call.started = true;
          emit?.({ type: 'tool-use-start', id: call.id, name: call.name });
        }
        if (typeof fn.arguments === 'string' && fn.arguments !== '') {
          call.args += fn.arguments;
          if (call.started) emit?.({ type: 'tool-use-delta', id: call.id, json: fn.arguments });
        }
      });
    }
    if (chunks === 0) throw this.#invalid('the stream carried no chunk');
    const content: (TextContent | ToolUseContent)[] = text === '' ? [] : [{ type: 'text', text }];
    for (const [index, call] of [...calls].sort((a, b) => a[0] - b[0]))
      if (call.name !== '') content.push(toolUse(call.id || `call_${index}`, call.name, call.args));
    return {
      role: 'assistant',
      content,
      model,
      stopReason: stopReason(finish, content),
      ...(usage ? { usage } : {}),
    };
  }

  #invalid(why: string): ModelError {
    return new ModelError('MODEL_INVALID_RESPONSE', `${this.provider} answered oddly: ${why}`, {
      provider: this.provider,
    });
  }
}

/** MCP sampling messages as Chat Completions messages (tool results as `tool` messages right after the call). */
export function openAIMessages(system: string | undefined, messages: readonly SamplingMessage[]): Json[] {
  const out: Json[] = [];
  if (system !== undefined && system !== '') out.push({ role: 'system', content: system });
  for (const message of messages) {
    const blocks = blocksOf(message.content);
    if (message.role === 'assistant') {
      const texts: string[] = [];
      const calls: Json[] = [];
      for (const b of blocks) {
        if (b.type === 'text') texts.push(b.text);
        else if (b.type === 'tool_use') {
          const raw = b._meta?.[INVALID_ARGUMENTS_META];
          calls.push({
            id: b.id,
            type: 'function',
            function: { name: b.name, arguments: typeof raw === 'string' ? raw : JSON.stringify(b.input) },
          });
        } else texts.push(`[${b.type}]`);
      }
      out.push({
        role: 'assistant',
        content: texts.length > 0 ? texts.join('\n\n') : null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      continue;
    }
    // A user message: tool results first (the API wants them right after the assistant's calls), then the rest.
    const rest: Part[] = [];
    for (const b of blocks) {
      if (b.type === 'tool_result') {
        const parts = toolResultParts(b);
        const text = parts.filter((p) => p.type === 'text').map((p) => (p.type === 'text' ? p.text : ''));
        const media = parts.filter((p) => p.type !== 'text');
        if (media.length > 0) {
          text.push(
            `(${media.length} ${media.length === 1 ? 'attachment follows' : 'attachments follow'} in the next message)`,
          );
          rest.push({ type: 'text', text: `Attachments of the tool call ${b.toolUseId}:` }, ...media);
        }
        out.push({
          role: 'tool',
          tool_call_id: b.toolUseId,
          content: `${b.isError === true ? 'Error: ' : ''}${text.join('\n\n')}`,
        });
      } else if (b.type === 'tool_use') rest.push({ type: 'text', text: `[tool_use ${b.name}]` });
      else rest.push(...partsOf([b]));
    }
    if (rest.length > 0) out.push({ role: 'user', content: userContent(rest) });
  }
  return out;
}

/** A user message's content: a plain string when it is only text (every server speaking the API reads that). */
function userContent(parts: Part[]): string | Json[] {
  if (parts.every((p) => p.type === 'text'))
    return parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n');
  return parts.map((p): Json => {
    if (p.type === 'text') return { type: 'text', text: p.text };
    if (p.type === 'image')
      return { type: 'image_url', image_url: { url: `data:${p.mimeType};base64,${p.data}` } };
    const format = audioFormat(p.mimeType);
    return format
      ? { type: 'input_audio', input_audio: { data: p.data, format } }
      : { type: 'text', text: `[audio of type ${p.mimeType}, not supported by this API]` };
  });
}

function audioFormat(mimeType: string): 'wav' | 'mp3' | undefined {
  if (/wav/.test(mimeType)) return 'wav';
  if (/mpeg|mp3/.test(mimeType)) return 'mp3';
  return undefined;
}

function stopReason(finish: unknown, content: readonly { type: string }[]): string {
  if (finish === 'tool_calls' || finish === 'function_call') return 'toolUse';
  if (finish === 'length') return 'maxTokens';
  if (finish === 'stop' || finish === undefined || finish === null)
    return content.some((c) => c.type === 'tool_use') ? 'toolUse' : 'endTurn';
  return String(finish);
}

function usageOf(usage: unknown): ModelUsage | undefined {
  if (!isObject(usage)) return undefined;
  const input = usage.prompt_tokens;
  const output = usage.completion_tokens;
  if (typeof input !== 'number' || typeof output !== 'number') return undefined;
  return { inputTokens: input, outputTokens: output };
}
