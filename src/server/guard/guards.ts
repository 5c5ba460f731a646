/**
 * The guards of a server, assembled once from its options: the middleware they put in front of the author's own (in
 * a fixed order: audit, error normalization, rate limits, size limits, the result cache, concurrency caps,
 * deadlines), the access rules the protocol methods consult, and the hook around the requests handlers make of
 * their client. Nothing is built for an option that is not given.
 */
import type { JsonObject } from '../../jsonrpc/types.js';
import { isModernRevision } from '../../spec/modern.js';
import type { Middleware } from '../middleware.js';
import type { Registry } from '../registry.js';
import type { AskHook } from '../request-context.js';
import type { ToolDef, ToolUpdate } from '../tools.js';
import { type AccessOptions, AccessPolicy } from './access.js';
import { type AuditOptions, Auditor } from './audit.js';
import { type ConcurrencyOptions, concurrencyCaps, deadlines, type TimeoutOptions } from './deadline.js';
import { normalizeErrors, type SizeLimits, sizeLimits } from './limits.js';
import { checkNames, type NameRef, type Registered } from './names.js';
import { RateLimiter, type RateLimitOptions } from './rate-limit.js';
import { type ResultCacheOptions, resultCache } from './result-cache.js';

/** The server options that turn guards on (each one option away; see each option's type for an example). */
export interface GuardOptions {
  /** Token-bucket rate limits per method, per tool and on requests of the client. */
  rateLimit?: RateLimitOptions;
  /** Allow and deny rules on tools, resources, templates and prompts: hidden from lists and refused. */
  access?: AccessOptions;
  /** Deadlines of tool calls: the handler's signal aborts and the call answers with an error result. */
  timeouts?: TimeoutOptions;
  /** Caps on tool calls running at once, per session and per tool, with a bounded queue. */
  concurrency?: ConcurrencyOptions;
  /** Records of tool calls, reads, prompt gets, sampling and elicitation, to sinks and a tracing hook. */
  audit?: AuditOptions;
  /** Size limits on arguments and results. */
  limits?: SizeLimits;
  /** The store of results of tools marked `cache` (on whenever such a tool exists; this sets its bounds). */
  resultCache?: ResultCacheOptions;
  /** No stack or internal message reaches the client: it gets a reference, the audit record the error. */
  normalizeErrors?: boolean;
}

/** The assembled guards. */
export interface Guards {
  /** Middleware run before the author's, outermost first. */
  readonly chain: readonly Middleware[];
  /** Where in `chain` the result cache goes once a tool marked `cache` is registered. */
  readonly cacheIndex: number;
  /** The result cache's middleware. */
  cache(): Middleware;
  readonly access: AccessPolicy | undefined;
  readonly asks: AskHook | undefined;
  /** Refuses option names that match nothing registered (at start: `connect()` and the HTTP endpoints). */
  check(registered: Registered): void;
  close(): Promise<void>;
}

const KEYS = [
  'rateLimit',
  'access',
  'timeouts',
  'concurrency',
  'audit',
  'limits',
  'resultCache',
  'normalizeErrors',
] as const;

/** Whether any guard option is given. */
export function hasGuards(options: GuardOptions): boolean {
  return KEYS.some((k) => options[k] !== undefined && options[k] !== false);
}

/** Builds the guards of `options` (validated now: a bad value throws `INVALID_DEFINITION`). */
export function buildGuards(
  options: GuardOptions,
  tools: Registry<ToolDef, ToolUpdate>,
  report: (error: Error) => void,
): Guards {
  const names: NameRef[] = [];
  const chain: Middleware[] = [];
  const auditor = options.audit === undefined ? undefined : new Auditor(options.audit, report);
  if (auditor) chain.push(auditor.middleware);
  if (options.normalizeErrors === true) chain.push(normalizeErrors);
  const limiter = options.rateLimit === undefined ? undefined : new RateLimiter(options.rateLimit);
  if (limiter) {
    chain.push(limiter.middleware);
    names.push(...limiter.names);
  }
  const access = options.access === undefined ? undefined : new AccessPolicy(options.access);
  if (access) names.push(...access.names);
  const sized = options.limits === undefined ? undefined : sizeLimits(options.limits);
  if (sized) chain.push(sized);
  const cacheIndex = chain.length;
  const caps = options.concurrency === undefined ? undefined : concurrencyCaps(options.concurrency, names);
  if (caps) chain.push(caps);
  const deadline = options.timeouts === undefined ? undefined : deadlines(options.timeouts, names);
  if (deadline) chain.push(deadline);
  return {
    chain,
    cacheIndex,
    cache: () => resultCache(tools, access, options.resultCache),
    access,
    asks: askHook(auditor, limiter),
    check: (registered) => checkNames(names, registered),
    close: async () => {
      await limiter?.close();
    },
  };
}

/** Rate limits of requests of the client (stateful sessions), inside the audit of them. */
function askHook(auditor: Auditor | undefined, limiter: RateLimiter | undefined): AskHook | undefined {
  const limited: AskHook | undefined =
    limiter?.limitsClientRequests === true
      ? (method, params, ctx, send) => {
          // A stateless request's input rounds are part of the client's own (rate-limited) request.
          if (isModernRevision(ctx.session.protocolVersion)) return send();
          try {
            const taken = limiter.clientRequest(method, {
              method,
              params: params ?? ({} as JsonObject),
              ctx,
            });
            return taken === undefined ? send() : taken.then(send);
          } catch (e) {
            return Promise.reject(e);
          }
        }
      : undefined;
  if (auditor === undefined) return limited;
  if (limited === undefined) return auditor.ask;
  return (method, params, ctx, send) =>
    auditor.ask(method, params, ctx, () => limited(method, params, ctx, send));
}
