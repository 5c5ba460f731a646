import { ErrorCode, errorMessage, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject, JsonRpcRequest } from '../../jsonrpc/types.js';
import type { IncomingRequest } from '../../protocol/peer.js';
import type { InputRequest } from '../../spec/modern.js';
import { LATEST_MODERN_REVISION } from '../../spec/modern.js';
import { POLICIES, policyFor } from '../../spec/revision.js';
import type { DetailedTask } from '../../spec/tasks.js';
import type { RequestContext } from '../context.js';
import type { CapabilityGate, MethodHandler } from '../methods.js';
import { requireScopes } from '../methods.js';
import type { MrtrState } from '../modern/mrtr.js';
import { createRequestContext } from '../request-context.js';
import type { ServerDefinition } from '../server-definition.js';
import type { ServerSession } from '../session.js';
import { callTool, type ToolDef } from '../tools.js';
import { bindTask } from './current.js';
import { acceptTaskIds, declaresTasks, missingTasksCapability, principalOf, taskMethods } from './methods.js';
import { runToolInTask, type StopReason, TaskInputCollector, TaskRun } from './run.js';
import { MemoryTaskStore, type TaskStore } from './store.js';
import {
  advance,
  checkTaskTimings,
  isTerminal,
  type TaskChanges,
  type TaskRecord,
  type ToolTaskConfig,
  toDetailedTask,
} from './types.js';

/** Server-wide settings of the tasks extension (`ServerOptions.tasks`). */
export interface TasksOptions {
  /** Where tasks live. Default: a {@link MemoryTaskStore} (one process); share one store to scale out. */
  store?: TaskStore;
  /** Lifetime of a task from creation, in ms; null: unlimited. Default one hour. */
  ttlMs?: number | null;
  /** Polling interval suggested to clients, in ms. Default 1000. */
  pollIntervalMs?: number;
}

/** Default lifetime of a task: one hour. */
export const DEFAULT_TASK_TTL_MS = 3_600_000;
/** Default polling interval suggested to clients. */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1000;

const MAX_CAS_ATTEMPTS = 16;
// Longer delays overflow setTimeout; such tasks simply expire in the store.
const MAX_TIMER_MS = 2 ** 31 - 1;
const TASK_RESULT: unique symbol = Symbol('mcpkit.createTaskResult');

/** True for a `CreateTaskResult` made by the task manager (its `resultType` is "task"). */
export function isCreateTaskResult(result: object): boolean {
  return TASK_RESULT in result;
}

/** What the stateless dispatcher needs from the tasks extension. */
export interface TaskHost {
  /** The implementation of a `tasks/*` method, if it is one. */
  method(name: string): { gate?: CapabilityGate; run: MethodHandler } | undefined;
  /**
   * Decides whether a request becomes a task: the CreateTaskResult (made once the task is stored), or
   * undefined to run it normally. Throws -32021 for a task-only tool and a client without the extension.
   */
  intercept(
    def: ServerDefinition,
    method: string,
    params: JsonObject,
    ctx: RequestContext,
    session: ServerSession,
  ): Promise<JsonObject> | undefined;
  /** The acknowledged subset of the `taskIds` a `subscriptions/listen` request asks for. */
  acceptTaskIds(ids: unknown, ctx: RequestContext): Promise<string[]>;
}

/**
 * Runs the tasks extension (2026-07-28) for one server: creates tasks in the store before answering,
 * runs their handlers in the background, serves `tasks/get|update|cancel`, and reports every change
 * (to running handlers waiting for input, and to `subscriptions/listen` streams).
 */
export class TaskManager implements TaskHost {
  readonly store: TaskStore;
  readonly #ttlMs: number | null;
  readonly #pollIntervalMs: number;
  readonly #runs = new Map<string, TaskRun>();
  readonly #methods: ReadonlyMap<string, { run: MethodHandler }>;
  readonly #notify: (task: DetailedTask) => void;
  readonly #report: (error: unknown) => void;
  readonly #watched: boolean;

