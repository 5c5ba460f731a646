import type { ClientOptions } from '../client/options.js';
import { ErrorCode, errorMessage, JsonRpcError } from '../jsonrpc/errors.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Root,
  SamplingContent,
} from '../spec/types.js';
import { type ActivityLog, shorten } from './activity-log.js';

/** Where a server's request came from. */
export interface ServerRequestContext {
  server: string;
  signal: AbortSignal;
}

/** The host's model answering a server's sampling request. */
export type HostSampling = (
  params: CreateMessageParams,
  context: ServerRequestContext,
) => Promise<CreateMessageResult> | CreateMessageResult;

/**
 * The person's look at a sampling round: first the request (`result` absent), then the model's answer. Approve,
 * possibly with an edited request or answer, or decline (the server gets "user rejected").
 */
export type SamplingReview = (review: {
  server: string;
  params: CreateMessageParams;
  result?: CreateMessageResult;
}) => Promise<SamplingVerdict> | SamplingVerdict;

/** What the person decided about a sampling request or its answer. */
export type SamplingVerdict =
  | { approve: true; params?: CreateMessageParams; result?: CreateMessageResult }
  | { approve: false; reason?: string };

/** The app's form (or URL) for a server's elicitation. */
export type HostElicitation = (
  params: ElicitParams,
  context: ServerRequestContext,
) => Promise<ElicitResult> | ElicitResult;

/** What the host answers servers with. */
export interface ServerRequestOptions {
  sampling?: HostSampling | undefined;
  reviewSampling?: SamplingReview | undefined;
  elicitation?: HostElicitation | undefined;
  /** The workspace folders offered as roots (always declared, with list-change announcements). */
  roots: () => Root[];
}

/**
 * The client options through which one server's sampling, elicitation and roots requests reach the host's model,
 * the person and the workspace, each sampling round and elicitation recorded in the activity log.
 */
export function serverRequestHandlers(
  server: string,
  options: ServerRequestOptions,
  log: ActivityLog,
): Pick<ClientOptions, 'sampling' | 'elicitation' | 'roots' | 'capabilities'> {
  const capabilities: ClientCapabilities = { roots: { listChanged: true } };
  const out: Pick<ClientOptions, 'sampling' | 'elicitation' | 'roots' | 'capabilities'> = {
    roots: options.roots(),
    capabilities,
  };
  const { sampling, reviewSampling, elicitation } = options;
  if (sampling) {
    capabilities.sampling = {};
    out.sampling = async (params, ctx) => {
      const started = performance.now();
      const done = (outcome: string, summary: string) =>
        log.record({
          kind: 'sampling',
          server,
          outcome,
          durationMs: performance.now() - started,
          summary: shorten(summary),
        });
      const asked = lastText(params);
      try {
        let request = params;
        if (reviewSampling) {
          const verdict = await reviewSampling({ server, params });
          if (!verdict.approve) throw rejected(verdict.reason);
          request = verdict.params ?? params;
        }
        let result = await sampling(request, { server, signal: ctx.signal });
        if (reviewSampling) {
          const verdict = await reviewSampling({ server, params: request, result });
          if (!verdict.approve) throw rejected(verdict.reason);
          result = verdict.result ?? result;
        }
        done('ok', `${asked} -> ${contentText(result.content)}`);
        return result;
      } catch (e) {
        const isRejection = e instanceof JsonRpcError && e.code === ErrorCode.UserRejected;
        done(isRejection ? 'denied' : 'error', `${asked}: ${errorMessage(e)}`);
        throw e;
      }
    };
  }
  if (elicitation) {
    capabilities.elicitation = { form: {}, url: {} };
    out.elicitation = async (params, ctx) => {
      const started = performance.now();
      const what = params.mode === 'url' ? `${params.message} (${params.url})` : params.message;
      try {
        const result = await elicitation(params, { server, signal: ctx.signal });
        log.record({
          kind: 'elicitation',
          server,
          name: params.mode ?? 'form',
          outcome: result.action,
          durationMs: performance.now() - started,
          summary: shorten(what),
        });
        return result;
      } catch (e) {
        log.record({
          kind: 'elicitation',
          server,
          name: params.mode ?? 'form',
          outcome: 'error',
          durationMs: performance.now() - started,
          summary: shorten(`${what}: ${errorMessage(e)}`),
        });
        throw e;
      }
    };
  }
  return out;
}

function rejected(reason: string | undefined): JsonRpcError {
  return new JsonRpcError(
    ErrorCode.UserRejected,
    reason === undefined
      ? 'The user rejected the sampling request'
      : `The user rejected the sampling request: ${reason}`,
  );
}

function lastText(params: CreateMessageParams): string {
  const last = params.messages[params.messages.length - 1];
  return last ? contentText(last.content) : '';
}

function contentText(content: SamplingContent | SamplingContent[]): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
}
