/**
 * Audit: a structured record of every tool call, resource read and prompt get, and of every sampling and elicitation
 * request a handler makes, to sinks (a callback; the JSONL file of `mcpkit/node`) and to a tracing hook. The
 * outermost guard: a request refused by another guard (rate limit, access rule, size limit) is recorded too, with
 * the full error (error normalization only changes what the client sees).
 */
import { ErrorCode, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject, RequestId } from '../../jsonrpc/types.js';
import { InputRequiredSignal, isInputRequired } from '../../spec/input-required.js';
import type { Implementation } from '../../spec/types.js';
import type { RequestContext } from '../handler/context.js';
import { failureOf } from '../handler/failure.js';
import type { Answer, AskHook, MiddlewareRequest } from '../handler/middleware.js';
import { jsonLength } from './json-size.js';
import { invalid } from './rate.js';
import type { Last, Stage } from './stage.js';
import { clientKey, principalKey, sessionKey } from './subject.js';
import {
  type Span,
  type SpanAttributes,
  type TraceContext,
  type Tracer,
  traceContextOf,
} from './trace-context.js';

/** How an audited operation ended. */
export type AuditOutcome =
  | 'ok'
  | 'error'
  | 'denied'
  | 'rate_limited'
  | 'timeout'
  | 'too_large'
  | 'cancelled'
  | 'input_required';

/** What the audit record says of an error: everything, stack included (it never reaches the client from here). */
export interface AuditError {
  readonly message: string;
  readonly name?: string;
  /** A JSON-RPC code or an mcpkit error code. */
  readonly code?: number | string;
  readonly stack?: string;
  /** The reference the client was given instead (error normalization). */
  readonly ref?: string;
}

/** One audited operation. */
export interface AuditRecord {
  /** When it started (ISO 8601). */
  readonly time: string;
  readonly kind: 'tool' | 'resource' | 'prompt' | 'sampling' | 'elicitation';
  readonly method: string;
  /** The tool or prompt name, the resource URI; for a request of the server's, the method. */
  readonly name: string | undefined;
  /** The JSON-RPC id of the client's request (for sampling and elicitation: the request whose handler asked). */
  readonly requestId: RequestId;
  readonly principal: string | undefined;
  /** The session (undefined for a stateless request). */
  readonly session: string | undefined;
  /** The client: OAuth client, session, or the name it announced (see the rate limiter's "client" key). */
  readonly client: string;
  readonly clientInfo: Implementation | undefined;
  readonly protocolVersion: string;
  /** A digest of the arguments (53-bit hash of their JSON, hex: correlates calls, not a secret), unless off. */
  readonly argumentsDigest?: string;
  /** The arguments with secret-looking values redacted, when `arguments: 'redacted'`. */
  readonly arguments?: unknown;
  /** Length of the arguments' JSON text (characters). */
  readonly argumentsSize: number;
  /** Length of the result's JSON text (characters), when there is a result. */
  readonly resultSize?: number;
  readonly outcome: AuditOutcome;
  readonly error?: AuditError;
  readonly durationMs: number;
  /** From the request's `_meta.traceparent`. */
  readonly traceId?: string;
  readonly parentSpanId?: string;
}

/** Receives audit records. Must not throw (a throw is reported and ignored). */
export type AuditSink = (record: AuditRecord) => void;

/**
 * The `audit` option of a server.
 *
 * @example
 * new McpServer(info, { audit: { sink: (record) => log.info(record), arguments: 'redacted' } });
 * // Node: a JSONL file rotated by size
 * import { jsonlAuditSink } from 'mcpkit/node';
 * new McpServer(info, { audit: { sink: jsonlAuditSink({ path: 'audit.jsonl', maxBytes: 10_000_000 }) } });
 */
export interface AuditOptions {
  /** Where records go: one sink or several. */
  readonly sink?: AuditSink | readonly AuditSink[];
  /** What of the arguments is kept: "digest" (default), "redacted" (the arguments, secrets hidden) or "none". */
  readonly arguments?: 'digest' | 'redacted' | 'none';
  /** Keys whose values are redacted in "redacted" arguments. Default: password, secret, token, key, auth, cookie, credential. */
  readonly redactKeys?: RegExp;
  /** Spans of audited operations, carrying W3C trace context from `_meta`. */
  readonly tracer?: Tracer;
}

