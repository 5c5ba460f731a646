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
  INVALID_ARGUMENTS_META,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  PROVIDER_BLOCKS_META,
  type ProviderBlock,
  toolUse,
  withProviderBlocks,
} from './types.js';

/** Options of {@link OpenAIResponsesModel}. */
export interface OpenAIResponsesOptions extends ModelHttpOptions {
  model: string;
  /** The API root (its `/responses` is called), e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Sent as a bearer token when given. */
  apiKey?: string;
  /** The name given to errors and logs. Default `openai-responses` (the model spec's provider). */
  provider?: string;
  /** Stream the answer (server-sent events). Default true. */
  stream?: boolean;
  /** Extra headers (an organization, a project). */
  headers?: Record<string, string>;
}

type Json = Record<string, unknown>;

/**
 * The output items of a hosted tool search (OpenAI's "Tool search" guide, gpt-5.4 and later): `tool_search_call` (its
 * `arguments`, `execution: 'server'`) and `tool_search_output` (the loaded definitions in `tools`), sent back in the
 * next request's `input` as they came. Other items that are not text or a call (reasoning, for one) are not kept.
 */
const KEPT_ITEMS = new Set(['tool_search_call', 'tool_search_output']);

/**
 * The OpenAI Responses API (`POST {baseUrl}/responses`): the system prompt as `instructions`, the conversation as
 * `input` items (messages, `function_call`, `function_call_output`), flat function tools; streamed as
 * `response.output_item.added` / `.done`, `response.output_text.delta`, `response.function_call_arguments.delta` and
 * `response.completed` (or `.incomplete`, `.failed`, `error`). With `toolSearch: 'provider'` it adds the hosted
 * `{ type: 'tool_search' }` tool and marks the deferred functions `defer_loading: true`. Stateless: every request
 * carries the whole conversation (no `previous_response_id`); the API has no stop sequences, so none are sent.
 */
export class OpenAIResponsesModel implements ModelAdapter {
  readonly provider: string;
  readonly deferredToolSearch = true;
  readonly model: string;
  /** The API's root, as given (what {@link checkModelServer} checks). */
  readonly baseUrl: string;
  readonly #options: OpenAIResponsesOptions;
  readonly #url: string;
  readonly #headers: Record<string, string>;

