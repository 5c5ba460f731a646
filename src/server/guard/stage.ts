/**
 * The steps the guards are compiled into. A server's guards are not a chain of middleware walked on every call:
 * for each method (and for `tools/call`, each tool) the guards that apply are decided once, and linked into a
 * chain of {@link Stage}s, each holding the next. A call then costs only the guards that apply to it, allocates no
 * `next` closures, and stays synchronous while every guard on its way decides synchronously and the handler answers
 * synchronously (the server's fast path); a stage goes asynchronous only when it must (a remote rate-limit store, a
 * deadline around a handler that answered with a promise, a queue of a concurrency cap).
 */
import type { JsonObject } from '../../jsonrpc/types.js';
import type { Answer, MiddlewareRequest } from '../handler/middleware.js';

/** The step behind the guards: the middleware chain and the handler. */
export type Last = () => Answer;

/** One guard, compiled for one method (and tool), in front of the next stage. */
export interface Stage {
  run(request: MiddlewareRequest, last: Last): Answer;
}

/** No guard: the handler itself. */
export const LAST: Stage = Object.freeze({ run: (_request: MiddlewareRequest, last: Last) => last() });

/**
 * Runs `inner` and hands its outcome to `done` (synchronously for a synchronous answer or throw); the answer (or
 * error) is passed on unchanged unless `done` returns a replacement or throws.
 */
export function observe(
  request: MiddlewareRequest,
  last: Last,
  inner: Stage,
  done: (
    request: MiddlewareRequest,
    result: JsonObject | undefined,
    error: unknown,
  ) => JsonObject | undefined,
): Answer {
  let out: Answer;
  try {
    out = inner.run(request, last);
  } catch (e) {
    done(request, undefined, e);
    throw e;
  }
  if (!(out instanceof Promise)) return done(request, out, undefined) ?? out;
  return out.then(
    (result) => done(request, result, undefined) ?? result,
    (e: unknown) => {
      done(request, undefined, e);
      throw e;
    },
  );
}
