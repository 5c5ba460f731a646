import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject, RequestId } from '../../jsonrpc/types.js';
import type { IncomingRequest } from '../../protocol/peer.js';
import { checkElicitationSchema, validateElicitationContent } from '../../schema/index.js';
import { checkResult, createMessageResult, elicitResult, listRootsResult } from '../../spec/checks.js';
import type { MrtrState } from '../../spec/input-required.js';
import { LOG_LEVELS } from '../../spec/log-levels.js';
import type { InputRequest } from '../../spec/modern.js';
import type { RevisionPolicy } from '../../spec/revision.js';
import type { ClientCapabilities, Meta, ProgressToken } from '../../spec/types.js';
import type { AuthInfo } from '../handler/auth.js';
import type { ElicitFormRequest, ElicitUrlRequest, RequestContext, SessionInfo } from '../handler/context.js';
import type { AskHook } from '../handler/middleware.js';
import type { Asker, ContextSetup } from './setup.js';

/**
 * Gives a handler's context a signal of its own instead of the request's (a deadline's), made from the request's
 * own when the handler first reads it; `false` when `ctx` is not a context this module made.
 */
export function replaceSignal(ctx: RequestContext, signal: (own: AbortSignal) => AbortSignal): boolean {
  if (!(ctx instanceof HandlerContext)) return false;
  ctx.replaceSignal(signal);
  return true;
}

/**
 * Adds a hook inside those around the handler's requests of its client (a mounted server's own, inside the server
 * it is mounted in: its audit and limits apply too); once, however often a request passes the same mount. `false`
 * when `ctx` is not a context this module made.
 */
export function addAskHook(ctx: RequestContext, hook: AskHook): boolean {
  if (!(ctx instanceof HandlerContext)) return false;
  ctx.addAskHook(hook);
  return true;
}

/** Builds the context a handler receives for one request. */
export function createRequestContext(
  incoming: IncomingRequest,
  setup: ContextSetup,
): RequestContext & { done(): void } {
  return new HandlerContext(incoming, setup);
}

type Method<K extends keyof RequestContext> = RequestContext[K];

/**
 * The context of one request: one object, whose methods are made on first use and then kept (most handlers use
 * none of them; before, every request built a dozen closures). Each is a function of its own, so it also works
 * taken off the context (`async (args, { log }) => …`). A class, so every context shares one shape and the
 * getters live on the prototype (getters on a literal would put every context in dictionary mode).
 */
class HandlerContext implements RequestContext {
  readonly requestId: RequestId;
  readonly meta: Meta | undefined;
  readonly session: SessionInfo;
  readonly authInfo: AuthInfo | undefined;
  readonly mrtr: MrtrState;
  readonly remoteAddress: string | undefined;
  readonly #incoming: IncomingRequest;
  readonly #setup: ContextSetup;
  #lastProgress = Number.NEGATIVE_INFINITY;
  #finished = false;
  #progress: Method<'progress'> | undefined;
  #log: Method<'log'> | undefined;
  #elicitationComplete: Method<'elicitationComplete'> | undefined;
  #elicit: Method<'elicit'> | undefined;
  #sample: Method<'sample'> | undefined;
  #listRoots: Method<'listRoots'> | undefined;
  #closeStream: Method<'closeStream'> | undefined;
  /** A signal that replaces the request's own (a deadline's, which also follows the request's). */
  #signal: AbortSignal | undefined;
  /** Makes {@link #signal} from the request's own on first read. */
  #makeSignal: ((own: AbortSignal) => AbortSignal) | undefined;
  /** Hooks of mounted servers inside the server's own (`setup.asks`), outermost first; most requests have none. */
  #innerAsks: AskHook[] | undefined;

  constructor(incoming: IncomingRequest, setup: ContextSetup) {
    this.#incoming = incoming;
    this.#setup = setup;
    this.requestId = incoming.request.id;
    this.meta = incoming.request.params?._meta as Meta | undefined;
    this.session = setup.info;
    // What the transport's auth gate (or host middleware) established; protocol/ cannot name the type.
    this.authInfo = incoming.context?.authInfo as AuthInfo | undefined;
    this.mrtr = setup.mrtr;
    this.remoteAddress = incoming.context?.remoteAddress;
  }

