import type { JsonObject } from '../../jsonrpc/types.js';
import type { CacheHint } from '../../spec/modern.js';
import type { Implementation, ServerCapabilities } from '../../spec/types.js';
import type { ServerDefinition } from '../definitions/server-definition.js';
import type { RequestContext, SessionInfo } from '../handler/context.js';
import type { AskHook, GuardRunner, Middleware } from '../handler/middleware.js';
import type { Subscriptions } from './listen.js';
import type { CapabilityGate, MethodHandler } from './methods.js';
import type { RequestStateCodec } from './request-state.js';
import type { ServerSession } from './session.js';

/**
 * What dispatch needs from the server it answers for, in either era: one interface, which `McpServer` is. The guards
 * (`guard/`) plug in as `guards` and `asks`, the tasks extension (`tasks/`) as `tasks`.
 */
export interface DispatchHost extends ServerDefinition {
  readonly info: Implementation;
  readonly capabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  readonly middleware: readonly Middleware[];
  readonly guards: GuardRunner | undefined;
  readonly asks: AskHook | undefined;
  readonly stateCodec: RequestStateCodec;
  readonly subscriptions: Subscriptions;
  /** The tasks extension, when enabled. */
  readonly tasks: TaskHost | undefined;
  /** The cache hint of a cacheable result (per method, or per resource for reads). */
  cacheHint(method: string, params: JsonObject): CacheHint;
  /** The implementation of a protocol method. */
  method(name: string): { gate?: CapabilityGate; run: MethodHandler } | undefined;
  /** Whether the capability a method needs is declared now. */
  declared(gate: CapabilityGate): boolean;
  /** A session that may hold something through the server ended (a request's `TransientSession` too). */
  sessionEnded(session: SessionInfo): void;
}

/** What the stateless dispatcher needs from the tasks extension (`tasks/manager.ts`). */
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

const TASK_RESULT: unique symbol = Symbol('mcpkit.createTaskResult');

/** Marks `result` as the `CreateTaskResult` of a task the tasks extension made (its `resultType` is then "task"). */
export function taskResult<T extends object>(result: T): T {
  return Object.assign(result, { [TASK_RESULT]: true });
}

/** True for a result marked by {@link taskResult}. */
export function isCreateTaskResult(result: object): boolean {
  return TASK_RESULT in result;
}
