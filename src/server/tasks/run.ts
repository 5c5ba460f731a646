import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import { isInputRequired, type MrtrState } from '../../spec/input-required.js';
import type { InputRequest } from '../../spec/modern.js';
import type { TaskRecord } from '../../store/task-record.js';
import { callTool, type ToolDef } from '../definitions/tools.js';
import { InputCollector } from '../dispatch/input-collector.js';
import type { RequestContext } from '../handler/context.js';

/** Why a running task was stopped before its handler finished. */
export type StopReason = 'cancelled' | 'expired' | 'shutdown' | 'superseded';

/** Most rounds of explicit `inputRequired(…)` one task goes through. */
export const MAX_TASK_INPUT_ROUNDS = 32;

interface Waiter {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * The in-process side of one running task: its AbortController and the inputs its handler waits for.
 * Asking publishes the request on the task (status input_required); answers arrive through
 * {@link TaskRun.deliver} once a `tasks/update` has stored them.
 */
export class TaskRun {
  readonly taskId: string;
  /** Which run of the task this is (the record's `run`: 0 first, one more each time it is started again). */
  readonly generation: number;
  readonly #controller = new AbortController();
  readonly #pending = new Map<string, Waiter>();
  readonly #publish: (key: string, request: InputRequest) => Promise<void>;
  #reason: StopReason | undefined;
  #seq = 0;

  constructor(
    taskId: string,
    publish: (key: string, request: InputRequest) => Promise<void>,
    generation = 0,
  ) {
    this.taskId = taskId;
    this.#publish = publish;
    this.generation = generation;
  }

  /** Aborted when the task is cancelled, expires or the server shuts down. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Why the run was stopped, if it was. */
  get stopReason(): StopReason | undefined {
    return this.#reason;
  }

  /** True while `key` was asked for and not answered. */
  isPending(key: string): boolean {
    return this.#pending.has(key);
  }

  /**
   * Asks the client for input; resolves with the answer. Keys are never reused in a task: `input-<n>` on its first
   * run, `input-<run>.<n>` on a run started again (an answer meant for an earlier run's question cannot reach it).
   */
  ask(request: InputRequest): Promise<unknown> {
    if (this.#reason) return Promise.reject(stoppedError(this.#reason));
    const n = ++this.#seq;
    const key = this.generation === 0 ? `input-${n}` : `input-${this.generation}.${n}`;
    const answer = new Promise<unknown>((resolve, reject) => this.#pending.set(key, { resolve, reject }));
    this.#publish(key, request).catch((e: unknown) => {
      const waiter = this.#pending.get(key);
      this.#pending.delete(key);
      waiter?.reject(e);
    });
    return answer;
  }

  /** Hands the answers stored on `record` to the inputs waiting for them. */
  deliver(record: TaskRecord): void {
    const responses = record.inputResponses;
    if (!responses) return;
    for (const [key, waiter] of this.#pending) {
      if (!Object.hasOwn(responses, key)) continue;
      this.#pending.delete(key);
      waiter.resolve(responses[key]);
    }
  }

  /** Stops the run: aborts the handler's signal and fails every input it waits for. */
  stop(reason: StopReason): void {
    if (this.#reason) return;
    this.#reason = reason;
    const error = stoppedError(reason);
    this.#controller.abort(error);
    for (const waiter of this.#pending.values()) waiter.reject(error);
    this.#pending.clear();
  }
}

/** Routes `ctx.elicit()`, `ctx.sample()` and `ctx.listRoots()` of a task's handler to its run. */
export class TaskInputCollector extends InputCollector {
  readonly #run: TaskRun;

  constructor(run: TaskRun) {
    super({});
    this.#run = run;
  }

  override ask(request: InputRequest): Promise<unknown> {
    return this.#run.ask(request);
  }
}

/**
 * Runs a tool to its end inside a task. Input asked through the context waits for `tasks/update`;
 * explicit `inputRequired(…)` requests go through the same context calls (so the same capability checks
 * apply) and the handler runs again with the answers under its own keys.
 */
export async function runToolInTask(
  def: ToolDef,
  args: unknown,
  context: (mrtr: MrtrState) => RequestContext & { done(): void },
): Promise<JsonObject> {
  let mrtr: MrtrState = { inputResponses: {}, state: undefined };
  for (let round = 0; ; round++) {
    const ctx = context(mrtr);
    // Stopped before this round began (cancelled before the handler's first turn, or while asking): it never runs.
    if (ctx.signal.aborted) {
      ctx.done();
      throw ctx.signal.reason;
    }
    let result: JsonObject;
    try {
      result = await callTool(def, args, ctx);
    } finally {
      ctx.done();
    }
    if (!isInputRequired(result)) return result;
    if (round >= MAX_TASK_INPUT_ROUNDS) {
      throw new JsonRpcError(
        ErrorCode.InternalError,
        `Tool ${def.name} asked for input more than ${MAX_TASK_INPUT_ROUNDS} times`,
      );
    }
    const entries = Object.entries(result.inputRequests);
    const answers = await Promise.all(entries.map(([, request]) => askThrough(ctx, request)));
    const inputResponses: Record<string, unknown> = { ...mrtr.inputResponses };
    entries.forEach(([key], i) => {
      inputResponses[key] = answers[i];
    });
    mrtr = { inputResponses, state: result.state };
  }
}

/** Asks for one explicit input request through the context, as `ctx.elicit()` and friends would. */
function askThrough(ctx: RequestContext, request: InputRequest): Promise<unknown> {
  const params = (request.params ?? {}) as never;
  switch (request.method) {
    case 'elicitation/create':
      return ctx.elicit(params);
    case 'sampling/createMessage':
      return ctx.sample(params);
    case 'roots/list':
      return ctx.listRoots().then((roots) => ({ roots }));
    default:
      return Promise.reject(
        new JsonRpcError(
          ErrorCode.InternalError,
          `Unknown input request method ${JSON.stringify((request as { method?: unknown }).method)}`,
        ),
      );
  }
}

function stoppedError(reason: StopReason): McpkitError {
  const why =
    reason === 'cancelled'
      ? 'the task was cancelled'
      : reason === 'expired'
        ? 'the task expired'
        : reason === 'superseded'
          ? 'the task was started again on another instance'
          : 'the server shut down';
  return new McpkitError('REQUEST_CANCELLED', `Task stopped: ${why}`);
}