  /** The request's signal, read lazily: the AbortController exists only once someone looks at it. */
  get signal(): AbortSignal {
    if (this.#signal !== undefined) return this.#signal;
    const make = this.#makeSignal;
    if (make === undefined) return this.#incoming.signal;
    this.#makeSignal = undefined;
    this.#signal = make(this.#incoming.signal);
    return this.#signal;
  }

  /** @internal Gives the handler a signal made from the request's own (it must follow it) instead of it. */
  replaceSignal(make: (own: AbortSignal) => AbortSignal): void {
    this.#signal = undefined;
    this.#makeSignal = make;
  }

  /** @internal Adds a hook inside the others around the handler's requests of its client (once). */
  addAskHook(hook: AskHook): void {
    this.#innerAsks ??= [];
    if (!this.#innerAsks.includes(hook)) this.#innerAsks.push(hook);
  }

  /** The request has been answered: progress and log messages are dropped from now on. */
  done(): void {
    this.#finished = true;
  }

  get progress(): Method<'progress'> {
    this.#progress ??= async (progress, total, message) => {
      const token = this.meta?.progressToken as ProgressToken | undefined;
      if (token === undefined || this.#finished || this.#incoming.finished) return;
      if (!(progress > this.#lastProgress)) {
        throw new McpkitError(
          'PROGRESS_NOT_INCREASING',
          `Progress must increase: ${progress} follows ${this.#lastProgress}`,
        );
      }
      this.#lastProgress = progress;
      const params: JsonObject = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      // Fitted to the request's revision, not the session's: on a connection that holds a stateful session, a
      // stateless request is still answered in its own revision.
      const setup = this.#setup;
      await (setup.notifier ?? setup.session).notify(
        'notifications/progress',
        params,
        this.requestId,
        setup.policy,
      );
    };
    return this.#progress;
  }

  get log(): Method<'log'> {
    this.#log ??= async (level, data, logger) => {
      const { session, notifier } = this.#setup;
      const threshold = this.#setup.logThreshold();
      if (
        this.#finished ||
        this.#incoming.finished ||
        threshold === undefined ||
        LOG_LEVELS.indexOf(level) < threshold ||
        (notifier ? notifier.closed : session.peer.closed)
      )
        return;
      const params: JsonObject = { level, data };
      if (logger !== undefined) params.logger = logger;
      await (notifier ?? session).notify('notifications/message', params, this.requestId, this.#setup.policy);
    };
    return this.#log;
  }

  get elicitationComplete(): Method<'elicitationComplete'> {
    this.#elicitationComplete ??= async (elicitationId) => {
      const setup = this.#setup;
      if (setup.asker.era === 'stateless') {
        throw new McpkitError(
          'CAPABILITY_MISSING',
          'The stateless revision has no notifications/elicitation/complete: the client retries with requestState',
        );
      }
      if (!setup.policy.elicitationModes(setup.info.clientCapabilities).url) {
        throw new McpkitError(
          'CAPABILITY_MISSING',
          'The client did not declare the "elicitation.url" capability, so notifications/elicitation/complete cannot be sent',
        );
      }
      await setup.session.notify(
        'notifications/elicitation/complete',
        { elicitationId },
        undefined,
        setup.policy,
      );
    };
    return this.#elicitationComplete;
  }

  get elicit(): Method<'elicit'> {
    this.#elicit ??= async (req, options) => {
      const setup = this.#setup;
      const params = elicitParams(setup.info, setup.policy, setup.asker.era, req);
      const answer = await this.#ask('elicitation/create', params, options);
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
    };
    return this.#elicit;
  }

  get sample(): Method<'sample'> {
    this.#sample ??= async (params, options) => {
      const era = this.#setup.asker.era;
      const sampling = this.#setup.info.clientCapabilities.sampling;
      if (!sampling) missing(era, { sampling: {} }, 'sampling');
      if ((params.tools !== undefined || params.toolChoice !== undefined) && !sampling.tools) {
        missing(era, { sampling: { tools: {} } }, 'sampling.tools', 'so tools cannot be offered');
      }
      if (params.includeContext && params.includeContext !== 'none' && !sampling.context) {
        missing(era, { sampling: { context: {} } }, 'sampling.context', 'so includeContext must be "none"');
      }
      const answer = await this.#ask('sampling/createMessage', params, options);
      return checkResult(createMessageResult, answer, 'sampling/createMessage', 'client');
    };
    return this.#sample;
  }

  get listRoots(): Method<'listRoots'> {
    this.#listRoots ??= async (options) => {
      if (!this.#setup.info.clientCapabilities.roots) missing(this.#setup.asker.era, { roots: {} }, 'roots');
      const answer = await this.#ask('roots/list', undefined, options);
      return checkResult(listRootsResult, answer, 'roots/list', 'client').roots;
    };
    return this.#listRoots;
  }

  get closeStream(): Method<'closeStream'> {
    this.#closeStream ??= () => {
      this.#incoming.context?.closeStream?.();
    };
    return this.#closeStream;
  }

  // Answers are unknown until checked: a stateless client's inputResponses may hold anything.
  #ask(
    method: InputRequest['method'],
    params: JsonObject | undefined,
    options: { signal?: AbortSignal } | undefined,
  ): Promise<unknown> {
    const asker = this.#setup.asker;
    const send =
      asker.era === 'stateless'
        ? () => asker.collector.ask(params === undefined ? { method } : { method, params })
        : () => asker.session.request(method, params, withSignal(options, this.signal), this.requestId);
    let inner = send;
    const hooks = this.#innerAsks;
    if (hooks !== undefined)
      for (let i = hooks.length - 1; i >= 0; i--) {
        const hook = hooks[i] as AskHook;
        const next = inner;
        inner = () => hook(method, params, this, next);
      }
    const asks = this.#setup.asks;
    return asks === undefined ? inner() : asks(method, params, this, inner);
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
