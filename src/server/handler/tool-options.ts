/**
 * The options of a tool's registration that features above the definitions read: how it runs as a task (`tasks/`),
 * how its results are cached (`guard/result-cache.ts`).
 */
import { McpkitError } from '../../jsonrpc/errors.js';

/** 'optional': a task when the client supports tasks, a normal call otherwise; 'required': tasks only. */
export type ToolTaskMode = 'optional' | 'required';

/** How a tool runs as a task on stateless (2026-07-28) requests. */
export interface ToolTaskOptions {
  /** Default 'optional'. A 'required' tool refuses clients without the extension with -32021. */
  mode?: ToolTaskMode;
  /** Lifetime of this tool's tasks from creation, in ms (null: unlimited). Default: the server's. */
  ttlMs?: number | null;
  /** Polling interval suggested to clients, in ms. Default: the server's. */
  pollIntervalMs?: number;
  /**
   * How many times a task of this tool may be started again, from its stored request, on another instance of a
   * cluster when the instance running it dies (0 to {@link MAX_TASK_RERUNS}). Default 0: such a task is failed.
   * Only for a handler that is safe to run twice with the same arguments (idempotent, or read-only): a re-run starts
   * from the beginning, asks again for any input, and the first run may have done part of its work. The tool's
   * arguments and the caller's `authInfo` are stored with the task. This is the author's explicit choice rather than
   * `annotations.idempotentHint`: annotations are hints to clients, and marking a tool idempotent for them should
   * not quietly change what the server does when an instance dies.
   */
  reruns?: number;
}

/**
 * Most re-runs a tool may allow: each follows the death of the instance running the task, so a task that kills its
 * instance (memory, a crash in native code) takes at most this many more instances with it.
 */
export const MAX_TASK_RERUNS = 3;

/**
 * A tool's `task` option: the tool may be answered with a task (tasks extension) when the request's
 * client capabilities declare `io.modelcontextprotocol/tasks`. Ignored on stateful sessions.
 */
export type ToolTaskConfig = ToolTaskMode | ToolTaskOptions;

/** Checks a tool's `task` option at registration. */
export function checkToolTaskConfig(tool: string, config: ToolTaskConfig): void {
  const options = typeof config === 'string' ? { mode: config } : config;
  const where = `Tool ${tool}: task`;
  if (typeof options !== 'object' || options === null)
    throw invalid(`${where} must be "optional", "required" or an object`);
  if (options.mode !== undefined && options.mode !== 'optional' && options.mode !== 'required')
    throw invalid(`${where} mode must be "optional" or "required"`);
  checkTaskTimings(where, options.ttlMs, options.pollIntervalMs);
  const reruns = options.reruns;
  if (reruns !== undefined && !(Number.isInteger(reruns) && reruns >= 0 && reruns <= MAX_TASK_RERUNS))
    throw invalid(`${where} reruns must be an integer from 0 to ${MAX_TASK_RERUNS}`);
}

/** Checks a `ttlMs` (non-negative integer or null) and a `pollIntervalMs` (positive integer). */
export function checkTaskTimings(where: string, ttlMs: unknown, pollIntervalMs: unknown): void {
  if (ttlMs !== undefined && ttlMs !== null && !(Number.isInteger(ttlMs) && (ttlMs as number) >= 0))
    throw invalid(`${where} ttlMs must be a non-negative integer or null`);
  if (pollIntervalMs !== undefined && !(Number.isInteger(pollIntervalMs) && (pollIntervalMs as number) > 0))
    throw invalid(`${where} pollIntervalMs must be a positive integer`);
}

function invalid(message: string): McpkitError {
  return new McpkitError('INVALID_DEFINITION', message);
}

/** How a tool's results may be cached (the tool config's `cache`). */
export interface ToolCacheConfig {
  /** How long a result is answered again, in ms. */
  readonly ttlMs: number;
  /** "principal" (default): per caller; "shared": one result for every caller (the result depends on no identity). */
  readonly scope?: 'principal' | 'shared';
}

/** Checks a tool's `cache` config at registration. */
export function checkToolCache(name: string, cache: ToolCacheConfig): void {
  const ttl = (cache as { ttlMs?: unknown } | undefined)?.ttlMs;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1)
    throw new McpkitError('INVALID_DEFINITION', `Tool ${name}: cache.ttlMs must be a positive integer`);
  if (cache.scope !== undefined && cache.scope !== 'principal' && cache.scope !== 'shared')
    throw new McpkitError('INVALID_DEFINITION', `Tool ${name}: cache.scope must be "principal" or "shared"`);
}
