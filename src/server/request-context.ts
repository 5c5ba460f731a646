import { ErrorCode, JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';
import type { IncomingRequest } from '../protocol/peer.js';
import { checkElicitationSchema, validateElicitationContent } from '../schema/index.js';
import { checkResult, createMessageResult, elicitResult, listRootsResult } from '../spec/checks.js';
import type { InputRequest } from '../spec/modern.js';
import { POLICIES, type RevisionPolicy } from '../spec/revision.js';
import type { ClientCapabilities, Meta, ProgressToken } from '../spec/types.js';
import { LATEST_STATEFUL_REVISION } from '../spec/versions.js';
import type { AuthInfo } from './auth.js';
import type { ElicitFormRequest, ElicitUrlRequest, RequestContext, SessionInfo } from './context.js';
import type { InputCollector, MrtrState } from './modern/mrtr.js';
import { LOG_LEVELS, type ServerSession } from './session.js';

/** How the handler's requests of the client travel: real requests (stateful) or MRTR input (stateless). */
export type Asker =
  | { era: 'stateful'; session: ServerSession }
  | { era: 'stateless'; collector: InputCollector };

/** What differs between a stateful and a stateless request's context. */
export interface ContextSetup {
  session: ServerSession;
  info: SessionInfo;
  /** The revision the request is served in. */
  policy: RevisionPolicy;
  asker: Asker;
  /** The log threshold (index in LOG_LEVELS); read on every log call since `logging/setLevel` may change it. */
  logThreshold: () => number | undefined;
  mrtr: MrtrState;
}

const NO_MRTR: MrtrState = Object.freeze({ inputResponses: Object.freeze({}), state: undefined });

/** The setup of a request on a stateful session (a `ping` before initialize is served as the newest revision). */
export function statefulSetup(session: ServerSession): ContextSetup {
  return {
    session,
    info: session,
    policy: session.policy ?? POLICIES[LATEST_STATEFUL_REVISION],
    asker: { era: 'stateful', session },
    logThreshold: () => (session.serverCapabilities.logging ? session.logLevel : undefined),
    mrtr: NO_MRTR,
  };
}

/** Builds the context a handler receives for one request. */
export function createRequestContext(
  incoming: IncomingRequest,
  setup: ContextSetup,
): RequestContext & { done(): void } {
  const { request } = incoming;
  // Notifications are fitted to the request's revision, not the session's: on a connection that holds a stateful
  // session, a stateless request is still answered in its own revision.
  const { session, info, asker, policy } = setup;
  const id = request.id;
  const meta = request.params?._meta as Meta | undefined;
  const token = meta?.progressToken as ProgressToken | undefined;
  let lastProgress = Number.NEGATIVE_INFINITY;
  let finished = false;

  // Answers are unknown until checked: a stateless client's inputResponses may hold anything.
  const ask = (
    method: InputRequest['method'],
    params: JsonObject | undefined,
    options: { signal?: AbortSignal } | undefined,
  ): Promise<unknown> => {
    if (asker.era === 'stateless')
      return asker.collector.ask(params === undefined ? { method } : { method, params });
    return asker.session.request(method, params, withSignal(options, incoming.signal), id);
  };

  const methods: Omit<RequestContext, 'signal'> & { done(): void } = {
    requestId: id,
    meta,
    session: info,
    // What the transport's auth gate (or host middleware) established; protocol/ cannot name the type.
    authInfo: incoming.context?.authInfo as AuthInfo | undefined,
    mrtr: setup.mrtr,
    done() {
      finished = true;
    },
    async progress(progress, total, message) {
      if (token === undefined || finished || incoming.finished) return;
      if (!(progress > lastProgress)) {
        throw new McpkitError(
          'PROGRESS_NOT_INCREASING',
          `Progress must increase: ${progress} follows ${lastProgress}`,
        );
      }
      lastProgress = progress;
      const params: JsonObject = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      await session.notify('notifications/progress', params, id, policy);
    },
    async log(level, data, logger) {
      const threshold = setup.logThreshold();
      if (
        finished ||
        incoming.finished ||
        threshold === undefined ||
        LOG_LEVELS.indexOf(level) < threshold ||
        session.peer.closed
      )
        return;
      const params: JsonObject = { level, data };
      if (logger !== undefined) params.logger = logger;
      await session.notify('notifications/message', params, id, policy);
    },
    async elicitationComplete(elicitationId) {
      if (asker.era === 'stateless') {
        throw new McpkitError(
          'CAPABILITY_MISSING',
          'The stateless revision has no notifications/elicitation/complete: the client retries with requestState',
        );
      }
      if (!policy.elicitationModes(info.clientCapabilities).url) {
        throw new McpkitError(
          'CAPABILITY_MISSING',
          'The client did not declare the "elicitation.url" capability, so notifications/elicitation/complete cannot be sent',
        );
      }
      await session.notify('notifications/elicitation/complete', { elicitationId }, undefined, policy);
    },
    async elicit(req, options) {
      const params = elicitParams(info, policy, asker.era, req);
      const answer = await ask('elicitation/create', params, options);
      const result = checkResult(elicitResult, answer, 'elicitation/create', 'client');
      if (params.mode !== 'url' && result.action === 'accept') {
        const checked = await validateElicitationContent(
          params.requestedSchema as JsonObject,
          result.content ?? {},
        );
        if (!checked.ok) {
          throw new McpkitError(
            'INVALID_RESULT',
            `The client's elicitation answer does not match the schema: ${checked.issues.join('; ')}`,
          );
        }
      }
      return result;
    },
    async sample(params, options) {
      const sampling = info.clientCapabilities.sampling;
      if (!sampling) missing(asker.era, { sampling: {} }, 'sampling');
      if ((params.tools !== undefined || params.toolChoice !== undefined) && !sampling.tools) {
        missing(asker.era, { sampling: { tools: {} } }, 'sampling.tools', 'so tools cannot be offered');
      }
      if (params.includeContext && params.includeContext !== 'none' && !sampling.context) {
        missing(
          asker.era,
          { sampling: { context: {} } },
          'sampling.context',
          'so includeContext must be "none"',
        );
      }
      const answer = await ask('sampling/createMessage', params, options);
      return checkResult(createMessageResult, answer, 'sampling/createMessage', 'client');
    },
    async listRoots(options) {
      if (!info.clientCapabilities.roots) missing(asker.era, { roots: {} }, 'roots');
      const answer = await ask('roots/list', undefined, options);
      return checkResult(listRootsResult, answer, 'roots/list', 'client').roots;
    },
    closeStream() {
      incoming.context?.closeStream?.();
    },
  };
  // The signal getter lives on a prototype (read lazily: the AbortController exists only once someone
  // looks at it); a getter on the literal itself would put every context in dictionary mode.
  return Object.assign(new LazySignal(incoming), methods) as RequestContext & { done(): void };
}

/** Carries the request's signal as a prototype getter. */
class LazySignal {
  readonly #incoming: IncomingRequest;

  constructor(incoming: IncomingRequest) {
    this.#incoming = incoming;
  }

  get signal(): AbortSignal {
    return this.#incoming.signal;
  }
}

function withSignal<T extends { signal?: AbortSignal }>(options: T | undefined, signal: AbortSignal): T {
  // A server-to-client request made by a handler ends when the handler's own request is cancelled.
  if (!options?.signal) return { ...options, signal } as T;
  return { ...options, signal: AbortSignal.any([options.signal, signal]) };
}

/** Refuses a request the client's capabilities do not allow: a local error (stateful) or -32021 (stateless). */
function missing(era: Asker['era'], required: ClientCapabilities, name: string, why?: string): never {
  const message = `The client did not declare the "${name}" capability${why ? `, ${why}` : ''}`;
  if (era === 'stateless')
    throw new JsonRpcError(ErrorCode.MissingClientCapability, message, { requiredCapabilities: required });
  throw new McpkitError('CAPABILITY_MISSING', message);
}

function elicitParams(
  info: SessionInfo,
  policy: RevisionPolicy,
  era: Asker['era'],
  req: ElicitFormRequest | ElicitUrlRequest,
): JsonObject {
  const caps = info.clientCapabilities;
  const modes = policy.elicitationModes(caps);
  if (req.mode === 'url') {
    if (!modes.url) missing(era, { elicitation: { url: {} } }, 'elicitation.url');
    // The stateless revision dropped elicitationId; state lives in requestState instead.
    if (era === 'stateless') {
      const { elicitationId: _id, ...rest } = req;
      return rest;
    }
    return { ...req, elicitationId: req.elicitationId ?? crypto.randomUUID() };
  }
  if (!modes.form)
    missing(era, { elicitation: { form: {} } }, caps.elicitation ? 'elicitation.form' : 'elicitation');
  checkElicitationSchema(req.requestedSchema);
  const { mode: _mode, ...rest } = req;
  return policy.elicitationModeField ? { mode: 'form', ...rest } : rest;
}
