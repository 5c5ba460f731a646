import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import { preEncode } from '../../jsonrpc/parse.js';
import { isJsonObject, type JsonObject } from '../../jsonrpc/types.js';
import type { IncomingRequest } from '../../protocol/peer.js';
import { InputRequiredSignal, isInputRequired } from '../../spec/input-required.js';
import type { InputRequest } from '../../spec/modern.js';
import { CACHEABLE_METHODS, INPUT_METHODS, META, TASKS_EXTENSION } from '../../spec/modern.js';
import type { RevisionPolicy } from '../../spec/revision.js';
import type { ClientCapabilities, Implementation } from '../../spec/types.js';
import { servedBy } from '../definitions/resources.js';
import { listenedUris, type Watched, watched } from '../definitions/watch.js';
import { principalOf } from '../handler/auth.js';
import type { RequestContext, SessionInfo } from '../handler/context.js';
import { IncomingCall, intercept } from '../handler/middleware.js';
import { type ModernEnvelope, readEnvelope, SUPPORTED_VERSIONS } from './envelope.js';
import { type DispatchHost, isCreateTaskResult } from './host.js';
import { InputCollector } from './input-collector.js';
import type { MethodHandler } from './methods.js';
import { createRequestContext } from './request-context.js';
import { requestDigest, type StatePayload } from './request-state.js';
import type { ServerSession } from './session.js';
import { InputAsker, NO_MRTR, type Notifier, RequestSetup } from './setup.js';
import { warmUpValidation } from './warm-up.js';

/** The methods whose results carry cache hints. */
export const CACHEABLE = CACHEABLE_METHODS;

/** Methods of extensions the server answers in every revision (the skills extension's). */
const EXTENSION_METHODS: ReadonlySet<string> = new Set([
  'skills/list',
  'skills/get',
  'resources/directory/read',
]);

/** The methods that may answer `input_required`. */
export const MRTR_METHODS = INPUT_METHODS;

const decorated = new WeakMap<object, JsonObject>();

/** The `_meta` of results that had none: built once per server info, frozen and shared (it is only encoded). */
let infoMeta: { info: Implementation; meta: JsonObject } | undefined;

function serverInfoMeta(info: Implementation): JsonObject {
  if (infoMeta?.info !== info) infoMeta = { info, meta: Object.freeze({ [META.serverInfo]: info }) };
  return infoMeta.meta;
}

/**
 * Answers one stateless (2026-07-28) request: checks the `_meta` envelope, runs the same handlers as
 * the stateful era (with `ctx.elicit()` and friends turned into `input_required` rounds), and adds
 * `resultType`, `serverInfo` and cache hints to the result. A handler that answers synchronously is answered
 * synchronously (no promise turn), as in the stateful era. With `notifier`, the request's notifications go there
 * rather than to `session` (a request answered without a connection of its own).
 */
