import { ErrorCode, JsonRpcError, McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject, RequestId } from '../jsonrpc/types.js';
import type { IncomingRequest } from '../protocol/peer.js';
import { applyElicitationDefaults, validateElicitationContent } from '../schema/index.js';
import { createMessageParams, elicitFormParams, elicitUrlParams } from '../spec/checks.js';
import { LATEST_MODERN_REVISION } from '../spec/modern.js';
import { POLICIES, type RevisionPolicy } from '../spec/revision.js';
import { check } from '../spec/shape.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Root,
} from '../spec/types.js';

/** What a client-side handler gets besides the request's params. */
export interface ClientRequestContext {
  /** Aborted when the server cancels the request or the connection closes. */
  signal: AbortSignal;
  /** The JSON-RPC id of the server's request. */
  requestId: RequestId;
  /**
   * The id of this client's own request the server related this one to, where the transport tells: a request
   * that came on that request's Streamable HTTP response stream, or in memory the sender's relation; undefined
   * otherwise (stdio, legacy SSE, the standalone GET stream).
   */
  relatedRequestId?: RequestId;
  /** The signal this client gave that related request, while it awaits its answer (when it was given one). */
  relatedSignal?: AbortSignal;
}

/** Answers `sampling/createMessage`. */
export type SamplingHandler = (
  params: CreateMessageParams,
  ctx: ClientRequestContext,
) => Promise<CreateMessageResult> | CreateMessageResult;
/** Answers `elicitation/create` (form or URL mode). */
export type ElicitationHandler = (
  params: ElicitParams,
  ctx: ClientRequestContext,
) => Promise<ElicitResult> | ElicitResult;
/** Answers `roots/list`. */
export type RootsHandler = (ctx: ClientRequestContext) => Promise<Root[]> | Root[];

/** The client's answers to server requests. */
export interface ClientHandlers {
  sampling?: SamplingHandler;
  elicitation?: ElicitationHandler;
  rootsHandler?: RootsHandler;
}

/**
 * Answers one request of the server over a stateful connection (ping, sampling, elicitation, roots) through the
 * client's handlers; a method the client has no handler or capability for is -32601. `outgoing`: the options of
 * this client's requests still awaiting their answers (for the request the transport relates this one to).
 */
export async function answerServerRequest(
  incoming: IncomingRequest,
  handlers: ClientHandlers & { applyElicitationDefaults?: boolean },
  caps: ClientCapabilities,
  roots: Root[],
  policy: RevisionPolicy,
  outgoing?: (id: RequestId) => { signal?: AbortSignal } | undefined,
): Promise<JsonObject> {
  const { method, params = {} } = incoming.request;
  const ctx: ClientRequestContext = { signal: incoming.signal, requestId: incoming.request.id };
  const related = incoming.context?.relatedRequestId;
  if (related !== undefined) {
    ctx.relatedRequestId = related;
    const signal = outgoing?.(related)?.signal;
    if (signal !== undefined) ctx.relatedSignal = signal;
  }
  if (method === 'ping') return {};
  if (method === 'sampling/createMessage' && handlers.sampling && caps.sampling)
    return answerSampling(handlers.sampling, caps, params, ctx);
  if (method === 'elicitation/create' && handlers.elicitation && caps.elicitation) {
    const defaults = handlers.applyElicitationDefaults !== false;
    return answerElicitation(handlers.elicitation, caps, policy, params, ctx, defaults);
  }
  if (method === 'roots/list' && caps.roots) {
    const list = handlers.rootsHandler ? await handlers.rootsHandler(ctx) : roots;
    return { roots: list };
  }
  throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
}

/** Answers sampling, checking that tools are offered only when the client declared them. */
export async function answerSampling(
  handler: SamplingHandler,
  caps: ClientCapabilities,
  params: JsonObject,
  ctx: ClientRequestContext,
): Promise<JsonObject> {
  const request = check(createMessageParams, params, invalidParams);
  if ((request.tools !== undefined || request.toolChoice !== undefined) && !caps.sampling?.tools) {
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      'This client did not declare sampling.tools: "tools" and "toolChoice" are not allowed',
    );
  }
  return await handler(request, ctx);
}

