import { McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';
import type { IncomingRequest } from '../protocol/peer.js';
import { checkElicitationSchema, validateElicitationContent } from '../schema/index.js';
import type { CreateMessageResult, ElicitResult, Meta, ProgressToken, Root } from '../spec/types.js';
import type { ElicitFormRequest, ElicitUrlRequest, RequestContext } from './context.js';
import { LOG_LEVELS, type ServerSession } from './session.js';

/** Builds the context a handler receives for one request on a stateful session. */
export function createRequestContext(
  session: ServerSession,
  incoming: IncomingRequest,
): RequestContext & { done(): void } {
  const { request, signal } = incoming;
  const id = request.id;
  const meta = request.params?._meta as Meta | undefined;
  const token = meta?.progressToken as ProgressToken | undefined;
  let lastProgress = Number.NEGATIVE_INFINITY;
  let finished = false;

  return {
    signal,
    requestId: id,
    meta,
    session,
    authInfo: incoming.context?.authInfo,
    done() {
      finished = true;
    },
    async progress(progress, total, message) {
      if (token === undefined || finished) return;
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
      await session.notify('notifications/progress', params, id);
    },
    async log(level, data, logger) {
      if (LOG_LEVELS.indexOf(level) < session.logLevel || session.peer.closed) return;
      const params: JsonObject = { level, data };
      if (logger !== undefined) params.logger = logger;
      await session.notify('notifications/message', params, id);
    },
    async elicit(req, options) {
      const params = elicitParams(session, req);
      const result = (await session.request(
        'elicitation/create',
        params,
        withSignal(options, signal),
        id,
      )) as unknown as ElicitResult;
      if (params.mode !== 'url' && result.action === 'accept' && result.content !== undefined) {
        const checked = validateElicitationContent(params.requestedSchema as JsonObject, result.content);
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
      const sampling = session.clientCapabilities.sampling;
      if (sampling && (params.tools !== undefined || params.toolChoice !== undefined) && !sampling.tools) {
        throw new McpkitError(
          'CAPABILITY_MISSING',
          'The client did not declare sampling.tools, so tools cannot be offered',
        );
      }
      if (sampling && params.includeContext && params.includeContext !== 'none' && !sampling.context) {
        throw new McpkitError(
          'CAPABILITY_MISSING',
          'The client did not declare sampling.context, so includeContext must be "none"',
        );
      }
      const result = await session.request(
        'sampling/createMessage',
        params as unknown as JsonObject,
        withSignal(options, signal),
        id,
      );
      return result as unknown as CreateMessageResult;
    },
    closeStream() {
      incoming.context?.closeStream?.();
    },
    async listRoots(options) {
      const result = await session.request('roots/list', undefined, withSignal(options, signal), id);
      return (result.roots ?? []) as Root[];
    },
  };
}

function withSignal<T extends { signal?: AbortSignal }>(options: T | undefined, signal: AbortSignal): T {
  // A server-to-client request made by a handler ends when the handler's own request is cancelled.
  if (!options?.signal) return { ...options, signal } as T;
  return { ...options, signal: AbortSignal.any([options.signal, signal]) };
}

function elicitParams(session: ServerSession, req: ElicitFormRequest | ElicitUrlRequest): JsonObject {
  const caps = session.clientCapabilities.elicitation;
  if (req.mode === 'url') {
    if (!caps?.url)
      throw new McpkitError('CAPABILITY_MISSING', 'The client did not declare URL-mode elicitation');
    return { ...req, elicitationId: req.elicitationId ?? crypto.randomUUID() };
  }
  // `elicitation: {}` means form mode only.
  if (caps && !caps.form && caps.url)
    throw new McpkitError('CAPABILITY_MISSING', 'The client did not declare form-mode elicitation');
  checkElicitationSchema(req.requestedSchema);
  const { mode: _mode, ...rest } = req;
  // Revisions before 2025-11-25 do not know the mode field.
  return session.protocolVersion >= '2025-11-25' ? { mode: 'form', ...rest } : rest;
}