export function dispatchModern(
  host: DispatchHost,
  session: ServerSession,
  incoming: IncomingRequest,
  notifier?: Notifier,
): Promise<JsonObject> | JsonObject {
  const { method } = incoming.request;
  const params = incoming.request.params ?? {};
  const envelope = readEnvelope(params);
  const { policy } = envelope;
  if (method === 'server/discover') {
    warmUpValidation();
    return finish(host, method, params, discover(host, policy));
  }
  // Extension methods (tasks) first; the revision's own methods only if it still has them.
  const entry =
    host.tasks?.method(method) ??
    (policy.hasMethod(method) || EXTENSION_METHODS.has(method) ? host.method(method) : undefined);
  if (method !== 'subscriptions/listen' && (!entry || (entry.gate && !host.declared(entry.gate)))) {
    throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
  const mrtr = MRTR_METHODS.has(method);
  const run = { host, session, incoming, envelope, entry, method, params, mrtr, notifier };
  // Most requests carry no requestState: no promise turn for them.
  if (mrtr && params.requestState !== undefined) {
    return openState(host, method, params, incoming).then((state) => answer(run, state));
  }
  return answer(run, undefined);
}

/** One stateless request, its envelope read and its method found. */
interface ModernRun {
  readonly host: DispatchHost;
  readonly session: ServerSession;
  readonly incoming: IncomingRequest;
  readonly envelope: ModernEnvelope;
  readonly entry: { run: MethodHandler } | undefined;
  readonly method: string;
  readonly params: JsonObject;
  /** Whether the method may answer `input_required`. */
  readonly mrtr: boolean;
  readonly notifier: Notifier | undefined;
}

/** The log threshold of a request that asked for no log messages. */
const noLogLevel = (): number | undefined => undefined;

/** Runs the handler through the middleware chain and decorates its result (synchronously when it answers so). */
function answer(r: ModernRun, state: StatePayload | undefined): Promise<JsonObject> | JsonObject {
  const { host, session, incoming, envelope, method, params } = r;
  // Only answers to the inputs asked for last round count (and without requestState nothing was asked).
  const answers: Record<string, unknown> =
    state === undefined
      ? (NO_MRTR.inputResponses as Record<string, unknown>)
      : { ...state.answers, ...askedOnly(responsesOf(params), state.asked) };
  const collector = new InputCollector(answers);
  const info: SessionInfo = {
    id: undefined,
    protocolVersion: envelope.protocolVersion,
    clientCapabilities: envelope.clientCapabilities,
    clientInfo: envelope.clientInfo,
  };
  const ctx = createRequestContext(
    incoming,
    new RequestSetup(
      session,
      info,
      envelope.policy,
      new InputAsker(collector),
      // A request that asked for no log messages shares one threshold reader (no closure made for it).
      envelope.logLevel === undefined
        ? noLogLevel
        : () => (host.capabilities.logging ? envelope.logLevel : undefined),
      state === undefined ? NO_MRTR : { inputResponses: answers, state: state.app },
      r.notifier,
      host.asks,
    ),
  );
  let result: Promise<JsonObject> | JsonObject;
  // The steps are functions of their own, not closures made here: the bundle names every closure bound to a name
  // (esbuild's keepNames, one Object.defineProperty each), three per request on this path.
  try {
    result = intercept(host.guards, host.middleware, new IncomingCall(method, params, ctx), () =>
      runModern(r, ctx),
    );
  } catch (e) {
    ctx.done();
    return failedModern(r, collector, answers, e);
  }
  if (!(result instanceof Promise)) {
    ctx.done();
    return settleModern(r, answers, result);
  }
  return result.then(
    (value) => {
      ctx.done();
      return settleModern(r, answers, value);
    },
    (e: unknown) => {
      ctx.done();
      return failedModern(r, collector, answers, e);
    },
  );
}

/** Runs a stateless request's handler (or its `subscriptions/listen`, or the tasks extension's answer). */
function runModern(r: ModernRun, ctx: RequestContext): Promise<JsonObject> | JsonObject {
  const { host, session, incoming, envelope, method, params } = r;
  const tasks = host.tasks;
  if (method === 'subscriptions/listen') {
    return listenThroughMounts(host, params, ctx, () =>
      host.subscriptions.listen(
        params,
        incoming.request.id,
        session,
        envelope.policy,
        host.capabilities,
        incoming.signal,
        tasks && ((ids) => tasks.acceptTaskIds(ids, ctx)),
      ),
    );
  }
  return (
    tasks?.intercept(host, method, params, ctx, session) ??
    (r.entry as { run: MethodHandler }).run(host, params, ctx, session, envelope.policy)
  );
}

/** A stateless handler failed: the input it asked for becomes `input_required`, anything else is rethrown. */
function failedModern(
  r: ModernRun,
  collector: InputCollector,
  answers: Record<string, unknown>,
  e: unknown,
): Promise<JsonObject> {
  if (r.mrtr && (e instanceof InputRequiredSignal || collector.hasMissing)) {
    return inputRequiredResult(r.host, r.method, r.params, r.incoming, answers, collector.missing, undefined);
  }
  throw e;
}

/** A stateless handler answered: a complete result is decorated, an `input_required` one checked and sealed. */
function settleModern(
  r: ModernRun,
  answers: Record<string, unknown>,
  result: JsonObject,
): Promise<JsonObject> | JsonObject {
  const { host, method, params, envelope } = r;
  if (!isInputRequired(result)) return finish(host, method, params, result);
  if (!r.mrtr) throw new JsonRpcError(ErrorCode.InternalError, `${method} cannot ask for input`);
  checkInputCapabilities(result.inputRequests, envelope.clientCapabilities, envelope.policy);
  return inputRequiredResult(host, method, params, r.incoming, answers, result.inputRequests, result.state);
}

/**
 * A listen naming resources that mounts added: the servers they came from see it, each with its own URIs, for as
 * long as it lasts (a mounted proxy holds them on the server behind it).
 */
function listenThroughMounts(
  host: DispatchHost,
  params: JsonObject,
  ctx: RequestContext,
  listen: () => Promise<JsonObject>,
): Promise<JsonObject> {
  if (!host.capabilities.resources?.subscribe) return listen();
  const through: Watched[] = [];
  for (const uri of listenedUris(params)) {
    const watch = servedBy(host.resources, host.templates, uri)?.def.watch;
    if (watch) through.push({ uri, watch });
  }
  if (through.length === 0) return listen();
  return Promise.resolve(watched('subscriptions/listen', through, params, ctx, listen));
}

/** Input requests of kinds the client did not declare are refused with -32021 (as `ctx.elicit()` does). */
function checkInputCapabilities(
  requests: Record<string, InputRequest>,
  caps: ClientCapabilities,
  policy: RevisionPolicy,
): void {
  for (const req of Object.values(requests)) {
    let required: ClientCapabilities | undefined;
    if (req.method === 'elicitation/create') {
      const url = req.params?.mode === 'url';
      const modes = policy.elicitationModes(caps);
      if (url ? !modes.url : !modes.form) required = { elicitation: url ? { url: {} } : { form: {} } };
    } else if (req.method === 'sampling/createMessage' && !caps.sampling) required = { sampling: {} };
    else if (req.method === 'roots/list' && !caps.roots) required = { roots: {} };
    if (required) {
      throw new JsonRpcError(
        ErrorCode.MissingClientCapability,
        `The client did not declare the capability ${req.method} needs`,
        {
          requiredCapabilities: required,
        },
      );
    }
  }
}

function discover(host: DispatchHost, policy: RevisionPolicy): JsonObject {
  let capabilities = policy.serverCapabilities(host.capabilities);
  if (host.tasks) {
    const extensions = { ...(capabilities.extensions as JsonObject | undefined), [TASKS_EXTENSION]: {} };
    capabilities = { ...capabilities, extensions };
  }
  const result: JsonObject = { supportedVersions: SUPPORTED_VERSIONS, capabilities };
  if (host.instructions !== undefined) result.instructions = host.instructions;
  return result;
}

/** Adds resultType, serverInfo and (for cacheable methods) cache hints; list pages are decorated once. */
function finish(host: DispatchHost, method: string, params: JsonObject, result: JsonObject): JsonObject {
  const frozen = Object.isFrozen(result);
  if (frozen) {
    const cached = decorated.get(result);
    if (cached) return cached;
  }
  // Object.assign, not `{ ...result, resultType }`: on V8 11 a spread followed by a new key costs about a microsecond.
  const out: JsonObject = Object.assign({}, result);
  out.resultType = isCreateTaskResult(result) ? 'task' : 'complete';
  if (CACHEABLE.has(method) || method === 'skills/list') Object.assign(out, host.cacheHint(method, params));
  const meta = result._meta as JsonObject | undefined;
  if (meta === undefined) out._meta = serverInfoMeta(host.info);
  else {
    const merged: JsonObject = Object.assign({}, meta);
    merged[META.serverInfo] = host.info;
    out._meta = merged;
  }
  if (frozen) {
    // A frozen result is a cached list page: decorate it once and keep the encoded text.
    const encoded = preEncode(out);
    decorated.set(result, encoded);
    return encoded;
  }
  return out;
}

async function inputRequiredResult(
  host: DispatchHost,
  method: string,
  params: JsonObject,
  incoming: IncomingRequest,
  answers: Record<string, unknown>,
  inputRequests: Record<string, InputRequest>,
  app: unknown,
): Promise<JsonObject> {
  const payload: StatePayload = {
    answers,
    asked: Object.keys(inputRequests),
    req: await requestDigest(method, mainParams(params)),
    exp: Date.now() + host.stateCodec.ttlMs,
  };
  if (app !== undefined) payload.app = app;
  const sub = principal(incoming);
  if (sub !== undefined) payload.sub = sub;
  return {
    resultType: 'input_required',
    inputRequests,
    requestState: await host.stateCodec.seal(payload),
    _meta: { [META.serverInfo]: host.info },
  };
}

async function openState(
  host: DispatchHost,
  method: string,
  params: JsonObject,
  incoming: IncomingRequest,
): Promise<StatePayload | undefined> {
  const token = params.requestState;
  if (token === undefined) return undefined;
  const refuse = () => new JsonRpcError(ErrorCode.InvalidParams, 'Invalid or expired requestState');
  if (typeof token !== 'string') throw refuse();
  const state = await host.stateCodec.open(token);
  if (!state || state.exp < Date.now()) throw refuse();
  if (state.req !== (await requestDigest(method, mainParams(params)))) throw refuse();
  if (state.sub !== principal(incoming)) throw refuse();
  return state;
}

/** The answers to inputs the server asked for in the last round; others SHOULD be ignored (and are). */
function askedOnly(
  responses: Record<string, unknown>,
  asked: readonly string[] | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of asked ?? []) if (Object.hasOwn(responses, key)) out[key] = responses[key];
  return out;
}

function responsesOf(params: JsonObject): Record<string, unknown> {
  const r = params.inputResponses;
  return isJsonObject(r) ? r : {};
}

/** The params that identify a request for binding its state: name or uri, and arguments. */
function mainParams(params: JsonObject): unknown {
  return [params.name ?? params.uri, params.arguments ?? null];
}

function principal(incoming: IncomingRequest): string | undefined {
  return principalOf(incoming.context?.authInfo);
}
