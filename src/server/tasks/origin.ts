import { errorMessage } from '../../jsonrpc/errors.js';
import { isJsonObject, type JsonObject, type JsonRpcRequest, type RequestId } from '../../jsonrpc/types.js';
import type { IncomingRequest } from '../../protocol/peer.js';
import type { MrtrState } from '../../spec/input-required.js';
import { LATEST_MODERN_REVISION } from '../../spec/modern.js';
import { POLICIES, policyFor } from '../../spec/revision.js';
import type { TaskRequest } from '../../store/task-record.js';
import { createRequestContext } from '../dispatch/request-context.js';
import type { ServerSession } from '../dispatch/session.js';
import { InputAsker, RequestSetup } from '../dispatch/setup.js';
import type { RequestContext, SessionInfo } from '../handler/context.js';
import { bindTask } from './current.js';
import { TaskInputCollector, type TaskRun } from './run.js';

/**
 * What a task's handler runs for, and so what its context is made of: the `tools/call` that created the task, or
 * the request a task kept when it is started again on another instance.
 */
export interface TaskOrigin {
  readonly requestId: RequestId;
  /** The call's params without `_meta`. */
  readonly params: JsonObject;
  /** The call's `_meta` without its progress token (a task sends no progress and no logs). */
  readonly meta: JsonObject;
  readonly authInfo: unknown;
  readonly info: SessionInfo;
  readonly session: ServerSession;
}

/** The origin of a task created by the request `ctx` answers. */
export function originOf(params: JsonObject, ctx: RequestContext, session: ServerSession): TaskOrigin {
  const { progressToken: _token, ...meta } = ctx.meta ?? {};
  const { _meta: _dropped, ...own } = params;
  return {
    requestId: ctx.requestId,
    params: own,
    meta: meta as JsonObject,
    authInfo: ctx.authInfo,
    info: ctx.session,
    session,
  };
}

/**
 * The request a task of a re-runnable tool keeps (JSON, for a shared store), or an error saying why it cannot be
 * kept (an `authInfo` that is not JSON): such a task is not started again.
 */
export function keepRequest(origin: TaskOrigin, tool: string): TaskRequest | Error {
  let authInfo: JsonObject | undefined;
  if (origin.authInfo !== undefined) {
    try {
      const json: unknown = JSON.parse(JSON.stringify(origin.authInfo));
      if (!isJsonObject(json)) throw new TypeError('it is not an object');
      authInfo = json;
    } catch (e) {
      return new Error(
        `A task of tool ${tool} cannot be started again: its authInfo is not JSON (${errorMessage(e)})`,
      );
    }
  }
  const args = origin.params.arguments;
  const { info } = origin;
  return {
    tool,
    ...(isJsonObject(args) ? { arguments: args } : {}),
    ...(Object.keys(origin.meta).length > 0 ? { meta: origin.meta } : {}),
    requestId: origin.requestId,
    protocolVersion: info.protocolVersion,
    clientCapabilities: info.clientCapabilities,
    ...(info.clientInfo === undefined ? {} : { clientInfo: info.clientInfo }),
    ...(authInfo === undefined ? {} : { authInfo }),
  };
}

/** The origin of a task started again from the request it kept. */
export function originOfKept(request: TaskRequest, session: ServerSession): TaskOrigin {
  return {
    requestId: request.requestId,
    params: {
      name: request.tool,
      ...(request.arguments === undefined ? {} : { arguments: request.arguments }),
    },
    meta: request.meta ?? {},
    authInfo: request.authInfo,
    info: {
      id: undefined,
      protocolVersion: request.protocolVersion,
      clientCapabilities: request.clientCapabilities,
      clientInfo: request.clientInfo,
    },
    session,
  };
}

/**
 * The context a task's handler runs with: its origin's identity, the run's signal, input asked through the task
 * (`input_required` until `tasks/update` answers), and `currentTask(ctx)` bound to the task.
 */
export function taskContext(
  run: TaskRun,
  origin: TaskOrigin,
  mrtr: MrtrState,
  setStatusMessage: (message: string) => Promise<void>,
): RequestContext & { done(): void } {
  // Without a progress token and a log level, progress and log notifications are no-ops, as tasks require.
  const request: JsonRpcRequest = {
    jsonrpc: '2.0',
    id: origin.requestId,
    method: 'tools/call',
    params: { ...origin.params, _meta: origin.meta },
  };
  const incoming: IncomingRequest = {
    request,
    signal: run.signal,
    context: origin.authInfo === undefined ? undefined : { authInfo: origin.authInfo },
  };
  const ctx = createRequestContext(
    incoming,
    new RequestSetup(
      origin.session,
      origin.info,
      // Tasks belong to the stateless revision the request named.
      policyFor(origin.info.protocolVersion) ?? POLICIES[LATEST_MODERN_REVISION],
      new InputAsker(new TaskInputCollector(run)),
      () => undefined,
      mrtr,
    ),
  );
  bindTask(ctx, { taskId: run.taskId, setStatusMessage });
  return ctx;
}