const KINDS: ReadonlyMap<string, AuditRecord['kind']> = new Map([
  ['tools/call', 'tool'],
  ['resources/read', 'resource'],
  ['prompts/get', 'prompt'],
  ['sampling/createMessage', 'sampling'],
  ['elicitation/create', 'elicitation'],
]);

const SECRET_KEYS = /pass|secret|token|key|auth|cookie|credential/i;

/** The compiled audit: a middleware and the hook of requests a handler makes of its client. */
export class Auditor {
  readonly #sinks: readonly AuditSink[];
  readonly #tracer: Tracer | undefined;
  readonly #args: 'digest' | 'redacted' | 'none';
  readonly #redact: RegExp;
  readonly #report: (error: Error) => void;

  constructor(options: AuditOptions, report: (error: Error) => void) {
    const sink = options.sink;
    const sinks = sink === undefined ? [] : typeof sink === 'function' ? [sink] : [...sink];
    if (sinks.some((s) => typeof s !== 'function'))
      throw invalid('audit.sink', 'must be a function or an array of functions');
    if (options.tracer !== undefined && typeof options.tracer?.startSpan !== 'function')
      throw invalid('audit.tracer', 'must have a startSpan function');
    if (sinks.length === 0 && options.tracer === undefined)
      throw invalid('audit', 'needs a sink or a tracer');
    const args = options.arguments ?? 'digest';
    if (args !== 'digest' && args !== 'redacted' && args !== 'none')
      throw invalid('audit.arguments', 'must be "digest", "redacted" or "none"');
    this.#sinks = sinks;
    this.#tracer = options.tracer;
    this.#args = args;
    this.#redact = options.redactKeys ?? SECRET_KEYS;
    this.#report = report;
  }

  /** The stage recording the calls of `method` in front of `inner` (`inner` itself when it is not audited). */
  stage(method: string, inner: Stage): Stage {
    const kind = KINDS.get(method);
    return kind === undefined || kind === 'sampling' || kind === 'elicitation'
      ? inner
      : new AuditStage(this, kind, inner);
  }

  /** The hook around sampling and elicitation requests of handlers. */
  readonly ask: AskHook = (method, params, ctx, send) => {
    const kind = KINDS.get(method);
    if (kind === undefined) return send();
    const started = this.start(kind, method, method, params, ctx, 'client');
    const span = started.span;
    if (span?.traceparent !== undefined && params !== undefined) {
      // The client's spans join the trace: the server's span is their parent.
      const meta: JsonObject = { ...(params._meta as JsonObject | undefined), traceparent: span.traceparent };
      if (span.tracestate !== undefined) meta.tracestate = span.tracestate;
      params._meta = meta;
    }
    return send().then(
      (answer) => {
        this.finish(started, answer as JsonObject, undefined, ctx);
        return answer;
      },
      (e: unknown) => {
        this.finish(started, undefined, e, ctx);
        throw e;
      },
    );
  };

