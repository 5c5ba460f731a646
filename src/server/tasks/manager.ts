import { ErrorCode, errorMessage, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import type { MrtrState } from '../../spec/input-required.js';
import type { InputRequest } from '../../spec/modern.js';
import type { DetailedTask } from '../../spec/tasks.js';
import {
  advance,
  isTerminal,
  mayRerun,
  type TaskChanges,
  type TaskRecord,
  toDetailedTask,
} from '../../store/task-record.js';
import { MemoryTaskStore, type TaskStore } from '../../store/task-store.js';
import type { ServerDefinition } from '../definitions/server-definition.js';
import { callTool, type ToolDef } from '../definitions/tools.js';
import { type TaskHost, taskResult } from '../dispatch/host.js';
import type { MethodHandler } from '../dispatch/methods.js';
import { requireScopes } from '../dispatch/methods.js';
import type { ServerSession } from '../dispatch/session.js';
import type { RequestContext } from '../handler/context.js';
import { checkTaskTimings, type ToolTaskConfig, type ToolTaskOptions } from '../handler/tool-options.js';
import { acceptTaskIds, declaresTasks, missingTasksCapability, principalOf, taskMethods } from './methods.js';
import { keepRequest, originOf, originOfKept, type TaskOrigin, taskContext } from './origin.js';
import { runToolInTask, type StopReason, TaskRun } from './run.js';

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

/** What the task manager needs of its server to start a task again: its tools, and a session to run them on. */
export interface TaskServer {
  /** The tool registered under `name`, if any. */
  tool(name: string): ToolDef | undefined;
  /** The session a task started again runs on (the server's detached one: the stateless revision keeps none). */
  session(): ServerSession;
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
  readonly #server: TaskServer;
  readonly #unadopt: (() => void) | undefined;
  #closed = false;

  constructor(
    options: TasksOptions,
    notify: (task: DetailedTask) => void,
    report: (error: unknown) => void,
    server: TaskServer,
  ) {
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
    this.#server = server;
    // A shared store hands this instance the tasks whose instance died, for the tools that allow re-runs.
    this.#unadopt = this.store.adopt?.({
      canRerun: (record) => this.#canRerun(record),
      rerun: (record) => this.#rerun(record),
      report: (error) => this.#report(error),
    });
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
    const options = taskOptions(config);
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

  /**
   * Stops every handler running here. With a store that can `release` them (Redis), the tasks whose tool allows
   * re-runs and that have re-runs left are released for another instance to start again (a rolling deploy loses none);
   * the others fail with -32603 (the server shut down).
   */
  async close(): Promise<void> {
    this.#closed = true;
    // First: this instance takes none of the tasks it is about to release.
    this.#unadopt?.();
    const changes = failure(
      new JsonRpcError(ErrorCode.InternalError, 'The server shut down before the task finished'),
    );
    const runs = [...this.#runs.values()];
    for (const run of runs) this.#stop(run, 'shutdown');
    await Promise.all(runs.map((run) => this.#leave(run, changes).catch((e: unknown) => this.#report(e))));
  }

  /** A stopped run at shutdown: its task released for another instance when it may run again, else failed. */
  async #leave(run: TaskRun, changes: TaskChanges): Promise<void> {
    if (this.store.release !== undefined) {
      const current = await this.store.get(run.taskId);
      if (
        current !== undefined &&
        (current.run ?? 0) === run.generation &&
        this.#rerunnable(current) &&
        (await this.store.release(run.taskId, run.generation))
      )
        return;
    }
    await this.#settle(run, changes);
  }

  async #start(
    tool: ToolDef,
    options: ToolTaskOptions,
    params: JsonObject,
    ctx: RequestContext,
    session: ServerSession,
  ): Promise<JsonObject> {
    const now = Date.now();
    const at = new Date(now).toISOString();
    const ttlMs = options.ttlMs === undefined ? this.#ttlMs : options.ttlMs;
    const owner = principalOf(ctx);
    const origin = originOf(params, ctx, session);
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
      ...this.#kept(options, origin, tool.name),
    };
    if (!(await this.store.create(record))) {
      if (options.mode === 'required')
        throw new JsonRpcError(ErrorCode.InternalError, 'The server cannot take more tasks right now');
      // No room for a task: an optional one is served as an ordinary call.
      return callTool(tool, params.arguments, ctx);
    }
    this.#launch(record, tool, origin);
    return taskResult(toDetailedTask(record));
  }

  /** The request a task of a re-runnable tool keeps, with its re-runs (nothing for other tools). */
  #kept(options: ToolTaskOptions, origin: TaskOrigin, tool: string): Partial<TaskRecord> {
    if (!options.reruns) return {};
    const request = keepRequest(origin, tool);
    if (request instanceof Error) {
      this.#report(request);
      return {};
    }
    return { request, rerunsLeft: options.reruns };
  }

  /** Runs a task's handler here, in the background, until it ends, is stopped or the task expires. */
  #launch(record: TaskRecord, tool: ToolDef, origin: TaskOrigin): void {
    const generation = record.run ?? 0;
    const run: TaskRun = new TaskRun(
      record.taskId,
      (key, request) => this.#publish(run, key, request),
      generation,
    );
    // This instance may have run the task before (it was taken for dead while it was cut off from the store).
    const older = this.#runs.get(run.taskId);
    if (older) this.#stop(older, 'superseded');
    this.#runs.set(run.taskId, run);
    const left = record.expiresAt === null ? null : Math.max(0, record.expiresAt - Date.now());
    const expiry =
      left !== null && left <= MAX_TIMER_MS ? setTimeout(() => this.#stop(run, 'expired'), left) : undefined;
    (expiry as { unref?: () => void } | undefined)?.unref?.();
    // A macrotask later: the CreateTaskResult goes out before the handler's first synchronous stretch.
    setTimeout(() => {
      this.#execute(run, tool, origin)
        .catch((e: unknown) => this.#report(e))
        .finally(() => {
          clearTimeout(expiry);
          if (this.#runs.get(run.taskId) === run) this.#runs.delete(run.taskId);
        });
    }, 0);
  }

  /** Whether this instance can start `record` again: re-runs left, its tool here allowing them, not closing. */
  #canRerun(record: TaskRecord): boolean {
    return !this.#closed && this.#rerunnable(record);
  }

  /** Whether `record` may be started again: re-runs left, and its tool here allowing them. */
  #rerunnable(record: TaskRecord): boolean {
    if (!mayRerun(record) || record.request === undefined) return false;
    const config = this.#server.tool(record.request.tool)?.config.task;
    return config !== undefined && (taskOptions(config).reruns ?? 0) > 0;
  }

  /** Starts a task claimed from a dead instance again, from the request it kept. */
  #rerun(record: TaskRecord): void {
    const request = record.request;
    const tool = request === undefined ? undefined : this.#server.tool(request.tool);
    if (request === undefined || tool === undefined) {
      // Checked by canRerun just before the claim; gone since (unregistered in between).
      const gone = new JsonRpcError(ErrorCode.InternalError, 'The task could not be started again');
      this.mutate(record.taskId, (current) =>
        isTerminal(current.status) || current.run !== record.run ? undefined : failure(gone),
      ).catch((e: unknown) => this.#report(e));
      return;
    }
    this.#launch(record, tool, originOfKept(request, this.#server.session()));
  }

  /** Applies `changes` only while `run` is the task's current run and the task has not ended. */
  #settle(run: TaskRun, changes: TaskChanges): Promise<TaskRecord | undefined> {
    return this.mutate(run.taskId, (current) =>
      isTerminal(current.status) || (current.run ?? 0) !== run.generation ? undefined : changes,
    );
  }

  async #execute(run: TaskRun, tool: ToolDef, origin: TaskOrigin): Promise<void> {
    let changes: TaskChanges;
    try {
      const result = await runToolInTask(tool, origin.params.arguments, (mrtr) =>
        this.#context(run, origin, mrtr),
      );
      changes = { status: 'completed', result, inputRequests: undefined, inputResponses: undefined };
    } catch (e) {
      changes = failure(
        e instanceof JsonRpcError ? e : new JsonRpcError(ErrorCode.InternalError, errorMessage(e)),
      );
    }
    // A stopped run's end was settled by whoever stopped it: cancelled (sticky), expired (gone), shut down, or
    // started again elsewhere (a later run owns the task).
    if (run.stopReason) return;
    await this.#settle(run, changes);
  }

  /** The context a task's handler runs with (its status message set through this run's fenced writes). */
  #context(run: TaskRun, origin: TaskOrigin, mrtr: MrtrState): RequestContext & { done(): void } {
    return taskContext(run, origin, mrtr, async (message) => {
      // A stopped run writes nothing more (a released task's next run owns its messages).
      if (run.stopReason) return;
      await this.#settle(run, { statusMessage: message });
    });
  }

  /** Publishes one input request on the task (status input_required). */
  async #publish(run: TaskRun, key: string, request: InputRequest): Promise<void> {
    const latest = await this.mutate(run.taskId, (current) => {
      if (isTerminal(current.status) || (current.run ?? 0) !== run.generation) return undefined;
      // Answers the handler has consumed are dropped; those still awaited stay.
      const kept: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(current.inputResponses ?? {})) if (run.isPending(k)) kept[k] = v;
      return {
        status: 'input_required',
        inputRequests: { ...current.inputRequests, [key]: request },
        inputResponses: Object.keys(kept).length > 0 ? kept : undefined,
      };
    });
    if (!latest || isTerminal(latest.status) || (latest.run ?? 0) !== run.generation) {
      this.#stop(run, !latest ? 'expired' : isTerminal(latest.status) ? 'cancelled' : 'superseded');
      throw new McpkitError('REQUEST_CANCELLED', `Task ${run.taskId} ended before its input arrived`);
    }
  }

  #changed(record: TaskRecord): void {
    const run = this.#runs.get(record.taskId);
    if (run) {
      // Started again elsewhere (this instance was taken for dead): this run's work is no longer the task's.
      if ((record.run ?? 0) > run.generation) this.#stop(run, 'superseded');
      else if (record.status === 'cancelled') this.#stop(run, 'cancelled');
      else run.deliver(record);
    }
    this.#notify(toDetailedTask(record));
  }

  #stop(run: TaskRun, reason: StopReason): void {
    if (this.#runs.get(run.taskId) === run) this.#runs.delete(run.taskId);
    run.stop(reason);
  }
}

/** A tool's `task` option as an object. */
function taskOptions(config: ToolTaskConfig): ToolTaskOptions {
  return typeof config === 'string' ? { mode: config } : config;
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