  constructor(options: OpenAIResponsesOptions) {
    this.#options = options;
    this.provider = options.provider ?? 'openai-responses';
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    this.#url = `${options.baseUrl.replace(/\/+$/, '')}/responses`;
    this.#headers = {
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      ...options.headers,
    };
  }

  /** The request body this adapter sends for `request` (what the API documents). */
  body(request: ModelRequest): Json {
    const body: Json = {
      model: this.model,
      input: responsesInput(request.messages),
      max_output_tokens: request.maxTokens ?? 4096,
    };
    if (request.system !== undefined && request.system !== '') body.instructions = request.system;
    if (request.tools && request.tools.length > 0) {
      const search = request.toolSearch === 'provider';
      const tools: Json[] = request.tools.map((t) => ({
        type: 'function',
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        parameters: t.inputSchema,
        // MCP schemas rarely meet strict mode's rules (every property required, no extra ones); the host checks them.
        strict: false,
        ...(t.defer === true && search ? { defer_loading: true } : {}),
      }));
      if (search) tools.unshift({ type: 'tool_search' });
      body.tools = tools;
      body.tool_choice = request.toolChoice ?? 'auto';
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (this.#options.stream ?? true) body.stream = true;
    return body;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const options = { ...this.#options, provider: this.provider };
    return completeModel(this.#url, this.#headers, this.body(request), request, options, {
      whole: (body) => this.#answer(body),
      streamed: (events) => this.#streamed(events, request),
    });
  }

  /** The answer of a whole response object (`object: 'response'`), or its failure as an error. */
  #answer(response: Json): ModelResponse {
    if (response.status === 'failed' || (isObject(response.error) && response.status !== 'completed'))
      throw this.#failed(isObject(response.error) ? response.error : {});
    if (!Array.isArray(response.output)) throw this.#invalid('no output array in the answer');
    const content = withProviderBlocks(response.output.flatMap((item) => this.#block(item)));
    const usage = tokenUsage(response.usage);
    const incomplete = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    return {
      role: 'assistant',
      content,
      model: typeof response.model === 'string' ? response.model : this.model,
      stopReason: stopReason(response.status, incomplete, content),
      ...(usage ? { usage } : {}),
    };
  }

  /** One output item as blocks: a message's text, a function call, or a kept item as it came. */
  #block(item: unknown): ProviderBlock[] {
    if (!isObject(item)) return [];
    if (item.type === 'message' && Array.isArray(item.content)) {
      const text = item.content
        .map((c) =>
          !isObject(c)
            ? ''
            : c.type === 'output_text' && typeof c.text === 'string'
              ? c.text
              : c.type === 'refusal' && typeof c.refusal === 'string'
                ? c.refusal
                : '',
        )
        .join('');
      return text === '' ? [] : [{ type: 'text', text }];
    }
    if (item.type === 'function_call' && typeof item.name === 'string') {
      const id = typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : '';
      if (id === '') return [];
      const args = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {});
      return [toolUse(id, item.name, args)];
    }
    if (typeof item.type === 'string' && KEPT_ITEMS.has(item.type)) return [{ raw: item }];
    // Reasoning and the items of tools mcpkit does not offer are not part of the conversation it keeps.
    return [];
  }

  async #streamed(events: AsyncGenerator<StreamEvent>, request: ModelRequest): Promise<ModelResponse> {
    const emit = request.onevent;
    /** The output items by `output_index`: as added, replaced by the finished item once `done`. */
    const items = new Map<number, Json>();
    const done = new Set<number>();
    const texts = new Map<number, string>();
    const args = new Map<number, string>();
    let final: Json | undefined;
    for await (const { event, data } of events) {
      const type = typeof data.type === 'string' ? data.type : event;
      const index = Number(data.output_index);
      switch (type) {
        case 'response.output_item.added': {
          if (!isObject(data.item)) break;
          items.set(index, { ...data.item });
          const item = data.item;
          if (
            item.type === 'function_call' &&
            typeof item.call_id === 'string' &&
            typeof item.name === 'string'
          )
            emit?.({ type: 'tool-use-start', id: item.call_id, name: item.name });
          break;
        }
        case 'response.output_text.delta':
          if (typeof data.delta !== 'string') break;
          texts.set(index, (texts.get(index) ?? '') + data.delta);
          emit?.({ type: 'text', text: data.delta });
          break;
        case 'response.function_call_arguments.delta': {
          if (typeof data.delta !== 'string') break;
          args.set(index, (args.get(index) ?? '') + data.delta);
          const id = items.get(index)?.call_id;
          if (typeof id === 'string') emit?.({ type: 'tool-use-delta', id, json: data.delta });
          break;
        }
        case 'response.output_item.done':
          if (!isObject(data.item)) break;
          items.set(index, data.item);
          done.add(index);
          break;
        case 'response.completed':
        case 'response.incomplete':
          final = isObject(data.response) ? data.response : {};
          break;
        case 'response.failed': {
          const response = isObject(data.response) ? data.response : {};
          throw this.#failed(isObject(response.error) ? response.error : {});
        }
        case 'error':
          throw this.#failed(data);
        default:
          // response.created, content parts, the `.done` of deltas and events of later API versions need nothing.
          break;
      }
    }
    if (final === undefined) throw this.#invalid('the stream ended before response.completed');
    // The finished response's output is the answer; a server that leaves it empty is read from the streamed items.
    const assembled = ([i, item]: [number, Json]): Json => {
      if (done.has(i)) return item;
      if (item.type === 'function_call') return { ...item, arguments: args.get(i) ?? '' };
      if (item.type === 'message')
        return { ...item, content: [{ type: 'output_text', text: texts.get(i) ?? '' }] };
      return item;
    };
    if (!Array.isArray(final.output) || final.output.length === 0)
      final = { ...final, output: [...items].sort((a, b) => a[0] - b[0]).map(assembled) };
    const answer = this.#answer({ ...final, status: final.status ?? 'completed' });
    if (answer.usage) emit?.({ type: 'usage', usage: answer.usage });
    return answer;
  }

  /** A failed response or an `error` event: the API's message, rate limits told apart. */
  #failed(error: Json): ModelError {
    const code = typeof error.code === 'string' ? error.code : undefined;
    const message = typeof error.message === 'string' ? error.message : JSON.stringify(error);
    return new ModelError(
      code === 'rate_limit_exceeded' ? 'MODEL_RATE_LIMITED' : 'MODEL_REQUEST_FAILED',
      `${this.provider} response failed${code ? ` ${code}` : ''}: ${message}`,
      { provider: this.provider, ...(code ? { type: code } : {}) },
    );
  }

  #invalid(why: string): ModelError {
    return new ModelError('MODEL_INVALID_RESPONSE', `${this.provider} answered oddly: ${why}`, {
      provider: this.provider,
    });
  }
}