  constructor(options: TasksOptions, notify: (task: DetailedTask) => void, report: (error: unknown) => void) {
    checkTaskTimings('tasks', options.ttlMs, options.pollIntervalMs);
    this.store = options.store ?? new MemoryTaskStore();
    this.#ttlMs = options.ttlMs === undefined ? DEFAULT_TASK_TTL_MS : options.ttlMs;
    this.#pollIntervalMs = options.pollIntervalMs ?? DEFAULT_TASK_POLL_INTERVAL_MS;
    this.#notify = notify;
    this.#report = report;
    this.#methods = taskMethods(this);
    // With a change feed every change (ours and other instances') arrives through it, once.
    this.#watched = this.store.watch !== undefined;
    this.store.watch?.((record) => this.#changed(record));
  }

  method(name: string): { run: MethodHandler } | undefined {
    return this.#methods.get(name);
  }

  intercept(
    def: ServerDefinition,
    method: string,
    params: JsonObject,
    ctx: RequestContext,
    session: ServerSession,
  ): Promise<JsonObject> | undefined {
    if (method !== 'tools/call' || typeof params.name !== 'string') return undefined;
    const tool = def.tools.get(params.name)?.def;
    const config = tool?.config.task;
    if (!tool || config === undefined) return undefined;
    // What refuses an ordinary call refuses it as a task too.
    requireScopes(tool, ctx, `the tool ${params.name}`);
    def.access?.check('tool', params.name, ctx.authInfo);
    const options = typeof config === 'string' ? { mode: config } : config;
    if (!declaresTasks(ctx.session.clientCapabilities)) {
      if (options.mode === 'required')
        throw missingTasksCapability(`and tool ${tool.name} runs only as a task`);
      return undefined;
    }
    const start = () => this.#start(tool, options, params, ctx, session);
    // A mounted tool: its own server's middleware around the start of its task, as around an ordinary call.
    return tool.around ? Promise.resolve(tool.around('tools/call', params, ctx, start)) : start();
  }

  acceptTaskIds(ids: unknown, ctx: RequestContext): Promise<string[]> {
    return acceptTaskIds(this, ids, ctx);
  }

  /** @internal The task, or undefined when unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.store.get(taskId);
  }

  /** @internal Applies `change` by compare-and-set; resolves with the latest record (undefined: gone). */
  async mutate(
    taskId: string,
    change: (current: TaskRecord) => TaskChanges | undefined,
  ): Promise<TaskRecord | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = await this.store.get(taskId);
      if (!current) return undefined;
      const changes = change(current);
      if (!changes) return current;
      const next = advance(current, changes);
      if (await this.store.update(taskId, current.version, next)) {
        if (!this.#watched) this.#changed(next);
        return next;
      }
    }
    throw new JsonRpcError(ErrorCode.InternalError, `Task ${taskId} changed too often to be updated`);
  }

