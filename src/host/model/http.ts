import { SseParser } from '../../framing/sse.js';
import { errorMessage, McpkitError, type McpkitErrorCode } from '../../jsonrpc/errors.js';
import type { ModelRequest, ModelResponse, ModelStreamEvent, ModelUsage } from './types.js';

/** A model API's error: the provider, the HTTP status and the API's error type, with the provider's message. */
export class ModelError extends McpkitError {
  readonly provider: string;
  /** The HTTP status (absent for a network failure or a broken response). */
  readonly status: number | undefined;
  /** The API's error type (`rate_limit_error`, `invalid_request_error`, …) when it gave one. */
  readonly type: string | undefined;

  constructor(
    code: McpkitErrorCode,
    message: string,
    details: { provider: string; status?: number; type?: string; cause?: unknown },
  ) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ModelError';
    this.provider = details.provider;
    this.status = details.status;
    this.type = details.type;
  }
}

/** How an adapter talks HTTP. */
export interface ModelHttpOptions {
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Retries of a 408, 409, 429 or 5xx answer. Default 2. */
  maxRetries?: number;
  /** The longest wait a `retry-after` may ask for before the error is given up on at once, in ms. Default 60 000. */
  maxRetryDelayMs?: number;
}

interface PostOptions extends ModelHttpOptions {
  provider: string;
  signal?: AbortSignal | undefined;
  onevent?: ((event: ModelStreamEvent) => void) | undefined;
}

/** Statuses worth another try (as the providers' own SDKs retry them). */
function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * POSTs a JSON body to a model API: answers the OK response; retries a 408/409/429/5xx a bounded number of times,
 * waiting what `retry-after-ms` / `retry-after` ask (else a short exponential backoff); any other failure is a
 * {@link ModelError} carrying the provider's own message.
 */
export async function postModel(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  options: PostOptions,
): Promise<Response> {
  const f = options.fetch ?? fetch;
  const { provider, signal } = options;
  const maxRetries = options.maxRetries ?? 2;
  const maxDelay = options.maxRetryDelayMs ?? 60_000;
  const json = JSON.stringify(body);
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await f(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: json,
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      if (signal?.aborted)
        throw new McpkitError('REQUEST_CANCELLED', `The ${provider} request was cancelled`);
      throw new ModelError(
        'MODEL_REQUEST_FAILED',
        `${provider}: the request to ${url} failed: ${networkErrorText(e)}`,
        {
          provider,
          cause: e,
        },
      );
    }
    if (response.ok) return response;
    const { message, type } = describeError(await response.text().catch(() => ''));
    const status = response.status;
    if (retryable(status) && attempt < maxRetries) {
      const delayMs = retryDelay(response.headers, attempt);
      if (delayMs <= maxDelay) {
        options.onevent?.({ type: 'retry', attempt: attempt + 1, status, delayMs });
        await sleep(delayMs, signal);
        continue;
      }
    }
    const tries = attempt === 0 ? '' : ` (after ${attempt + 1} tries)`;
    throw new ModelError(
      status === 429 ? 'MODEL_RATE_LIMITED' : 'MODEL_REQUEST_FAILED',
      `${provider} answered HTTP ${status}${type === undefined ? '' : ` ${type}`}${tries}: ${message}`,
      { provider, status, ...(type === undefined ? {} : { type }) },
    );
  }
}

/** How an adapter reads its API's answer: a whole JSON body, or the events of a stream. */
export interface ModelAnswerReaders {
  whole(body: Record<string, unknown>): ModelResponse;
  streamed(events: AsyncGenerator<StreamEvent>): Promise<ModelResponse>;
}

/**
 * One request of an adapter: POSTs `body` by {@link postModel} with the request's signal and events, then reads the
 * answer as a stream when the body asked for one (`stream: true`), else whole.
 */
export async function completeModel(
  url: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
  request: ModelRequest,
  options: ModelHttpOptions & { provider: string },
  read: ModelAnswerReaders,
): Promise<ModelResponse> {
  const response = await postModel(url, headers, body, {
    ...options,
    signal: request.signal,
    onevent: request.onevent,
  });
  if (body.stream !== true) return read.whole(await jsonBody(response, options.provider));
  return read.streamed(streamEvents(response, options.provider, request.onevent));
}

/**
 * What a failed fetch says with its causes, which undici's own message ("fetch failed") leaves out:
 * `fetch failed (connect ECONNREFUSED 127.0.0.1:11434)`; every address tried when there were several.
 */
export function networkErrorText(error: unknown): string {
  const causes: string[] = [];
  let cause: unknown = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++) {
    const parts = cause instanceof AggregateError ? cause.errors : [cause];
    for (const part of parts) {
      const text =
        part instanceof Error ? part.message || String((part as { code?: unknown }).code ?? '') : '';
      if (text !== '' && !causes.includes(text)) causes.push(text);
    }
    cause = cause.cause;
  }
  const message = errorMessage(error);
  return causes.length === 0 ? message : `${message} (${causes.join('; ')})`;
}

