import { McpkitError } from '../../jsonrpc/errors.js';
import { AnthropicModel } from './anthropic.js';
import type { ModelHttpOptions } from './http.js';
import { OpenAIChatModel } from './openai.js';
import { OpenAIResponsesModel } from './openai-responses.js';
import type { ModelAdapter } from './types.js';

/** The providers a model spec may name. */
export type ModelProvider = 'openai' | 'openai-responses' | 'anthropic' | 'ollama';

/** A parsed `provider:model` spec. */
export interface ModelSpec {
  provider: ModelProvider;
  model: string;
}

const PROVIDERS: readonly ModelProvider[] = ['openai', 'openai-responses', 'anthropic', 'ollama'];

/**
 * Parses `provider:model` (`openai:gpt-4o`, `openai-responses:gpt-5.4`, `anthropic:claude-sonnet-4-5`, `ollama:llama3`);
 * the model part may hold colons itself (`ollama:llama3:8b`). A wrong spec is a `MODEL_CONFIG_INVALID` error saying what is expected.
 */
export function parseModelSpec(spec: string): ModelSpec {
  const colon = spec.indexOf(':');
  const provider = spec.slice(0, colon).trim().toLowerCase();
  const model = spec.slice(colon + 1).trim();
  if (colon < 0 || model === '' || !PROVIDERS.includes(provider as ModelProvider))
    throw new McpkitError(
      'MODEL_CONFIG_INVALID',
      `A model is given as provider:name with provider one of ${PROVIDERS.join(', ')} (e.g. openai:gpt-4o, openai-responses:gpt-5.4, anthropic:claude-sonnet-4-5, ollama:llama3), got ${JSON.stringify(spec)}`,
    );
  return { provider: provider as ModelProvider, model };
}

/** Options of {@link createModel}: where the API is and how to talk to it (each defaults from the environment). */
export interface CreateModelOptions extends ModelHttpOptions {
  /** The API root; default from `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` / `OLLAMA_HOST`, else the provider's. */
  baseUrl?: string;
  /** The key; default from `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` (Ollama needs none). */
  apiKey?: string;
  /** Stream answers. Default true. */
  stream?: boolean;
  /** The environment read for defaults. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

const OPENAI_URL = 'https://api.openai.com/v1';
const ANTHROPIC_URL = 'https://api.anthropic.com';

/**
 * The adapter of a model spec (a string or parsed): `openai` and `ollama` through the Chat Completions API,
 * `openai-responses` through OpenAI's Responses API (the one with OpenAI's own tool search; same key and base URL as
 * `openai`), `anthropic` through the Messages API. A key is required only for a provider's own public endpoint.
 *
 * @example
 * const model = createModel('anthropic:claude-sonnet-4-5'); // ANTHROPIC_API_KEY from the environment
 */
export function createModel(spec: string | ModelSpec, options: CreateModelOptions = {}): ModelAdapter {
  const { provider, model } = typeof spec === 'string' ? parseModelSpec(spec) : spec;
  const env = options.env ?? process.env;
  const http: ModelHttpOptions = {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.maxRetryDelayMs === undefined ? {} : { maxRetryDelayMs: options.maxRetryDelayMs }),
  };
  const stream = options.stream ?? true;
  if (provider === 'anthropic') {
    const baseUrl = options.baseUrl ?? nonEmpty(env.ANTHROPIC_BASE_URL) ?? ANTHROPIC_URL;
    const apiKey = options.apiKey ?? nonEmpty(env.ANTHROPIC_API_KEY);
    if (apiKey === undefined && baseUrl === ANTHROPIC_URL) throw missingKey('anthropic', 'ANTHROPIC_API_KEY');
    return new AnthropicModel({ model, baseUrl, stream, ...http, ...(apiKey ? { apiKey } : {}) });
  }
  if (provider === 'ollama') {
    const baseUrl = options.baseUrl ?? ollamaUrl(nonEmpty(env.OLLAMA_HOST));
    return new OpenAIChatModel({
      model,
      baseUrl,
      provider,
      stream,
      ...http,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    });
  }
  const baseUrl = options.baseUrl ?? nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_URL;
  const apiKey = options.apiKey ?? nonEmpty(env.OPENAI_API_KEY);
  if (apiKey === undefined && baseUrl === OPENAI_URL) throw missingKey('openai', 'OPENAI_API_KEY');
  if (provider === 'openai-responses')
    return new OpenAIResponsesModel({ model, baseUrl, stream, ...http, ...(apiKey ? { apiKey } : {}) });
  return new OpenAIChatModel({ model, baseUrl, provider, stream, ...http, ...(apiKey ? { apiKey } : {}) });
}

/** Ollama's OpenAI-compatible root: `OLLAMA_HOST` (`host:port` or a URL) + `/v1`, else localhost:11434. */
function ollamaUrl(host: string | undefined): string {
  if (host === undefined) return 'http://localhost:11434/v1';
  const root = /^https?:\/\//.test(host) ? host : `http://${host}`;
  return `${root.replace(/\/+$/, '')}/v1`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function missingKey(provider: string, variable: string): McpkitError {
  return new McpkitError(
    'MODEL_CONFIG_INVALID',
    `The ${provider} API needs a key: set ${variable} or pass apiKey (or point the base URL at another server)`,
  );
}