  /** Stops every handler running here; their tasks fail with -32603 (the server shut down). */
  async close(): Promise<void> {
    const changes = failure(
      new JsonRpcError(ErrorCode.InternalError, 'The server shut down before the task finished'),
    );
    const runs = [...this.#runs.values()];
    for (const run of runs) this.#stop(run, 'shutdown');
    await Promise.all(
      runs.map((run) =>
        this.mutate(run.taskId, (current) => (isTerminal(current.status) ? undefined : changes)).catch(
          (e: unknown) => this.#report(e),
        ),
      ),
    );
  }

  async #start(
    tool: ToolDef,
    options: Exclude<ToolTaskConfig, string>,
    params: JsonObject,
    ctx: RequestContext,
    session: ServerSession,
  ): Promise<JsonObject> {
    const now = Date.now();
    const at = new Date(now).toISOString();
    const ttlMs = options.ttlMs === undefined ? this.#ttlMs : options.ttlMs;
    const owner = principalOf(ctx);
    const record: TaskRecord = {
      taskId: crypto.randomUUID(),
      status: 'working',
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs,
      pollIntervalMs: options.pollIntervalMs ?? this.#pollIntervalMs,
      expiresAt: ttlMs === null ? null : now + ttlMs,
      version: 1,
      ...(owner === undefined ? {} : { owner }),
    };
    if (!(await this.store.create(record))) {
      if (options.mode === 'required')
        throw new JsonRpcError(ErrorCode.InternalError, 'The server cannot take more tasks right now');
      // No room for a task: an optional one is served as an ordinary call.
      return callTool(tool, params.arguments, ctx);
    }
    const run: TaskRun = new TaskRun(record.taskId, (key, request) => this.#publish(run, key, request));
    this.#runs.set(run.taskId, run);
    const expiry =
      ttlMs !== null && ttlMs <= MAX_TIMER_MS
        ? setTimeout(() => this.#stop(run, 'expired'), ttlMs)
        : undefined;
    (expiry as { unref?: () => void } | undefined)?.unref?.();
    // A macrotask later: the CreateTaskResult goes out before the handler's first synchronous stretch.
    setTimeout(() => {
      this.#execute(run, tool, params, ctx, session)
        .catch((e: unknown) => this.#report(e))
        .finally(() => {
          clearTimeout(expiry);
          if (this.#runs.get(run.taskId) === run) this.#runs.delete(run.taskId);
        });
    }, 0);
    return { ...toDetailedTask(record), [TASK_RESULT]: true };
  }

  async #execute(
    run: TaskRun,
    tool: ToolDef,
    params: JsonObject,
    ctx: RequestContext,
    session: ServerSession,
  ): Promise<void> {
    let changes: TaskChanges;
    try {
      const result = await runToolInTask(tool, params.arguments, (mrtr) =>
        this.#context(run, params, ctx, session, mrtr),
      );
      changes = { status: 'completed', result, inputRequests: undefined, inputResponses: undefined };
    } catch (e) {
      changes = failure(
        e instanceof JsonRpcError ? e : new JsonRpcError(ErrorCode.InternalError, errorMessage(e)),
      );
    }
    // A stopped run's end was settled by whoever stopped it: cancelled (sticky), expired (gone) or shut down.
    if (run.stopReason) return;
    await this.mutate(run.taskId, (current) => (isTerminal(current.status) ? undefined : changes));
  }

  /** The context a task's handler runs with: the request's identity, the task's signal and input. */
  #context(
    run: TaskRun,
    params: JsonObject,
    ctx: RequestContext,
    session: ServerSession,
    mrtr: MrtrState,
  ): RequestContext & { done(): void } {
    // Without a progress token and a log level, progress and log notifications are no-ops, as tasks require.
    const { progressToken: _token, ...meta } = ctx.meta ?? {};
    const request: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: ctx.requestId,
      method: 'tools/call',
      params: { ...params, _meta: meta as JsonObject },
    };
    const incoming: IncomingRequest = {
      request,
      signal: run.signal,
      context: ctx.authInfo === undefined ? undefined : { authInfo: ctx.authInfo },
    };
    const taskCtx = createRequestContext(incoming, {
      session,
      info: ctx.session,
      // Tasks belong to the stateless revision the request named.
      policy: policyFor(ctx.session.protocolVersion) ?? POLICIES[LATEST_MODERN_REVISION],
      asker: { era: 'stateless', collector: new TaskInputCollector(run) },
      logThreshold: () => undefined,
      mrtr,
    });
    bindTask(taskCtx, {
      taskId: run.taskId,
      setStatusMessage: async (message) => {
        await this.mutate(run.taskId, (current) =>
          isTerminal(current.status) ? undefined : { statusMessage: message },
        );
      },
    });
    return taskCtx;
  }

  /** Publishes one input request on the task (status input_required). */
  async #publish(run: TaskRun, key: string, request: InputRequest): Promise<void> {
    const latest = await this.mutate(run.taskId, (current) => {
      if (isTerminal(current.status)) return undefined;
      // Answers the handler has consumed are dropped; those still awaited stay.
      const kept: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(current.inputResponses ?? {})) if (run.isPending(k)) kept[k] = v;
      return {
        status: 'input_required',
        inputRequests: { ...current.inputRequests, [key]: request },
        inputResponses: Object.keys(kept).length > 0 ? kept : undefined,
      };
    });
    if (!latest || isTerminal(latest.status)) {
      this.#stop(run, latest ? 'cancelled' : 'expired');
      throw new McpkitError('REQUEST_CANCELLED', `Task ${run.taskId} ended before its input arrived`);
    }
  }

  #changed(record: TaskRecord): void {
    const run = this.#runs.get(record.taskId);
    if (run) {
      if (record.status === 'cancelled') this.#stop(run, 'cancelled');
      else run.deliver(record);
    }
    this.#notify(toDetailedTask(record));
  }

  #stop(run: TaskRun, reason: StopReason): void {
    if (this.#runs.get(run.taskId) === run) this.#runs.delete(run.taskId);
    run.stop(reason);
  }
}

/** The changes that end a task as failed with `error` (a JSON-RPC error). */
function failure(error: JsonRpcError): TaskChanges {
  return {
    status: 'failed',
    statusMessage: error.message,
    error: error.toJSON(),
    inputRequests: undefined,
    inputResponses: undefined,
  };
}
