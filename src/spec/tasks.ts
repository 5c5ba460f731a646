// Wire types of the tasks extension (`io.modelcontextprotocol/tasks`, stateless revision): what `tasks/get`,
// `notifications/tasks` and a task-answered `tools/call` carry. Server and client both take them from here.
import type { JsonObject } from '../jsonrpc/types.js';
import type { InputRequest } from './modern.js';

/** The state of a task (tasks extension `io.modelcontextprotocol/tasks`). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The task fields every task message carries (`Task` of the tasks extension). */
export type Task = {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601 creation time. */
  createdAt: string;
  /** ISO 8601 time of the last change. */
  lastUpdatedAt: string;
  /** Lifetime from creation in ms; null: unlimited. */
  ttlMs: number | null;
  /** Suggested polling interval in ms. */
  pollIntervalMs?: number;
};

/**
 * A task with what its status carries: `inputRequests` (input_required), `result` (completed, the
 * CallToolResult, `isError` ones included) or `error` (failed, a JSON-RPC error object).
 */
export type DetailedTask =
  | (Task & { status: 'working' | 'cancelled' })
  | (Task & { status: 'input_required'; inputRequests: Record<string, InputRequest> })
  | (Task & { status: 'completed'; result: JsonObject })
  | (Task & { status: 'failed'; error: JsonObject });