/**
 * MCP sampling messages as Responses API input items: user and assistant messages, `function_call` items for the
 * assistant's calls (with the provider's items that came before them, as they came), `function_call_output` items for
 * tool results (before the rest of the user's message).
 */
export function responsesInput(messages: readonly SamplingMessage[]): Json[] {
  const out: Json[] = [];
  for (const message of messages) {
    const blocks = blocksOf(message.content);
    if (message.role === 'assistant') {
      for (const b of blocks) {
        const provider = b._meta?.[PROVIDER_BLOCKS_META];
        if (Array.isArray(provider)) for (const raw of provider) if (isObject(raw)) out.push(raw);
        if (b.type === 'tool_use') {
          const raw = b._meta?.[INVALID_ARGUMENTS_META];
          out.push({
            type: 'function_call',
            call_id: b.id,
            name: b.name,
            arguments: typeof raw === 'string' ? raw : JSON.stringify(b.input),
          });
        } else if (b.type === 'text') {
          if (b.text !== '') out.push({ role: 'assistant', content: b.text });
        } else out.push({ role: 'assistant', content: `[${b.type}]` });
      }
      continue;
    }
    const rest: Part[] = [];
    for (const b of blocks) {
      if (b.type === 'tool_result') {
        const parts = toolResultParts(b);
        const first = parts[0];
        if (b.isError === true && first?.type === 'text')
          parts[0] = { ...first, text: `Error: ${first.text}` };
        else if (b.isError === true) parts.unshift({ type: 'text', text: 'Error:' });
        out.push({
          type: 'function_call_output',
          call_id: b.toolUseId,
          output: parts.every((p) => p.type === 'text')
            ? parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n')
            : parts.map(inputPart),
        });
      } else if (b.type === 'tool_use') rest.push({ type: 'text', text: `[tool_use ${b.name}]` });
      else rest.push(...partsOf([b]));
    }
    if (rest.length === 0) continue;
    out.push({
      role: 'user',
      content: rest.every((p) => p.type === 'text')
        ? rest.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n')
        : rest.map(inputPart),
    });
  }
  return out;
}

/** A part as Responses input content (images as data URLs; the API takes no audio in messages). */
function inputPart(p: Part): Json {
  if (p.type === 'text') return { type: 'input_text', text: p.text };
  if (p.type === 'image')
    return { type: 'input_image', image_url: `data:${p.mimeType};base64,${p.data}`, detail: 'auto' };
  return { type: 'input_text', text: `[audio of type ${p.mimeType}, not supported by this API]` };
}

function stopReason(status: unknown, incomplete: unknown, content: readonly { type: string }[]): string {
  if (status === 'incomplete')
    return incomplete === 'max_output_tokens' ? 'maxTokens' : String(incomplete ?? 'incomplete');
  return content.some((c) => c.type === 'tool_use') ? 'toolUse' : 'endTurn';
}
