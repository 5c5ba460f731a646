import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import type { IncomingRequest } from '../../protocol/peer.js';
import { isInputRequired } from '../../spec/input-required.js';
import type { ServerDefinition } from '../definitions/server-definition.js';
import type { RequestContext } from '../handler/context.js';
import type { MethodHandler } from './methods.js';
import { createRequestContext } from './request-context.js';
import type { ContextSetup } from './setup.js';

/** Most rounds of explicit `inputRequired` a stateful session fulfils for one request. */
export const MAX_LOCAL_INPUT_ROUNDS = 8;

/**
 * Runs a handler written in explicit MRTR style on a stateful session: each `inputRequired(…)` it
 * returns is fulfilled with real server-to-client requests, and the handler runs again with the answers.
 * A first answer that asks for nothing is returned as it came (synchronously when the handler was).
 */
export function fulfilInputLocally(
  run: MethodHandler,
  def: ServerDefinition,
  params: JsonObject,
  first: RequestContext,
  incoming: IncomingRequest,
  setup: ContextSetup,
): Promise<JsonObject> | JsonObject {
  const result = run(def, params, first, setup.session, setup.policy);
  if (result instanceof Promise) {
    return result.then((r) => (isInputRequired(r) ? rounds(run, def, params, r, incoming, setup) : r));
  }
  return isInputRequired(result) ? rounds(run, def, params, result, incoming, setup) : result;
}

/** Fulfils the input the handler asked for, round after round, until it answers or the rounds run out. */
async function rounds(
  run: MethodHandler,
  def: ServerDefinition,
  params: JsonObject,
  asked: JsonObject,
  incoming: IncomingRequest,
  setup: ContextSetup,
): Promise<JsonObject> {
  const { session, policy } = setup;
  let result = asked;
  const answers: Record<string, unknown> = {};
  for (let round = 1; isInputRequired(result); round++) {
    if (round > MAX_LOCAL_INPUT_ROUNDS) {
      throw new JsonRpcError(
        ErrorCode.InternalError,
        `The handler asked for input more than ${MAX_LOCAL_INPUT_ROUNDS} times`,
      );
    }
    const pending = Object.entries(result.inputRequests);
    const replies = await Promise.all(
      pending.map(([, req]) =>
        session.request(req.method, req.params, { signal: incoming.signal }, incoming.request.id),
      ),
    );
    pending.forEach(([key], i) => {
      answers[key] = replies[i];
    });
    const ctx = createRequestContext(incoming, {
      ...setup,
      mrtr: { inputResponses: { ...answers }, state: result.state },
    });
    try {
      result = await run(def, params, ctx, session, policy);
    } finally {
      ctx.done();
    }
  }
  return result;
}
