/**
 * Server-side deadlines and concurrency caps of tool calls. A deadline aborts the handler's `ctx.signal` and answers
 * at once with an `isError` result saying so (whatever the handler returns later is discarded). Caps bound the calls
 * running at once per session and per tool; beyond a cap calls wait in a bounded queue, beyond the queue they are
 * refused with `ErrorCode.RateLimited`.
 */
import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { replaceSignal } from '../dispatch/request-context.js';
import { withFailure } from '../handler/failure.js';
import type { Answer, MiddlewareRequest } from '../handler/middleware.js';
import { entriesOf, type NameRef } from './names.js';
import { nonNegativeInteger, positiveInteger } from './rate.js';
import type { Last, Stage } from './stage.js';
import { clientKey, sessionKey } from './subject.js';

/**
 * The `timeouts` option of a server: deadlines of tool calls, in ms.
 *
 * @example
 * new McpServer(info, { timeouts: { defaultMs: 30_000, tools: { report: 120_000 } } });
 */
export interface TimeoutOptions {
  /** The deadline of every tool call without one of its own. */
  readonly defaultMs?: number;
  /** Deadlines per tool name (registered at start). */
  readonly tools?: Readonly<Record<string, number>>;
}

/**
 * The `concurrency` option of a server: caps on tool calls running at once.
 *
 * @example
 * new McpServer(info, { concurrency: { perSession: 4, perTool: { render: 2 }, maxQueue: 16 } });
 */
export interface ConcurrencyOptions {
  /** Calls at once per session (a stateless request: per client). */
  readonly perSession?: number;
  /** Calls at once per tool, across the server: one cap for every tool, or caps by tool name. */
  readonly perTool?: number | Readonly<Record<string, number>>;
  /** Calls that may wait for a cap, per cap. Default 0: a call over a cap is refused at once. */
  readonly maxQueue?: number;
}

/** The compiled deadlines of tool calls. */
export class Deadlines {
  readonly #byTool = new Map<string, number>();
  readonly #fallback: number | undefined;

  constructor(options: TimeoutOptions, names: NameRef[]) {
    for (const [tool, ms] of entriesOf(options.tools, 'timeouts.tools')) {
      const where = `timeouts.tools[${JSON.stringify(tool)}]`;
      this.#byTool.set(tool, positiveInteger(ms, where));
      names.push({ kind: 'tool', name: tool, where });
    }
    this.#fallback =
      options.defaultMs === undefined ? undefined : positiveInteger(options.defaultMs, 'timeouts.defaultMs');
  }

  /** The stage of the deadline of the tool `tool` in front of `inner` (`inner` itself when it has none). */
  stage(tool: string, inner: Stage): Stage {
    const ms = this.#byTool.get(tool) ?? this.#fallback;
    return ms === undefined ? inner : new DeadlineStage(tool, ms, inner);
  }
}

/**
 * The signal of one call with a deadline, made only when the handler reads `ctx.signal` (a handler that answers
 * synchronously, or never looks, costs no AbortController).
 */
class CallDeadline {
  #controller: AbortController | undefined;
  #reason: unknown;
  #expired = false;

  /** The handler's signal: the request's, and this deadline's. */
  signal(request: AbortSignal): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#expired) this.#controller.abort(this.#reason);
    }
    return AbortSignal.any([request, this.#controller.signal]);
  }

  expire(reason: unknown): void {
    this.#expired = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** A deadline on one tool: counted from the call's start, it only waits for a handler that answered with a promise. */
class DeadlineStage implements Stage {
  readonly #tool: string;
  readonly #ms: number;
  readonly #inner: Stage;

  constructor(tool: string, ms: number, inner: Stage) {
    this.#tool = tool;
    this.#ms = ms;
    this.#inner = inner;
  }

  run(request: MiddlewareRequest, last: Last): Answer {
    const started = performance.now();
    const deadline = new CallDeadline();
    replaceSignal(request.ctx, (own) => deadline.signal(own));
    const out = this.#inner.run(request, last);
    if (!(out instanceof Promise)) return out;
    const ms = this.#ms;
    const tool = this.#tool;
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          const text = `Tool ${tool} timed out after ${ms} ms`;
          const error = new McpkitError('REQUEST_TIMEOUT', text);
          deadline.expire(error);
          resolve(
            withFailure({ content: [{ type: 'text', text }], isError: true }, { error, outcome: 'timeout' }),
          );
        },
        Math.max(0, ms - (performance.now() - started)),
      );
      out.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }
}

/** One cap: calls running, and calls waiting their turn. */
interface Gate {
  active: number;
  readonly waiting: (() => void)[];
}

/** The concurrency caps of tool calls. */
export class ConcurrencyCaps {
  readonly #perSession: number | undefined;
  readonly #maxQueue: number;
  readonly #everyTool: number | undefined;
  readonly #byTool = new Map<string, number>();
  readonly #sessions = new Map<string, Gate>();
  readonly #tools = new Map<string, Gate>();

  constructor(options: ConcurrencyOptions, names: NameRef[]) {
    this.#perSession =
      options.perSession === undefined
        ? undefined
        : positiveInteger(options.perSession, 'concurrency.perSession');
    this.#maxQueue =
      options.maxQueue === undefined ? 0 : nonNegativeInteger(options.maxQueue, 'concurrency.maxQueue');
    if (typeof options.perTool === 'number')
      this.#everyTool = positiveInteger(options.perTool, 'concurrency.perTool');
    else {
      for (const [tool, cap] of entriesOf(options.perTool, 'concurrency.perTool')) {
        const where = `concurrency.perTool[${JSON.stringify(tool)}]`;
        this.#byTool.set(tool, positiveInteger(cap, where));
        names.push({ kind: 'tool', name: tool, where });
      }
    }
  }

