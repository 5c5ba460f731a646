/**
 * Server-side deadlines and concurrency caps of tool calls. A deadline aborts the handler's `ctx.signal` and answers
 * at once with an `isError` result saying so (whatever the handler returns later is discarded). Caps bound the calls
 * running at once per session and per tool; beyond a cap calls wait in a bounded queue, beyond the queue they are
 * refused with `ErrorCode.RateLimited`.
 */
import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import type { Middleware } from '../middleware.js';
import { replaceSignal } from '../request-context.js';
import { withFailure } from './failure.js';
import { entriesOf, type NameRef } from './names.js';
import { nonNegativeInteger, positiveInteger } from './rate.js';
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

/** The deadlines: a middleware, or undefined when there are none. */
export function deadlines(options: TimeoutOptions, names: NameRef[]): Middleware | undefined {
  const byTool = new Map<string, number>();
  for (const [tool, ms] of entriesOf(options.tools, 'timeouts.tools')) {
    const where = `timeouts.tools[${JSON.stringify(tool)}]`;
    byTool.set(tool, positiveInteger(ms, where));
    names.push({ kind: 'tool', name: tool, where });
  }
  const fallback =
    options.defaultMs === undefined ? undefined : positiveInteger(options.defaultMs, 'timeouts.defaultMs');
  if (fallback === undefined && byTool.size === 0) return undefined;
  return (request, next) => {
    if (request.method !== 'tools/call') return next();
    const name = request.params.name;
    const ms = (typeof name === 'string' ? byTool.get(name) : undefined) ?? fallback;
    if (ms === undefined) return next();
    const controller = new AbortController();
    replaceSignal(request.ctx, AbortSignal.any([request.ctx.signal, controller.signal]));
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        const text = `Tool ${String(name)} timed out after ${ms} ms`;
        const error = new McpkitError('REQUEST_TIMEOUT', text);
        controller.abort(error);
        resolve(
          withFailure({ content: [{ type: 'text', text }], isError: true }, { error, outcome: 'timeout' }),
        );
      }, ms);
      const done = () => clearTimeout(timer);
      let pending: Promise<JsonObject>;
      try {
        pending = next();
      } catch (e) {
        done();
        reject(e);
        return;
      }
      pending.then(
        (value) => {
          done();
          resolve(value);
        },
        (e: unknown) => {
          done();
          reject(e);
        },
      );
    });
  };
}

/** One cap: calls running, and calls waiting their turn. */
interface Gate {
  active: number;
  readonly waiting: (() => void)[];
}

/** The concurrency caps: a middleware, or undefined when there are none. */
export function concurrencyCaps(options: ConcurrencyOptions, names: NameRef[]): Middleware | undefined {
  const perSession =
    options.perSession === undefined
      ? undefined
      : positiveInteger(options.perSession, 'concurrency.perSession');
  const maxQueue =
    options.maxQueue === undefined ? 0 : nonNegativeInteger(options.maxQueue, 'concurrency.maxQueue');
  let everyTool: number | undefined;
  const byTool = new Map<string, number>();
  if (typeof options.perTool === 'number')
    everyTool = positiveInteger(options.perTool, 'concurrency.perTool');
  else {
    for (const [tool, cap] of entriesOf(options.perTool, 'concurrency.perTool')) {
      const where = `concurrency.perTool[${JSON.stringify(tool)}]`;
      byTool.set(tool, positiveInteger(cap, where));
      names.push({ kind: 'tool', name: tool, where });
    }
  }
  if (perSession === undefined && everyTool === undefined && byTool.size === 0) return undefined;
  const sessions = new Map<string, Gate>();
  const tools = new Map<string, Gate>();

  /** Enters `gate` now (undefined), after a wait (a promise), or throws when the queue is full. */
  const enter = (
    gates: Map<string, Gate>,
    key: string,
    cap: number,
    what: string,
    signal: AbortSignal,
  ): Promise<void> | undefined => {
    let gate = gates.get(key);
    if (gate === undefined) {
      gate = { active: 0, waiting: [] };
      gates.set(key, gate);
    }
    if (gate.active < cap) {
      gate.active++;
      return undefined;
    }
    if (gate.waiting.length >= maxQueue) {
      throw new JsonRpcError(
        ErrorCode.RateLimited,
        `Too many concurrent calls ${what} (at most ${cap} at once${maxQueue > 0 ? `, ${maxQueue} waiting` : ''}): retry later`,
        { limit: `${cap} concurrent ${what}` },
      );
    }
    const g = gate;
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener('abort', cancel);
        g.active++;
        resolve();
      };
      const cancel = () => {
        const i = g.waiting.indexOf(turn);
        if (i >= 0) g.waiting.splice(i, 1);
        reject(signal.reason);
      };
      g.waiting.push(turn);
      signal.addEventListener('abort', cancel, { once: true });
    });
  };
  const leave = (gates: Map<string, Gate>, key: string) => {
    const gate = gates.get(key);
    if (gate === undefined) return;
    gate.active--;
    const next = gate.waiting.shift();
    if (next) next();
    else if (gate.active === 0) gates.delete(key);
  };

  return (request, next) => {
    if (request.method !== 'tools/call') return next();
    const name = typeof request.params.name === 'string' ? request.params.name : '';
    const toolCap = byTool.get(name) ?? everyTool;
    const session =
      perSession === undefined ? undefined : (sessionKey(request.ctx) ?? clientKey(request.ctx));
    if (session === undefined && toolCap === undefined) return next();
    const signal = request.ctx.signal;
    const run = async (): Promise<JsonObject> => {
      if (session !== undefined)
        await enter(sessions, session, perSession as number, 'on this session', signal);
      try {
        if (toolCap !== undefined) await enter(tools, name, toolCap, `of the tool ${name}`, signal);
        try {
          return await next();
        } finally {
          if (toolCap !== undefined) leave(tools, name);
        }
      } finally {
        if (session !== undefined) leave(sessions, session);
      }
    };
    return run();
  };
}
