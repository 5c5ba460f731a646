import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import { isJsonObject, type JsonObject } from '../../jsonrpc/types.js';
import { TASKS_EXTENSION } from '../../spec/modern.js';
import type { ClientCapabilities } from '../../spec/types.js';
import { isTerminal, type TaskChanges, type TaskRecord, toDetailedTask } from '../../store/task-record.js';
import type { MethodHandler } from '../dispatch/methods.js';
import { principalOf as principalOfAuth } from '../handler/auth.js';
import type { RequestContext } from '../handler/context.js';

/** Most task ids one `subscriptions/listen` may follow. */
export const MAX_LISTEN_TASK_IDS = 1000;

/** What the task methods need from the task manager. */
export interface TaskAccess {
  /** The latest record after applying `change` with compare-and-set (undefined: no such task). */
  mutate(
    taskId: string,
    change: (current: TaskRecord) => TaskChanges | undefined,
  ): Promise<TaskRecord | undefined>;
  get(taskId: string): Promise<TaskRecord | undefined>;
}

/** True when client capabilities declare the tasks extension (legacy `tasks` capabilities do not count). */
export function declaresTasks(caps: ClientCapabilities): boolean {
  const ext = caps.extensions as Record<string, unknown> | undefined;
  const entry = typeof ext === 'object' && ext !== null ? ext[TASKS_EXTENSION] : undefined;
  return typeof entry === 'object' && entry !== null;
}

/** The -32021 error naming the tasks extension. */
export function missingTasksCapability(why: string): JsonRpcError {
  return new JsonRpcError(
    ErrorCode.MissingClientCapability,
    `The client did not declare the "${TASKS_EXTENSION}" extension, ${why}`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** The authenticated principal of a request (token subject, else client id), if any. */
export function principalOf(ctx: RequestContext): string | undefined {
  return principalOfAuth(ctx.authInfo);
}

function requireTasks(ctx: RequestContext, method: string): void {
  if (!declaresTasks(ctx.session.clientCapabilities)) throw missingTasksCapability(`which ${method} needs`);
}

/** The caller's task named by `params.taskId`; unknown, expired and other principals' tasks are -32602. */
async function find(tasks: TaskAccess, params: JsonObject, ctx: RequestContext): Promise<TaskRecord> {
  const taskId = params.taskId;
  if (typeof taskId !== 'string')
    throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: "taskId" must be a string');
  const record = await tasks.get(taskId);
  // Another principal's task answers exactly like a missing one.
  if (!record || record.owner !== principalOf(ctx))
    throw new JsonRpcError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
  return record;
}

/** `tasks/update`: stores answers to outstanding input requests; other keys are ignored. */
function answer(current: TaskRecord, responses: JsonObject): TaskChanges | undefined {
  if (current.status !== 'input_required' || !current.inputRequests) return undefined;
  const outstanding: Record<string, unknown> = { ...current.inputRequests };
  const answered: Record<string, unknown> = { ...current.inputResponses };
  let taken = false;
  for (const [key, value] of Object.entries(responses)) {
    if (!Object.hasOwn(outstanding, key) || !isJsonObject(value)) continue;
    delete outstanding[key];
    answered[key] = value;
    taken = true;
  }
  if (!taken) return undefined;
  const left = Object.keys(outstanding).length > 0;
  return {
    status: left ? 'input_required' : 'working',
    inputRequests: left ? (outstanding as TaskRecord['inputRequests']) : undefined,
    inputResponses: answered,
  };
}

/** The `tasks/get`, `tasks/update` and `tasks/cancel` methods (`tasks/result` stays unknown: -32601). */
export function taskMethods(tasks: TaskAccess): ReadonlyMap<string, { run: MethodHandler }> {
  return new Map<string, { run: MethodHandler }>([
    [
      'tasks/get',
      {
        run: async (_d, params, ctx) => {
          requireTasks(ctx, 'tasks/get');
          return toDetailedTask(await find(tasks, params, ctx));
        },
      },
    ],
    [
      'tasks/update',
      {
        run: async (_d, params, ctx) => {
          requireTasks(ctx, 'tasks/update');
          const responses = params.inputResponses;
          if (!isJsonObject(responses))
            throw new JsonRpcError(
              ErrorCode.InvalidParams,
              'Invalid params: "inputResponses" must be an object',
            );
          const record = await find(tasks, params, ctx);
          await tasks.mutate(record.taskId, (current) => answer(current, responses));
          return {};
        },
      },
    ],
    [
      'tasks/cancel',
      {
        run: async (_d, params, ctx) => {
          requireTasks(ctx, 'tasks/cancel');
          const record = await find(tasks, params, ctx);
          await tasks.mutate(record.taskId, (current) =>
            isTerminal(current.status)
              ? undefined
              : {
                  status: 'cancelled',
                  statusMessage: 'Cancelled by the client',
                  inputRequests: undefined,
                  inputResponses: undefined,
                },
          );
          return {};
        },
      },
    ],
  ]);
}

/**
 * The task ids a `subscriptions/listen` request may follow: the caller's existing tasks among those
 * asked for (at most {@link MAX_LISTEN_TASK_IDS}). A client without the extension gets -32021.
 */
export async function acceptTaskIds(tasks: TaskAccess, ids: unknown, ctx: RequestContext): Promise<string[]> {
  if (!declaresTasks(ctx.session.clientCapabilities))
    throw missingTasksCapability('so it cannot follow taskIds on subscriptions/listen');
  if (!Array.isArray(ids))
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      'Invalid params: "notifications.taskIds" must be an array',
    );
  const owner = principalOf(ctx);
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string'))].slice(
    0,
    MAX_LISTEN_TASK_IDS,
  );
  const records = await Promise.all(wanted.map((id) => tasks.get(id)));
  return wanted.filter((_id, i) => {
    const record = records[i];
    return record !== undefined && record.owner === owner;
  });
}