  /** @internal Opens the record (and span) of an operation. */
  start(
    kind: AuditRecord['kind'],
    method: string,
    name: string | undefined,
    args: unknown,
    ctx: RequestContext,
    spanKind: 'server' | 'client',
  ): Started {
    const at = Date.now();
    // The text only for a digest of it; its length otherwise comes from a walk of the arguments.
    const text = args === undefined || this.#args !== 'digest' ? '' : JSON.stringify(args);
    const size = args === undefined ? 0 : text !== '' ? text.length : (jsonLength(args) ?? 0);
    const trace = traceContextOf(ctx.meta);
    let span: Span | undefined;
    if (this.#tracer !== undefined) {
      const attributes: SpanAttributes = { 'mcp.method.name': method };
      if (name !== undefined) {
        if (kind === 'tool') attributes['gen_ai.tool.name'] = name;
        else if (kind === 'prompt') attributes['gen_ai.prompt.name'] = name;
        else if (kind === 'resource') attributes['mcp.resource.uri'] = name;
      }
      const session = sessionKey(ctx);
      if (session !== undefined) attributes['mcp.session.id'] = session;
      attributes['mcp.protocol.version'] = ctx.session.protocolVersion;
      try {
        span = this.#tracer.startSpan({
          name: name === undefined || name === method ? method : `${method} ${name}`,
          kind: spanKind,
          startTime: at,
          parent: trace,
          attributes,
        });
      } catch (e) {
        this.#report(e instanceof Error ? e : new Error(String(e)));
      }
    }
    return { kind, method, name, at, clock: performance.now(), args, text, size, trace, span };
  }

  /** @internal Closes the record of an operation and hands it to the sinks. */
  finish(s: Started, result: JsonObject | undefined, thrown: unknown, ctx: RequestContext): void {
    const durationMs = Math.round((performance.now() - s.clock) * 1000) / 1000;
    let outcome: AuditOutcome;
    let error: unknown;
    if (result !== undefined) {
      const failure = failureOf(result);
      if (isInputRequired(result)) outcome = 'input_required';
      else if (failure !== undefined) {
        outcome = failure.outcome ?? 'error';
        error = failure.error;
      } else outcome = result.isError === true ? 'error' : 'ok';
    } else {
      error = thrown instanceof JsonRpcError && thrown.cause !== undefined ? thrown.cause : thrown;
      outcome = outcomeOf(thrown, ctx);
    }
    if (s.span !== undefined) {
      try {
        s.span.end(
          error === undefined ? { endTime: Date.now(), outcome } : { endTime: Date.now(), outcome, error },
        );
      } catch (e) {
        this.#report(e instanceof Error ? e : new Error(String(e)));
      }
    }
    if (this.#sinks.length === 0) return;
    const record: {
      -readonly [K in keyof AuditRecord]: AuditRecord[K];
    } = {
      time: isoTime(s.at),
      kind: s.kind,
      method: s.method,
      name: s.name,
      requestId: ctx.requestId,
      principal: principalKey(ctx),
      session: sessionKey(ctx),
      client: clientKey(ctx),
      clientInfo: ctx.session.clientInfo,
      protocolVersion: ctx.session.protocolVersion,
      argumentsSize: s.size,
      outcome,
      durationMs,
    };
    if (s.text !== '') record.argumentsDigest = digest(s.text);
    else if (this.#args === 'redacted' && s.args !== undefined)
      record.arguments = redact(s.args, this.#redact, 0);
    if (result !== undefined) {
      const size = jsonLength(result);
      if (size !== undefined) record.resultSize = size;
    }
    if (error !== undefined) {
      const ref = result === undefined ? refOf(thrown) : failureOf(result)?.ref;
      record.error = ref === undefined ? describeError(error) : { ...describeError(error), ref };
    }
    if (s.trace !== undefined) {
      record.traceId = s.trace.traceId;
      record.parentSpanId = s.trace.parentSpanId;
    }
    for (const sink of this.#sinks) {
      try {
        sink(record);
      } catch (e) {
        this.#report(e instanceof Error ? e : new Error(String(e)));
      }
    }
  }
}

/** Records the calls of one method (tools/call, resources/read, prompts/get), whatever their outcome. */
class AuditStage implements Stage {
  readonly #auditor: Auditor;
  readonly #kind: AuditRecord['kind'];
  readonly #inner: Stage;

  constructor(auditor: Auditor, kind: AuditRecord['kind'], inner: Stage) {
    this.#auditor = auditor;
    this.#kind = kind;
    this.#inner = inner;
  }

  run(request: MiddlewareRequest, last: Last): Answer {
    const { method, params, ctx } = request;
    const auditor = this.#auditor;
    const name =
      typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
    const started = auditor.start(this.#kind, method, name, params.arguments, ctx, 'server');
    let out: Answer;
    try {
      out = this.#inner.run(request, last);
    } catch (e) {
      auditor.finish(started, undefined, e, ctx);
      throw e;
    }
    if (!(out instanceof Promise)) {
      auditor.finish(started, out, undefined, ctx);
      return out;
    }
    return out.then(
      (result) => {
        auditor.finish(started, result, undefined, ctx);
        return result;
      },
      (e: unknown) => {
        auditor.finish(started, undefined, e, ctx);
        throw e;
      },
    );
  }
}

/** An operation being recorded. */
export interface Started {
  readonly kind: AuditRecord['kind'];
  readonly method: string;
  readonly name: string | undefined;
  readonly at: number;
  readonly clock: number;
  readonly args: unknown;
  /** The arguments' JSON text when a digest of it is kept, else ''. */
  readonly text: string;
  /** The length of the arguments' JSON text. */
  readonly size: number;
  readonly trace: TraceContext | undefined;
  readonly span: Span | undefined;
}

function outcomeOf(e: unknown, ctx: RequestContext): AuditOutcome {
  if (e instanceof InputRequiredSignal) return 'input_required';
  if (e instanceof JsonRpcError) {
    if (e.code === ErrorCode.RateLimited) return 'rate_limited';
    const reason = (e.data as { reason?: unknown } | undefined)?.reason;
    if (reason === 'too_large') return 'too_large';
    if (reason === 'access_denied' || e.message.startsWith('Forbidden')) return 'denied';
  }
  if (e instanceof McpkitError && e.code === 'RATE_LIMITED') return 'rate_limited';
  if (ctx.signal.aborted) return 'cancelled';
  return 'error';
}

/** The reference of a normalized error (its `data.ref`). */
function refOf(e: unknown): string | undefined {
  if (!(e instanceof JsonRpcError) || e.cause === undefined) return undefined;
  const ref = (e.data as { ref?: unknown } | undefined)?.ref;
  return typeof ref === 'string' ? ref : undefined;
}

function describeError(e: unknown): AuditError {
  // A JSON-RPC error is an answer someone chose (a guard's refusal, a handler's): its stack says nothing more.
  if (e instanceof JsonRpcError) return { message: e.message, name: e.name, code: e.code };
  if (e instanceof McpkitError) {
    return e.stack === undefined
      ? { message: e.message, name: e.name, code: e.code }
      : { message: e.message, name: e.name, code: e.code, stack: e.stack };
  }
  if (e instanceof Error)
    return e.stack === undefined
      ? { message: e.message, name: e.name }
      : { message: e.message, name: e.name, stack: e.stack };
  return { message: String(e) };
}

let lastMs = Number.NaN;
let lastIso = '';
/** The second the text below is of (ms since the epoch, a multiple of 1000), and its ISO text up to the '.'. */
let secondAt = Number.NaN;
let secondIso = '';

/**
 * A time in ms as ISO 8601, as `new Date(ms).toISOString()` writes it: made once per millisecond (calls in the same
 * millisecond share the text), and within one second from that second's text and the milliseconds (a Date and
 * its formatting once per second, not once per millisecond).
 */
export function isoTime(ms: number): string {
  if (ms === lastMs) return lastIso;
  const within = ms - secondAt;
  if (within >= 0 && within < 1000 && Number.isInteger(ms)) {
    lastIso = `${secondIso}${MILLIS[within] as string}Z`;
  } else {
    lastIso = new Date(ms).toISOString();
    if (Number.isInteger(ms)) {
      const into = ((ms % 1000) + 1000) % 1000;
      secondAt = ms - into;
      // "….sssZ": the text up to and including the '.'.
      secondIso = lastIso.slice(0, -4);
    }
  }
  lastMs = ms;
  return lastIso;
}

/** "000" to "999". */
const MILLIS: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/** Secret-looking values replaced by "[redacted]", to a bounded depth. */
function redact(value: unknown, keys: RegExp, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 8) return '[…]';
  if (Array.isArray(value)) return value.map((v) => redact(v, keys, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = keys.test(k) ? '[redacted]' : redact(v, keys, depth + 1);
  return out;
}

/** A 53-bit non-cryptographic hash (cyrb53) of a string, as 14 hex digits. */
export function digest(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  // (2^32 * (h2 & 0x1fffff) + (h1 >>> 0)).toString(16).padStart(14, '0'), without a number's radix conversion
  // (most of the cost of a short digest): the high 21 bits are six hex digits, the low 32 bits eight.
  const hi = h2 & 0x1fffff;
  return String.fromCharCode(
    hex(hi >>> 20),
    hex(hi >>> 16),
    hex(hi >>> 12),
    hex(hi >>> 8),
    hex(hi >>> 4),
    hex(hi),
    hex(h1 >>> 28),
    hex(h1 >>> 24),
    hex(h1 >>> 20),
    hex(h1 >>> 16),
    hex(h1 >>> 12),
    hex(h1 >>> 8),
    hex(h1 >>> 4),
    hex(h1),
  );
}

/** The character code of the hex digit of the low four bits of `n`. */
function hex(n: number): number {
  const d = n & 15;
  return d < 10 ? 48 + d : 87 + d;
}
