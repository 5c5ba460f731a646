/**
 * Size limits on arguments and results, and error normalization: what a client sees of a failure is a short
 * message with a reference, never a stack or an internal message; the full error goes to the audit record.
 */
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import type { Middleware } from '../middleware.js';
import { InputRequiredSignal } from '../modern/mrtr.js';
import { failureOf, withFailure } from './failure.js';
import { positiveInteger } from './rate.js';

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

/** The size limits: a middleware, or undefined when there are none. */
export function sizeLimits(options: SizeLimits): Middleware | undefined {
  const maxArgs =
    options.maxArgumentsSize === undefined
      ? undefined
      : positiveInteger(options.maxArgumentsSize, 'limits.maxArgumentsSize');
  const maxResult =
    options.maxResultSize === undefined
      ? undefined
      : positiveInteger(options.maxResultSize, 'limits.maxResultSize');
  if (maxArgs === undefined && maxResult === undefined) return undefined;
  return (request, next) => {
    const { method, params } = request;
    if (!SIZED.has(method)) return next();
    const what = typeof params.name === 'string' ? `${method} ${params.name}` : method;
    if (maxArgs !== undefined && params.arguments !== undefined) {
      const size = JSON.stringify(params.arguments).length;
      if (size > maxArgs) {
        throw new JsonRpcError(
          ErrorCode.InvalidParams,
          `Arguments of ${what} too large: ${size} characters of JSON, at most ${maxArgs}`,
          { reason: 'too_large', size, limit: maxArgs },
        );
      }
    }
    if (maxResult === undefined) return next();
    return next().then((result) => {
      const size = JSON.stringify(result).length;
      if (size <= maxResult) return result;
      const text = `The result of ${what} is too large: ${size} characters of JSON, at most ${maxResult}`;
      if (method === 'tools/call') {
        const error = new JsonRpcError(ErrorCode.InternalError, text);
        return withFailure(
          { content: [{ type: 'text', text }], isError: true },
          { error, outcome: 'too_large' },
        );
      }
      throw new JsonRpcError(ErrorCode.InternalError, text, { reason: 'too_large', size, limit: maxResult });
    });
  };
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
export const normalizeErrors: Middleware = (request, next) => {
  const normalize = (e: unknown): never => {
    if (e instanceof InputRequiredSignal) throw e;
    if (e instanceof JsonRpcError && e.code !== ErrorCode.InternalError) throw e;
    const ref = newRef();
    throw new JsonRpcError(ErrorCode.InternalError, `Internal error (ref ${ref})`, { ref });
  };
  let pending: Promise<JsonObject>;
  try {
    pending = next();
  } catch (e) {
    return withCause(e, normalize);
  }
  return pending.then(
    (result) => {
      const failure = failureOf(result);
      if (failure === undefined || failure.outcome !== undefined) return result;
      const ref = newRef();
      const name = typeof request.params.name === 'string' ? request.params.name : 'call';
      return withFailure(
        { content: [{ type: 'text', text: `Tool ${name} failed (ref ${ref})` }], isError: true },
        { error: failure.error, ref },
      );
    },
    (e: unknown) => withCause(e, normalize),
  );
};

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
