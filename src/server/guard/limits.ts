/**
 * Size limits on arguments and results, and error normalization: what a client sees of a failure is a short
 * message with a reference, never a stack or an internal message; the full error goes to the audit record.
 */
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { InputRequiredSignal } from '../../spec/input-required.js';
import { failureOf, withFailure } from '../handler/failure.js';
import type { Answer, MiddlewareRequest } from '../handler/middleware.js';
import { positiveInteger } from './rate.js';
import { type Last, observe, type Stage } from './stage.js';

/**
 * The `limits` option of a server: sizes are lengths of JSON text, in characters.
 *
 * @example
 * new McpServer(info, { limits: { maxArgumentsSize: 64_000, maxResultSize: 1_000_000 } });
 */
export interface SizeLimits {
  /** The longest arguments of `tools/call` and `prompts/get`. Longer: refused with InvalidParams. */
  readonly maxArgumentsSize?: number;
  /**
   * The longest result of `tools/call`, `resources/read` and `prompts/get`. Longer: a tool answers an `isError`
   * result saying so, the others an internal error.
   */
  readonly maxResultSize?: number;
}

const SIZED = new Set(['tools/call', 'resources/read', 'prompts/get']);

/** The compiled size limits. */
export class SizeLimiter {
  readonly #maxArgs: number | undefined;
  readonly #maxResult: number | undefined;

  constructor(options: SizeLimits) {
    this.#maxArgs =
      options.maxArgumentsSize === undefined
        ? undefined
        : positiveInteger(options.maxArgumentsSize, 'limits.maxArgumentsSize');
    this.#maxResult =
      options.maxResultSize === undefined
        ? undefined
        : positiveInteger(options.maxResultSize, 'limits.maxResultSize');
  }

  /** The stage of the limits of `method` in front of `inner` (`inner` itself when none applies). */
  stage(method: string, inner: Stage): Stage {
    if (!SIZED.has(method) || (this.#maxArgs === undefined && this.#maxResult === undefined)) return inner;
    return new SizeStage(this.#maxArgs, this.#maxResult, inner);
  }
}

class SizeStage implements Stage {
  readonly #maxArgs: number | undefined;
  readonly #inner: Stage;
  readonly #check:
    | ((request: MiddlewareRequest, result: JsonObject | undefined) => JsonObject | undefined)
    | undefined;

  constructor(maxArgs: number | undefined, maxResult: number | undefined, inner: Stage) {
    this.#maxArgs = maxArgs;
    this.#inner = inner;
    this.#check =
      maxResult === undefined ? undefined : (request, result) => checkResult(request, result, maxResult);
  }

  run(request: MiddlewareRequest, last: Last): Answer {
    const maxArgs = this.#maxArgs;
    const args = request.params.arguments;
    if (maxArgs !== undefined && args !== undefined) {
      const size = JSON.stringify(args).length;
      if (size > maxArgs) {
        throw new JsonRpcError(
          ErrorCode.InvalidParams,
          `Arguments of ${what(request)} too large: ${size} characters of JSON, at most ${maxArgs}`,
          { reason: 'too_large', size, limit: maxArgs },
        );
      }
    }
    const check = this.#check;
    return check === undefined ? this.#inner.run(request, last) : observe(request, last, this.#inner, check);
  }
}

/** A result over `maxResult`: a tool's becomes an `isError` result, another method's an internal error. */
function checkResult(
  request: MiddlewareRequest,
  result: JsonObject | undefined,
  max: number,
): JsonObject | undefined {
  if (result === undefined) return undefined;
  const size = JSON.stringify(result).length;
  if (size <= max) return undefined;
  const text = `The result of ${what(request)} is too large: ${size} characters of JSON, at most ${max}`;
  if (request.method === 'tools/call') {
    const error = new JsonRpcError(ErrorCode.InternalError, text);
    return withFailure({ content: [{ type: 'text', text }], isError: true }, { error, outcome: 'too_large' });
  }
  throw new JsonRpcError(ErrorCode.InternalError, text, { reason: 'too_large', size, limit: max });
}

function what(request: MiddlewareRequest): string {
  const name = request.params.name;
  return typeof name === 'string' ? `${request.method} ${name}` : request.method;
}

/** A short reference that ties what the client saw to the audit record. */
function newRef(): string {
  return crypto.randomUUID().slice(0, 8);
}

/**
 * Error normalization: a tool handler's thrown error (an `isError` result carrying its message) becomes "Tool x
 * failed (ref …)"; any other error that is not a deliberate JSON-RPC error (or is an internal one, -32603) becomes
 * "Internal error (ref …)". Errors a handler throws as `JsonRpcError` with another code are the handler's answer
 * and pass unchanged, as do results a handler returns with `isError` itself.
 */
export class NormalizeStage implements Stage {
  readonly #inner: Stage;

  constructor(inner: Stage) {
    this.#inner = inner;
  }

  run(request: MiddlewareRequest, last: Last): Answer {
    return observe(request, last, this.#inner, normalizeOutcome);
  }
}

function normalizeOutcome(
  request: MiddlewareRequest,
  result: JsonObject | undefined,
  e: unknown,
): JsonObject | undefined {
  if (result === undefined) return withCause(e, normalizeError);
  const failure = failureOf(result);
  if (failure === undefined || failure.outcome !== undefined) return undefined;
  const ref = newRef();
  const name = typeof request.params.name === 'string' ? request.params.name : 'call';
  return withFailure(
    { content: [{ type: 'text', text: `Tool ${name} failed (ref ${ref})` }], isError: true },
    { error: failure.error, ref },
  );
}

function normalizeError(e: unknown): never {
  if (e instanceof InputRequiredSignal) throw e;
  if (e instanceof JsonRpcError && e.code !== ErrorCode.InternalError) throw e;
  const ref = newRef();
  throw new JsonRpcError(ErrorCode.InternalError, `Internal error (ref ${ref})`, { ref });
}

/** Runs `normalize` and sets the original error as the cause of the error it throws. */
function withCause(e: unknown, normalize: (e: unknown) => never): never {
  try {
    normalize(e);
  } catch (out) {
    if (out !== e && out instanceof Error) (out as { cause?: unknown }).cause = e;
    throw out;
  }
  throw e;
}
