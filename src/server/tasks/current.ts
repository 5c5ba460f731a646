import type { RequestContext } from '../handler/context.js';

/** What a tool handler running as a task can do with its task. */
export interface TaskControl {
  /** The task's id (as the client sees it). */
  readonly taskId: string;
  /** Sets the task's `statusMessage` (shown by `tasks/get` and `notifications/tasks`). */
  setStatusMessage(message: string): Promise<void>;
}

const controls = new WeakMap<RequestContext, TaskControl>();

/**
 * The task a handler runs in, or undefined when it serves an ordinary request. Inside a task,
 * `ctx.elicit()`, `ctx.sample()` and `ctx.listRoots()` put the task in `input_required` until the
 * client answers with `tasks/update`; `ctx.signal` aborts on `tasks/cancel`; progress and log
 * notifications are not sent.
 *
 * @example
 * server.tool('build', { task: 'optional' }, async (args, ctx) => {
 *   await currentTask(ctx)?.setStatusMessage('Compiling…');
 *   return 'built';
 * });
 */
export function currentTask(ctx: RequestContext): TaskControl | undefined {
  return controls.get(ctx);
}

/** @internal Binds a handler's context to its task. */
export function bindTask(ctx: RequestContext, control: TaskControl): void {
  controls.set(ctx, control);
}
