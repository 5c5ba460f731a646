import { ErrorCode } from '../jsonrpc/errors.js';
import type { JsonObject, RequestId } from '../jsonrpc/types.js';
import type { InputRequest } from '../spec/modern.js';
import type { DetailedTask, Task, TaskStatus } from '../spec/tasks.js';
import type { ClientCapabilities, Implementation } from '../spec/types.js';

/**
 * The request a task keeps when its tool allows re-runs ({@link ToolTaskOptions.reruns}), so that another instance
 * can start it again: the tool, its arguments, and who asked, in which revision, with which capabilities.
 */
export type TaskRequest = {
  readonly tool: string;
  readonly arguments?: JsonObject;
  /** The request's `_meta`, without its progress token (tasks send no progress). */
  readonly meta?: JsonObject;
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo?: Implementation;
  /** The request's `authInfo` as JSON (what the auth gate verified; never the token itself). */
  readonly authInfo?: JsonObject;
};

/**
 * One task as a {@link TaskStore} keeps it: the task fields plus bookkeeping. JSON-serialisable, and
 * treated as immutable (every change is a new record with `version + 1`).
 */
export type TaskRecord = {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** Milliseconds since the epoch after which the task is gone (createdAt + ttlMs); null: never. */
  readonly expiresAt: number | null;
  /** Compare-and-set version: 1 at creation, one more on every change. */
  readonly version: number;
  /** The authenticated principal the task is bound to, if there was one. */
  readonly owner?: string;
  /** Input requests still outstanding, by key (keys are never reused within a task). */
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
  /** Answers received by `tasks/update` that the running handler has not consumed yet. */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /** The final CallToolResult (completed). */
  readonly result?: JsonObject;
  /** The JSON-RPC error object (failed). */
  readonly error?: JsonObject;
  /** The request, kept only when the tool allows its tasks to be started again after their instance died. */
  readonly request?: TaskRequest;
  /** How many more times the task may be started again (see {@link ToolTaskOptions.reruns}). */
  readonly rerunsLeft?: number;
  /** Which run this is: absent for the first, one more each time the task is started again (fences older runs). */
  readonly run?: number;
};

/** Changes to a record; an `undefined` value removes the field. */
export type TaskChanges = { -readonly [K in keyof TaskRecord]?: TaskRecord[K] | undefined };

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** True for completed, failed and cancelled: states a task never leaves. */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

/**
 * Whether a task may move from `from` to `to`: working and input_required move between each other,
 * stay (a new message or new input requests) or end; a terminal state is final.
 */
export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return !TERMINAL.has(from) && (to === 'working' || to === 'input_required' || TERMINAL.has(to));
}

/** The next version of a record: `changes` applied, version bumped, `lastUpdatedAt` set. */
export function advance(current: TaskRecord, changes: TaskChanges, now: Date = new Date()): TaskRecord {
  const next: Record<string, unknown> = { ...current, ...changes };
  for (const key of Object.keys(changes)) {
    if (changes[key as keyof TaskChanges] === undefined) delete next[key];
  }
  next.version = current.version + 1;
  next.lastUpdatedAt = now.toISOString();
  // The one unchecked step: `current` had every field a record needs, and only the fields `changes` clears are gone.
  return next as TaskRecord;
}

/**
 * The changes that start a task again after its instance died: working again, outstanding input dropped (the new
 * run asks again, under new keys), one re-run fewer left, the next run number.
 */
export function rerunChanges(record: TaskRecord): TaskChanges {
  return {
    status: 'working',
    statusMessage: 'Started again: the server instance running it stopped',
    inputRequests: undefined,
    inputResponses: undefined,
    rerunsLeft: Math.max(0, (record.rerunsLeft ?? 0) - 1),
    run: (record.run ?? 0) + 1,
  };
}

/** True when a task may be started again: it keeps its request and has re-runs left. */
export function mayRerun(record: TaskRecord): boolean {
  return record.request !== undefined && (record.rerunsLeft ?? 0) > 0 && !isTerminal(record.status);
}

/** The task as `tasks/get` and `notifications/tasks` show it (no bookkeeping fields). */
export function toDetailedTask(record: TaskRecord): DetailedTask {
  const task: Task = {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttlMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  if (record.pollIntervalMs !== undefined) task.pollIntervalMs = record.pollIntervalMs;
  switch (record.status) {
    case 'input_required':
      return { ...task, status: 'input_required', inputRequests: { ...record.inputRequests } };
    case 'completed':
      return { ...task, status: 'completed', result: record.result ?? { content: [] } };
    case 'failed':
      return {
        ...task,
        status: 'failed',
        error: record.error ?? {
          code: ErrorCode.InternalError,
          message: record.statusMessage ?? 'The task failed',
        },
      };
    default:
      return task as DetailedTask;
  }
}
