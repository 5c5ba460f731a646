/**
 * W3C trace context (`traceparent`, `tracestate`) as MCP carries it in a request's `_meta`, and the tracing hook
 * that turns audited operations into spans. OpenTelemetry-compatible without depending on it: an adapter of a few
 * lines maps {@link Tracer} onto an OpenTelemetry tracer (see the example on {@link Tracer}).
 */

/** A parsed `traceparent` (version 00), with the `tracestate` that came with it. */
export interface TraceContext {
  /** The header value as received. */
  readonly traceparent: string;
  readonly tracestate?: string | undefined;
  /** 32 lower-case hex digits. */
  readonly traceId: string;
  /** The caller's span (16 hex digits): the parent of the server's span. */
  readonly parentSpanId: string;
  /** Whether the caller sampled the trace (flag 01). */
  readonly sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const ZERO_TRACE = '00000000000000000000000000000000';
const ZERO_SPAN = '0000000000000000';

/** Reads the trace context of a request's `_meta` (undefined when absent or malformed: a malformed one is ignored). */
export function traceContextOf(
  meta: { readonly [key: string]: unknown } | undefined,
): TraceContext | undefined {
  const header = meta?.traceparent;
  if (typeof header !== 'string' || header.length > 512) return undefined;
  const m = TRACEPARENT.exec(header);
  if (!m) return undefined;
  // The four groups are not optional: a match has them all.
  const version = m[1] as string;
  const traceId = m[2] as string;
  const spanId = m[3] as string;
  const flags = m[4] as string;
  // Version ff is invalid; version 00 has exactly four fields; all-zero ids are invalid.
  if (version === 'ff' || (version === '00' && header.length !== 55)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const state = meta?.tracestate;
  return {
    traceparent: header,
    tracestate: typeof state === 'string' && state.length <= 512 ? state : undefined,
    traceId,
    parentSpanId: spanId,
    sampled: (Number.parseInt(flags, 16) & 1) === 1,
  };
}

/** Attribute values of a span. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** What a span starts with. */
export interface SpanStart {
  /** "tools/call search", "resources/read file:///a", "sampling/createMessage". */
  readonly name: string;
  /** "server" for a request the server answers, "client" for one it makes of its client. */
  readonly kind: 'server' | 'client';
  /** Start, in ms since the epoch. */
  readonly startTime: number;
  /** The caller's trace context from the request's `_meta` (for a request of the server's, the handler's request). */
  readonly parent: TraceContext | undefined;
  /** `mcp.method.name`, `gen_ai.tool.name`, `mcp.resource.uri`, `gen_ai.prompt.name`, `mcp.session.id`, … */
  readonly attributes: SpanAttributes;
}

/** How a span ends. */
export interface SpanEnd {
  readonly endTime: number;
  /** The audit outcome: "ok", "error", "denied", "rate_limited", "timeout", … */
  readonly outcome: string;
  /** The error, when the outcome is not "ok". */
  readonly error?: unknown;
  readonly attributes?: SpanAttributes;
}

/** A span in progress. */
export interface Span {
  /**
   * The `traceparent` of this span, if the tracer has one: it goes into the `_meta` of the requests the handler makes
   * of its client, so the client's own spans join the trace.
   */
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
  end(end: SpanEnd): void;
}

/**
 * The tracing hook: a span per audited operation. No dependency on OpenTelemetry; an adapter maps it.
 *
 * @example
 * import { context, propagation, trace, SpanStatusCode } from '@opentelemetry/api';
 * const otel = trace.getTracer('my-server');
 * const tracer: Tracer = {
 *   startSpan({ name, kind, startTime, parent, attributes }) {
 *     const carrier = parent ? { traceparent: parent.traceparent, tracestate: parent.tracestate } : {};
 *     const ctx = propagation.extract(context.active(), carrier);
 *     const span = otel.startSpan(name, { kind: kind === 'server' ? 1 : 2, startTime, attributes }, ctx);
 *     return { end: ({ endTime, outcome }) => { if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR }); span.end(endTime); } };
 *   },
 * };
 */
export interface Tracer {
  /** Starts a span; undefined: this operation is not traced. Must not throw (a throw is reported and ignored). */
  startSpan(start: SpanStart): Span | undefined;
}