/**
 * Checks that something answers at a model API's root before anything relies on it (a chat starting its servers):
 * any HTTP answer will do, so no key is sent and nothing is spent; no answer (refused, unknown host, nothing within
 * `timeoutMs`, default 10 s) is a {@link ModelError} naming the cause.
 */
export async function checkModelServer(
  baseUrl: string,
  provider: string,
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<void> {
  const f = options.fetch ?? fetch;
  try {
    const response = await f(baseUrl, { signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });
    await response.body?.cancel();
  } catch (e) {
    throw new ModelError(
      'MODEL_REQUEST_FAILED',
      `${provider}: no model server answers at ${baseUrl}: ${networkErrorText(e)}`,
      { provider, cause: e },
    );
  }
}

/** The wait a 429/5xx asks for: `retry-after-ms`, `retry-after` in seconds or as a date, else backoff with jitter. */
export function retryDelay(headers: Headers, attempt: number, now = Date.now()): number {
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers.get('retry-after');
  if (after !== null) {
    const seconds = Number(after);
    if (after.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const base = Math.min(8000, 500 * 2 ** attempt);
  return base / 2 + (base / 2) * Math.random();
}

/** The message and type of an error body in either API's shape (`{error: {message, type}}`), else its text. */
export function describeError(text: string): { message: string; type?: string } {
  try {
    const body: unknown = JSON.parse(text);
    const error = isObject(body) ? body.error : undefined;
    if (isObject(error) && typeof error.message === 'string') {
      const type =
        typeof error.type === 'string' ? error.type : typeof error.code === 'string' ? error.code : undefined;
      return type === undefined ? { message: error.message } : { message: error.message, type };
    }
    if (typeof error === 'string') return { message: error };
  } catch {
    // Not JSON: the text itself is the message.
  }
  const trimmed = text.trim();
  return { message: trimmed === '' ? '(no message)' : trimmed.slice(0, 500) };
}

/** One event of a streamed answer: its `event:` name and its data parsed as JSON. */
export interface StreamEvent {
  event: string | undefined;
  data: Record<string, unknown>;
}

/**
 * The JSON events of a `text/event-stream` response. A chunk whose data is not a JSON object is skipped (and
 * reported), never thrown; `[DONE]` ends the stream.
 */
export async function* streamEvents(
  response: Response,
  provider: string,
  onevent: ((event: ModelStreamEvent) => void) | undefined,
): AsyncGenerator<StreamEvent> {
  const body = response.body;
  if (!body) throw new ModelError('MODEL_INVALID_RESPONSE', `${provider} sent an empty stream`, { provider });
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (const event of parser.push(done ? `${text}\n\n` : text)) {
        const data = event.data.trim();
        if (data === '') continue;
        if (data === '[DONE]') return;
        let parsed: unknown;
        try {
          parsed = JSON.parse(data);
        } catch {
          onevent?.({ type: 'skipped', reason: `not JSON: ${data.slice(0, 80)}` });
          continue;
        }
        if (!isObject(parsed)) {
          onevent?.({ type: 'skipped', reason: `not an object: ${data.slice(0, 80)}` });
          continue;
        }
        yield { event: event.event, data: parsed };
      }
      if (done) return;
    }
  } catch (e) {
    if (e instanceof McpkitError) throw e;
    throw new ModelError('MODEL_INVALID_RESPONSE', `${provider}'s stream broke off: ${errorMessage(e)}`, {
      provider,
      cause: e,
    });
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

/** Parses a whole JSON response body (non-streamed answers). */
export async function jsonBody(response: Response, provider: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    const body: unknown = JSON.parse(text);
    if (isObject(body)) return body;
  } catch {
    // Falls through to the error below.
  }
  throw new ModelError(
    'MODEL_INVALID_RESPONSE',
    `${provider} answered with something that is not a JSON object`,
    {
      provider,
    },
  );
}

/** The usage of an answer of the Messages or the Responses API (`input_tokens`, `output_tokens`), when it has one. */
export function tokenUsage(usage: unknown): ModelUsage | undefined {
  if (!isObject(usage) || typeof usage.input_tokens !== 'number' || typeof usage.output_tokens !== 'number')
    return undefined;
  return { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new McpkitError('REQUEST_CANCELLED', 'The model request was cancelled'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onabort);
      resolve();
    }, ms);
    const onabort = () => {
      clearTimeout(timer);
      reject(new McpkitError('REQUEST_CANCELLED', 'The model request was cancelled'));
    };
    signal?.addEventListener('abort', onabort, { once: true });
  });
}
