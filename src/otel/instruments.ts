/**
 * The tracer and meters of one instrumented part, and the one way its spans end: status and `error.type` as the
 * conventions ask, the duration recorded on the matching histogram with the span's low-cardinality attributes.
 */
import {
  type Attributes,
  createTraceState,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type Context as OtelContext,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { traceContextOf } from '../server/guard/trace-context.js';
import { ATTR, DURATION_BUCKETS, METRIC_ATTRIBUTES, SCOPE } from './conventions.js';
import type { Failure } from './errors.js';

/** What every instrumented part takes. */
export interface OtelOptions {
  /** Where spans go; default the global tracer provider (`trace.setGlobalTracerProvider`, or an SDK's). */
  readonly tracerProvider?: TracerProvider;
  /** Where metrics go; default the global meter provider. */
  readonly meterProvider?: MeterProvider;
  /**
   * Record tool arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) as JSON text. Off by
   * default: they may hold secrets.
   */
  readonly captureContent?: boolean;
  /** `network.transport` of the messages ("tcp" for HTTP, "pipe" for stdio); default: told by the transport. */
  readonly networkTransport?: string;
}

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  'mcp.client.operation.duration':
    'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
  'mcp.server.operation.duration':
    'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
  'mcp.client.session.duration': 'The duration of the MCP session as observed on the MCP client.',
  'mcp.server.session.duration': 'The duration of the MCP session as observed on the MCP server.',
};

/** The tracer, the histograms and the options of one instrumented part. */
export class Instruments {
  readonly tracer: Tracer;
  readonly captureContent: boolean;
  readonly networkTransport: string | undefined;
  readonly #meter: Meter;
  readonly #histograms = new Map<string, Histogram>();

  constructor(options: OtelOptions) {
    this.tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
    this.#meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
    this.captureContent = options.captureContent === true;
    this.networkTransport = options.networkTransport;
  }

  /** Records a duration (seconds) on the histogram `name`, keeping the metric attributes of `attributes`. */
  record(name: string, seconds: number, attributes: Attributes): void {
    let h = this.#histograms.get(name);
    if (h === undefined) {
      h = this.#meter.createHistogram(name, {
        unit: 's',
        description: DESCRIPTIONS[name] ?? name,
        advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
      });
      this.#histograms.set(name, h);
    }
    const kept: Attributes = {};
    for (const key of METRIC_ATTRIBUTES) if (attributes[key] !== undefined) kept[key] = attributes[key];
    h.record(seconds, kept);
  }

  /** Ends `span` (failed or not) and records its duration, started at `started` (`performance.now()`), on `metric`. */
  end(span: Span, attributes: Attributes, started: number, metric: string, failure?: Failure): void {
    if (failure !== undefined) {
      attributes[ATTR.errorType] = failure.type;
      span.setAttribute(ATTR.errorType, failure.type);
      if (failure.statusCode !== undefined) {
        attributes[ATTR.statusCode] = failure.statusCode;
        span.setAttribute(ATTR.statusCode, failure.statusCode);
      }
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
    }
    span.end();
    this.record(metric, (performance.now() - started) / 1000, attributes);
  }
}

/**
 * The remote parent a request's `_meta` names (`traceparent`, `tracestate`), checked by the server's own parser: a
 * malformed or oversized value is ignored (undefined), never an error.
 */
export function remoteParent(meta: { readonly [key: string]: unknown } | undefined): OtelContext | undefined {
  const parsed = traceContextOf(meta);
  if (parsed === undefined) return undefined;
  const spanContext: SpanContext = {
    traceId: parsed.traceId,
    spanId: parsed.parentSpanId,
    traceFlags: parsed.sampled ? 1 : 0,
    isRemote: true,
  };
  if (parsed.tracestate !== undefined) {
    try {
      spanContext.traceState = createTraceState(parsed.tracestate);
    } catch {
      // A tracestate the API cannot read is dropped; the traceparent still holds.
    }
  }
  return trace.setSpanContext(ROOT_CONTEXT, spanContext);
}

/** The `traceparent` and `tracestate` of a span, for the `_meta` of the requests made under it. */
export function traceFields(span: Span): { traceparent: string; tracestate?: string } | undefined {
  const c = span.spanContext();
  if (!trace.isSpanContextValid(c)) return undefined;
  const flags = (c.traceFlags & 0xff).toString(16).padStart(2, '0');
  const fields: { traceparent: string; tracestate?: string } = {
    traceparent: `00-${c.traceId}-${c.spanId}-${flags}`,
  };
  const state = c.traceState?.serialize();
  if (state) fields.tracestate = state;
  return fields;
}

/** The span name and the attributes a request's method and params give (the same on both sides). */
export function requestAttributes(
  method: string,
  params: { readonly [key: string]: unknown } | undefined,
  captureContent: boolean,
): { name: string; attributes: Attributes } {
  const attributes: Attributes = { [ATTR.method]: method };
  let target: string | undefined;
  const name = params?.name;
  if (method === 'tools/call' && typeof name === 'string') {
    target = name;
    attributes[ATTR.toolName] = name;
    attributes[ATTR.operation] = 'execute_tool';
    if (captureContent && params?.arguments !== undefined)
      attributes[ATTR.toolArguments] = JSON.stringify(params.arguments);
  } else if (method === 'prompts/get' && typeof name === 'string') {
    target = name;
    attributes[ATTR.promptName] = name;
  } else if (typeof params?.uri === 'string' && method.startsWith('resources/')) {
    // The URI only as an attribute: in the span name it would make names of high cardinality.
    attributes[ATTR.resourceUri] = params.uri;
  }
  return { name: target === undefined ? method : `${method} ${target}`, attributes };
}
