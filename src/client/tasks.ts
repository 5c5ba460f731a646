import { ErrorCode, JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';
import type { RequestOptions } from '../protocol/outgoing.js';
import { callToolResult, checkResult } from '../spec/checks.js';
import { type InputRequest, TASKS_EXTENSION } from '../spec/modern.js';
import {
  check,
  nullable,
  number,
  object,
  oneOf,
  optional,
  record,
  recordOf,
  type Shape,
  string,
  variant,
} from '../spec/shape.js';
import type { DetailedTask, Task } from '../spec/tasks.js';
import type { CallToolResult, ClientCapabilities, Root } from '../spec/types.js';
import { fulfilInputRequests as answerInputs, type ClientHandlers, type InputAnswerer } from './handlers.js';

export type { DetailedTask, Task, TaskStatus } from '../spec/tasks.js';

/** Answers to a task's input requests, by request key. */
export type InputResponses = Record<string, unknown>;

/** Options of `client.waitForTask()`. */
export interface WaitForTaskOptions {
  /** Stops waiting (the promise rejects with REQUEST_CANCELLED); the task itself goes on unless `cancelOnAbandon`. */
  signal?: AbortSignal;
  /** Timeout of each `tasks/get` and `tasks/update` request, in ms. */
  timeout?: number;
  /**
   * Answers input requests yourself: return responses by key (a subset is fine; the other requests go
   * to the client's elicitation, sampling and roots handlers), or nothing to leave them all to the
   * handlers. Each key is offered once.
   */
  onInputRequired?: (
    requests: Record<string, InputRequest>,
    task: DetailedTask,
  ) => InputResponses | undefined | Promise<InputResponses | undefined>;
  /** Sees every state of the task observed while waiting (the first one included). */
  onUpdate?: (task: DetailedTask) => void;
  /** Send `tasks/cancel` when the wait ends without a final state (aborted, or a local error). Default false. */
  cancelOnAbandon?: boolean;
  /** Polling interval when the server suggests none, in ms. Default 1000. */
  defaultPollIntervalMs?: number;
}

/** What the task helpers need from their client. */
export interface TaskClientSetup {
  /** Sends one request with the stateless envelope. */
  request(method: string, params: JsonObject, options?: RequestOptions): Promise<JsonObject>;
  capabilities: ClientCapabilities;
  handlers: ClientHandlers;
  roots: () => Root[];
  applyDefaults: boolean;
}

/** Shortest polling interval honoured, whatever the server suggests. */
const MIN_POLL_MS = 10;

/** True when client capabilities declare the tasks extension. */
export function declaresTasksExtension(caps: ClientCapabilities): boolean {
  const ext = caps.extensions as Record<string, unknown> | undefined;
  const entry = typeof ext === 'object' && ext !== null ? ext[TASKS_EXTENSION] : undefined;
  return typeof entry === 'object' && entry !== null;
}

/** True for a `tools/call` result that is a task handle (`resultType: "task"`). */
export function isTaskResult(result: JsonObject): boolean {
  return result.resultType === 'task';
}

const TASK_FIELDS = {
  taskId: string,
  statusMessage: optional(string),
  createdAt: string,
  lastUpdatedAt: string,
  ttlMs: nullable(number),
  pollIntervalMs: optional(number),
};

const detailedTask: Shape<DetailedTask> = variant('status', {
  working: object(TASK_FIELDS),
  cancelled: object(TASK_FIELDS),
  input_required: object({
    ...TASK_FIELDS,
    inputRequests: recordOf(
      object({
        method: oneOf('elicitation/create', 'sampling/createMessage', 'roots/list'),
        params: optional(record),
      }),
    ),
  }),
  completed: object({ ...TASK_FIELDS, result: record }),
  failed: object({ ...TASK_FIELDS, error: record }),
});

/** The task fields of a `CreateTaskResult` or `tasks/get` result (without `resultType` and `_meta`). */
export function taskOf(result: JsonObject): DetailedTask {
  const { resultType: _type, _meta, ...task } = result;
  return check(
    detailedTask,
    task,
    (p) => new McpkitError('INVALID_RESULT', `The server sent a malformed task: task${p}`),
  );
}

/**
 * The client side of the tasks extension: `tasks/get`, `tasks/update`, `tasks/cancel`, and a wait
 * that polls until the task ends, answering its input requests on the way.
 */
export class TaskClient {
  readonly #s: TaskClientSetup;

  constructor(setup: TaskClientSetup) {
    this.#s = setup;
  }

  /** `tasks/get`: the task's current state. */
  async get(taskId: string, options?: RequestOptions): Promise<DetailedTask> {
    return taskOf(await this.#s.request('tasks/get', { taskId }, options));
  }

  /** `tasks/update`: answers outstanding input requests (unknown or answered keys are ignored). */
  async update(taskId: string, inputResponses: InputResponses, options?: RequestOptions): Promise<void> {
    await this.#s.request('tasks/update', { taskId, inputResponses: inputResponses as JsonObject }, options);
  }

  /** `tasks/cancel`: asks the server to stop the task (cooperative; it may still end otherwise). */
  async cancel(taskId: string, options?: RequestOptions): Promise<void> {
    await this.#s.request('tasks/cancel', { taskId }, options);
  }

  /** Polls until the task ends: its CallToolResult, or a rejection for a failed or cancelled task. */
  async wait(start: string | DetailedTask, options: WaitForTaskOptions = {}): Promise<CallToolResult> {
    const taskId = typeof start === 'string' ? start : start.taskId;
    const req: RequestOptions = {};
    if (options.signal) req.signal = options.signal;
    if (options.timeout !== undefined) req.timeout = options.timeout;
    const answered = new Set<string>();
    let ended = false;
    try {
      let task = typeof start === 'string' ? await this.get(taskId, req) : start;
      for (;;) {
        options.onUpdate?.(task);
        const status: string = task.status;
        if (status === 'completed' || status === 'failed' || status === 'cancelled') {
          ended = true;
          return outcome(task);
        }
        if (status === 'input_required') await this.#answer(task, answered, options, req);
        else if (status !== 'working') {
          throw new McpkitError(
            'INVALID_RESULT',
            `Task ${taskId} has an unknown status ${JSON.stringify(status)}`,
          );
        }
        await delay(pollInterval(task, options), options.signal);
        task = await this.get(taskId, req);
      }
    } catch (e) {
      if (options.cancelOnAbandon && !ended) {
        // Best effort, and not tied to the (possibly aborted) signal of the wait.
        const cancel: RequestOptions = options.timeout === undefined ? {} : { timeout: options.timeout };
        await this.cancel(taskId, cancel).catch(() => undefined);
      }
      throw e;
    }
  }

  /** Answers the input requests not answered before, then sends them with one `tasks/update`. */
  async #answer(
    task: DetailedTask,
    answered: Set<string>,
    options: WaitForTaskOptions,
    req: RequestOptions,
  ): Promise<void> {
    const all = (task as { inputRequests?: unknown }).inputRequests;
    if (typeof all !== 'object' || all === null) return;
    const fresh: Record<string, InputRequest> = {};
    for (const [key, request] of Object.entries(all as Record<string, InputRequest>)) {
      if (!answered.has(key)) fresh[key] = request;
    }
    if (Object.keys(fresh).length === 0) return;
    const responses: InputResponses = {};
    const own = options.onInputRequired ? await options.onInputRequired(fresh, task) : undefined;
    for (const [key, value] of Object.entries(own ?? {}))
      if (Object.hasOwn(fresh, key)) responses[key] = value;
    const rest: Record<string, InputRequest> = {};
    for (const [key, request] of Object.entries(fresh))
      if (!Object.hasOwn(responses, key)) rest[key] = request;
    Object.assign(responses, await fulfilInputRequests(rest, this.#s, options.signal));
    await this.update(task.taskId, responses, req);
    for (const key of Object.keys(responses)) answered.add(key);
  }
}

/** Answers input requests through the client's elicitation, sampling and roots handlers. */
export async function fulfilInputRequests(
  requests: Record<string, InputRequest>,
  s: InputAnswerer,
  signal: AbortSignal | undefined,
): Promise<InputResponses> {
  return (await answerInputs(requests, s, signal)) as InputResponses;
}

/** The end of a finished task: its result, or the error it failed with, or a cancellation. */
function outcome(task: DetailedTask): CallToolResult {
  if (task.status === 'completed') {
    return checkResult(callToolResult, task.result, 'tools/call', 'server');
  }
  if (task.status === 'cancelled')
    throw new McpkitError('REQUEST_CANCELLED', `Task ${task.taskId} was cancelled`);
  const error = (task as { error?: { code?: unknown; message?: unknown; data?: unknown } }).error;
  if (typeof error?.code === 'number' && typeof error.message === 'string')
    throw new JsonRpcError(error.code, error.message, error.data);
  throw new JsonRpcError(ErrorCode.InternalError, task.statusMessage ?? `Task ${task.taskId} failed`);
}

function pollInterval(task: Task, options: WaitForTaskOptions): number {
  const suggested = task.pollIntervalMs;
  const ms =
    typeof suggested === 'number' && Number.isFinite(suggested)
      ? suggested
      : (options.defaultPollIntervalMs ?? 1000);
  return Math.max(MIN_POLL_MS, ms);
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancelled = () => new McpkitError('REQUEST_CANCELLED', 'Stopped waiting for the task');
    if (signal?.aborted) {
      reject(cancelled());
      return;
    }
    const onabort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onabort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onabort, { once: true });
  });
}