  /** The stage of the caps of the tool `tool` in front of `inner` (`inner` itself when none applies). */
  stage(tool: string, inner: Stage): Stage {
    const toolCap = this.#byTool.get(tool) ?? this.#everyTool;
    if (this.#perSession === undefined && toolCap === undefined) return inner;
    return new CapStage(this, tool, toolCap, inner);
  }

  /** @internal The cap per session (a stateless request: per client). */
  get perSession(): number | undefined {
    return this.#perSession;
  }

  /** @internal Enters the gate of a session (`tool` undefined) or tool: now (true), or after a wait (a promise). */
  enter(
    key: string,
    tool: boolean,
    cap: number,
    what: string,
    signal: () => AbortSignal,
  ): true | Promise<void> {
    const gates = tool ? this.#tools : this.#sessions;
    let gate = gates.get(key);
    if (gate === undefined) {
      gate = { active: 0, waiting: [] };
      gates.set(key, gate);
    }
    if (gate.active < cap) {
      gate.active++;
      return true;
    }
    const maxQueue = this.#maxQueue;
    if (gate.waiting.length >= maxQueue) {
      throw new JsonRpcError(
        ErrorCode.RateLimited,
        `Too many concurrent calls ${what} (at most ${cap} at once${maxQueue > 0 ? `, ${maxQueue} waiting` : ''}): retry later`,
        { limit: `${cap} concurrent ${what}` },
      );
    }
    const g = gate;
    const aborted = signal();
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        aborted.removeEventListener('abort', cancel);
        g.active++;
        resolve();
      };
      const cancel = () => {
        const i = g.waiting.indexOf(turn);
        if (i >= 0) g.waiting.splice(i, 1);
        reject(aborted.reason);
      };
      g.waiting.push(turn);
      aborted.addEventListener('abort', cancel, { once: true });
    });
  }

  /** @internal Leaves a gate entered with {@link enter}; the next waiting call enters. */
  leave(key: string, tool: boolean): void {
    const gates = tool ? this.#tools : this.#sessions;
    const gate = gates.get(key);
    if (gate === undefined) return;
    gate.active--;
    const next = gate.waiting.shift();
    if (next) next();
    else if (gate.active === 0) gates.delete(key);
  }
}

/** The caps of one tool: the caller's session gate, then the tool's gate; synchronous while both have room. */
class CapStage implements Stage {
  readonly #caps: ConcurrencyCaps;
  readonly #tool: string;
  readonly #toolCap: number | undefined;
  readonly #what: string;
  readonly #inner: Stage;

  constructor(caps: ConcurrencyCaps, tool: string, toolCap: number | undefined, inner: Stage) {
    this.#caps = caps;
    this.#tool = tool;
    this.#toolCap = toolCap;
    this.#what = `of the tool ${tool}`;
    this.#inner = inner;
  }

  run(request: MiddlewareRequest, last: Last): Answer {
    const caps = this.#caps;
    const perSession = caps.perSession;
    const ctx = request.ctx;
    const session = perSession === undefined ? undefined : (sessionKey(ctx) ?? clientKey(ctx));
    const signal = () => ctx.signal;
    if (session !== undefined) {
      const entered = caps.enter(session, false, perSession as number, 'on this session', signal);
      if (entered !== true) return this.#afterWait(entered, request, last, session, false);
    }
    return this.#inTool(request, last, session, signal);
  }

  /** In the session's gate (if any): enters the tool's gate, runs the call, leaves both when it ends. */
  #inTool(
    request: MiddlewareRequest,
    last: Last,
    session: string | undefined,
    signal: () => AbortSignal,
  ): Answer {
    const caps = this.#caps;
    const toolCap = this.#toolCap;
    const tool = this.#tool;
    if (toolCap !== undefined) {
      let entered: true | Promise<void>;
      try {
        entered = caps.enter(tool, true, toolCap, this.#what, signal);
      } catch (e) {
        if (session !== undefined) caps.leave(session, false);
        throw e;
      }
      if (entered !== true) return this.#afterWait(entered, request, last, session, true);
    }
    return this.#call(request, last, session);
  }

  #afterWait(
    wait: Promise<void>,
    request: MiddlewareRequest,
    last: Last,
    session: string | undefined,
    inTool: boolean,
  ): Promise<JsonObject> {
    return wait.then(
      () =>
        inTool
          ? this.#call(request, last, session)
          : this.#inTool(request, last, session, () => request.ctx.signal),
      (e: unknown) => {
        if (inTool && session !== undefined) this.#caps.leave(session, false);
        throw e;
      },
    );
  }

  /** Runs the call inside its gates and leaves them when it ends. */
  #call(request: MiddlewareRequest, last: Last, session: string | undefined): Answer {
    let out: Answer;
    try {
      out = this.#inner.run(request, last);
    } catch (e) {
      this.#leave(session);
      throw e;
    }
    if (!(out instanceof Promise)) {
      this.#leave(session);
      return out;
    }
    return out.then(
      (result) => {
        this.#leave(session);
        return result;
      },
      (e: unknown) => {
        this.#leave(session);
        throw e;
      },
    );
  }

  #leave(session: string | undefined): void {
    if (this.#toolCap !== undefined) this.#caps.leave(this.#tool, true);
    if (session !== undefined) this.#caps.leave(session, false);
  }
}