/**
 * Answers elicitation: refuses modes the client did not declare (or the revision lacks), fills schema defaults into an accepted form answer
 * and validates it before it is sent.
 */
export async function answerElicitation(
  handler: ElicitationHandler,
  caps: ClientCapabilities,
  policy: RevisionPolicy,
  params: JsonObject,
  ctx: ClientRequestContext,
  applyDefaults: boolean,
): Promise<JsonObject> {
  // Requests of revisions before 2025-11-25 carry no mode: they are form requests.
  const mode = params.mode ?? 'form';
  const modes = policy.elicitationModes(caps);
  if (
    (mode === 'form' && !modes.form) ||
    (mode === 'url' && !modes.url) ||
    (mode !== 'form' && mode !== 'url')
  ) {
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      `This client does not support elicitation mode "${String(mode)}"`,
    );
  }
  if (mode === 'url') return await handler(check(elicitUrlParams, params, invalidParams), ctx);
  const request = check(elicitFormParams, params, invalidParams);
  const schema = request.requestedSchema;
  const answer = await handler(request, ctx);
  if (answer.action !== 'accept') return answer;
  const content = applyDefaults
    ? applyElicitationDefaults(schema, answer.content ?? {})
    : (answer.content ?? {});
  const checked = await validateElicitationContent(schema, content);
  if (!checked.ok) {
    throw new JsonRpcError(
      ErrorCode.InternalError,
      `The elicitation answer does not match the requested schema: ${checked.issues.join('; ')}`,
    );
  }
  return { ...answer, content };
}

/** Input requests (MRTR rounds, tasks) exist only in the stateless revision. */
const STATELESS = POLICIES[LATEST_MODERN_REVISION];

/** What answering input requests needs from a client. */
export interface InputAnswerer {
  capabilities: ClientCapabilities;
  handlers: ClientHandlers;
  roots: () => Root[];
  applyDefaults: boolean;
}

/**
 * Answers a map of input requests (MRTR `inputRequests`, or a task's) through the client's
 * elicitation, sampling and roots handlers; the answers keep the requests' keys.
 */
export async function fulfilInputRequests(
  requests: unknown,
  s: InputAnswerer,
  signal: AbortSignal | undefined,
): Promise<JsonObject> {
  const out: JsonObject = {};
  if (typeof requests !== 'object' || requests === null) return out;
  const ctx: ClientRequestContext = { signal: signal ?? new AbortController().signal, requestId: '' };
  for (const [key, raw] of Object.entries(
    requests as Record<string, { method?: unknown; params?: JsonObject }>,
  )) {
    const params = raw?.params ?? {};
    switch (raw?.method) {
      case 'elicitation/create':
        if (!s.handlers.elicitation || !s.capabilities.elicitation) throw notOffered('elicitation');
        out[key] = await answerElicitation(
          s.handlers.elicitation,
          s.capabilities,
          STATELESS,
          params,
          ctx,
          s.applyDefaults,
        );
        break;
      case 'sampling/createMessage':
        if (!s.handlers.sampling || !s.capabilities.sampling) throw notOffered('sampling');
        out[key] = await answerSampling(s.handlers.sampling, s.capabilities, params, ctx);
        break;
      case 'roots/list':
        if (!s.capabilities.roots) throw notOffered('roots');
        out[key] = { roots: s.handlers.rootsHandler ? await s.handlers.rootsHandler(ctx) : s.roots() };
        break;
      default:
        throw new McpkitError(
          'INVALID_RESULT',
          `The server asked for input of unknown method ${JSON.stringify(raw?.method)}`,
        );
    }
  }
  return out;
}

function invalidParams(problem: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: params${problem}`);
}

function notOffered(capability: string): McpkitError {
  return new McpkitError(
    'CAPABILITY_MISSING',
    `The server asked for ${capability}, which this client does not offer`,
  );
}
