/**
 * The guards of a server, assembled once from its options: what runs in front of the author's middleware (compiled
 * per method and per tool into stages, see `stage.ts`), the access rules the protocol methods consult, and the hook
 * around the requests handlers make of their client. Nothing is built for an option that is not given.
 */
import type { JsonObject } from '../../jsonrpc/types.js';
import { isModernRevision } from '../../spec/modern.js';
import type { Registry } from '../definitions/registry.js';
import type { ToolDef, ToolUpdate } from '../definitions/tools.js';
import type { AskHook, GuardRunner } from '../handler/middleware.js';
import { type AccessOptions, AccessPolicy } from './access.js';
import { type AuditOptions, Auditor } from './audit.js';
import { ConcurrencyCaps, type ConcurrencyOptions, Deadlines, type TimeoutOptions } from './deadline.js';
import { NormalizeStage, SizeLimiter, type SizeLimits } from './limits.js';
import { checkNames, type NameRef, type Registered } from './names.js';
import { RateLimiter, type RateLimitOptions } from './rate-limit.js';
import { ResultCache, type ResultCacheOptions } from './result-cache.js';
import { LAST, type Stage } from './stage.js';

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
  /** Runs a request through the guards that apply to it, then `last` (the middleware chain and the handler). */
  readonly run: GuardRunner;
  /** Puts the result cache in front of every tool call (once a tool marked `cache` is registered). */
  enableCache(): void;
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

/** The most plans of methods kept (methods reach the guards only once known to the server: a handful). */
const MAX_METHOD_PLANS = 64;

/**
 * Builds the guards of `options` (validated now: a bad value throws `INVALID_DEFINITION`). The guards that apply
 * to a method, and for `tools/call` to a tool, are linked into a chain of stages once, the first time that method
 * (or registered tool) is called, in a fixed order: audit, error normalization, rate limits, size limits, the
 * result cache, concurrency caps, deadlines.
 */
export function buildGuards(
  options: GuardOptions,
  tools: Registry<ToolDef, ToolUpdate>,
  report: (error: Error) => void,
): Guards {
  const names: NameRef[] = [];
  const auditor = options.audit === undefined ? undefined : new Auditor(options.audit, report);
  const normalize = options.normalizeErrors === true;
  const limiter = options.rateLimit === undefined ? undefined : new RateLimiter(options.rateLimit);
  if (limiter) names.push(...limiter.names);
  const access = options.access === undefined ? undefined : new AccessPolicy(options.access);
  if (access) names.push(...access.names);
  const sized = options.limits === undefined ? undefined : new SizeLimiter(options.limits);
  const caps =
    options.concurrency === undefined ? undefined : new ConcurrencyCaps(options.concurrency, names);
  const deadline = options.timeouts === undefined ? undefined : new Deadlines(options.timeouts, names);
  let cache: ResultCache | undefined;

  /** The chain of stages of `method` (and of the tool `tool` of a `tools/call`). */
  const plan = (method: string, tool: string | undefined): Stage => {
    let stage = LAST;
    if (tool !== undefined) {
      if (deadline) stage = deadline.stage(tool, stage);
      if (caps) stage = caps.stage(tool, stage);
      if (cache) stage = cache.stage(tool, stage);
    }
    if (sized) stage = sized.stage(method, stage);
    if (limiter) stage = limiter.stage(method, tool, stage);
    if (normalize) stage = new NormalizeStage(stage);
    if (auditor) stage = auditor.stage(method, stage);
    return stage;
  };
  const methodPlans = new Map<string, Stage>();
  // Plans of registered tools only: the names a client sends are not kept (a call of an unknown tool, refused
  // anyway, gets a plan of its own).
  const toolPlans = new Map<string, Stage>();
  const run: GuardRunner = (request, last) => {
    const method = request.method;
    let stage: Stage | undefined;
    if (method === 'tools/call') {
      const name = request.params.name;
      if (typeof name === 'string') {
        stage = toolPlans.get(name);
        if (stage === undefined) {
          stage = plan(method, name);
          if (tools.has(name)) toolPlans.set(name, stage);
        }
      }
    }
    if (stage === undefined) {
      stage = methodPlans.get(method);
      if (stage === undefined) {
        stage = plan(method, undefined);
        if (methodPlans.size < MAX_METHOD_PLANS) methodPlans.set(method, stage);
      }
    }
    return stage === LAST ? last() : stage.run(request, last);
  };
  return {
    run,
    enableCache: () => {
      if (cache !== undefined) return;
      cache = new ResultCache(tools, access, options.resultCache);
      toolPlans.clear();
    },
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
