/**
 * The tracer and meters of one instrumented part, and the one way its spans end: status and `error.type` as the
 * conventions ask, the duration recorded on the matching histogram with the span's low-cardinality attributes.
 */
import {
  type Attributes,
  type Baggage,
  baggageEntryMetadataFromString,
  createTraceState,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type Context as OtelContext,
  propagation,
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

  /** The histogram `name`, made on first use. */
  histogram(name: string): Histogram {
    let h = this.#histograms.get(name);
    if (h === undefined) {
      h = this.#meter.createHistogram(name, {
        unit: 's',
        description: DESCRIPTIONS[name] ?? name,
        advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
      });
      this.#histograms.set(name, h);
    }
    return h;
  }

  /** Records a duration (seconds) on the histogram `name`, keeping the metric attributes of `attributes`. */
  record(name: string, seconds: number, attributes: Attributes): void {
    this.histogram(name).record(seconds, metricAttributes(attributes));
  }

  /**
   * Ends `span` (failed or not) and records its duration on `metric`: the span's own (`secondsOf`), else since
   * `started` (`performance.now()`).
   */
  end(span: Span, attributes: Attributes, started: number, metric: string, failure?: Failure): void {
    if (failure !== undefined) fail(span, attributes, failure);
    span.end();
    this.record(metric, secondsOf(span, started), attributes);
  }
}

/** A span as the SDK makes it: its duration (`ReadableSpan.duration`, `[seconds, nanoseconds]`) kept once ended. */
interface TimedSpan {
  readonly duration?: readonly [number, number];
}

/** Whether a span keeps its own duration (the SDK's recording spans), so that no clock needs reading beside it. */
export function keepsDuration(span: Span): boolean {
  return 'duration' in span;
}

/**
 * The duration of an ended span in seconds: the one it measured itself when it keeps one (the same clock readings,
 * not a second pair), else since `started` (`performance.now()`, NaN when the span was to keep it).
 */
export function secondsOf(span: Span, started: number): number {
  const d = (span as TimedSpan).duration;
  if (d !== undefined && d[0] >= 0) return d[0] + d[1] / 1e9;
  return Number.isNaN(started) ? 0 : (performance.now() - started) / 1000;
}

/** The metric attributes of a span's attributes (the low-cardinality ones). */
export function metricAttributes(attributes: Attributes): Attributes {
  const kept: Attributes = {};
  for (const key of METRIC_ATTRIBUTES) if (attributes[key] !== undefined) kept[key] = attributes[key];
  return kept;
}

/** Marks `span` failed as the conventions ask (`error.type`, the JSON-RPC code, status ERROR), in `attributes` too. */
export function fail(span: Span, attributes: Attributes, failure: Failure): void {
  attributes[ATTR.errorType] = failure.type;
  span.setAttribute(ATTR.errorType, failure.type);
  if (failure.statusCode !== undefined) {
    attributes[ATTR.statusCode] = failure.statusCode;
    span.setAttribute(ATTR.statusCode, failure.statusCode);
  }
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
}

/**
 * The remote parent a message's `_meta` names (`traceparent`, `tracestate`, checked by the server's own parser: a
 * malformed or oversized value is ignored, never an error) and its W3C `baggage`, on `base`; undefined when `_meta`
 * carries neither (the common case costs two property reads).
 */
export function remoteParent(
  meta: { readonly [key: string]: unknown } | undefined,
  base: OtelContext = ROOT_CONTEXT,
): OtelContext | undefined {
  if (meta === undefined || (meta.traceparent === undefined && meta.baggage === undefined)) return undefined;
  let ctx: OtelContext | undefined;
  const parsed = traceContextOf(meta);
  if (parsed !== undefined) {
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
    ctx = trace.setSpanContext(base, spanContext);
  }
  const baggage = typeof meta.baggage === 'string' ? parseBaggage(meta.baggage) : undefined;
  if (baggage !== undefined) ctx = propagation.setBaggage(ctx ?? base, baggage);
  return ctx;
}

/** W3C Baggage's limits: the header's length, and the entries read of it. */
const BAGGAGE_MAX_LENGTH = 8192;
const BAGGAGE_MAX_ENTRIES = 180;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A W3C `baggage` value (`key=value;property,…`, percent-encoded values); undefined when empty or too long. */
export function parseBaggage(header: string): Baggage | undefined {
  if (header.length > BAGGAGE_MAX_LENGTH) return undefined;
  const entries: Record<
    string,
    { value: string; metadata?: ReturnType<typeof baggageEntryMetadataFromString> }
  > = {};
  let count = 0;
  for (const member of header.split(',')) {
    if (count >= BAGGAGE_MAX_ENTRIES) break;
    const semi = member.indexOf(';');
    const pair = semi < 0 ? member : member.slice(0, semi);
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq).trim();
    if (!TOKEN.test(key)) continue;
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      // A value that is not valid percent-encoding is dropped, as the W3C propagator drops it.
      continue;
    }
    entries[key] =
      semi < 0 ? { value } : { value, metadata: baggageEntryMetadataFromString(member.slice(semi + 1)) };
    count++;
  }
  return count === 0 ? undefined : propagation.createBaggage(entries);
}

/** The W3C `baggage` value of a context's baggage, within the header's length; undefined when it has none. */
export function serializeBaggage(baggage: Baggage | undefined): string | undefined {
  if (baggage === undefined) return undefined;
  let out = '';
  for (const [key, entry] of baggage.getAllEntries()) {
    let member = `${encodeURIComponent(key)}=${encodeURIComponent(entry.value)}`;
    if (entry.metadata !== undefined) member += `;${entry.metadata.toString()}`;
    const next = out === '' ? member : `${out},${member}`;
    if (next.length > BAGGAGE_MAX_LENGTH) break;
    out = next;
  }
  return out === '' ? undefined : out;
}

/** The trace context fields a message sent under `span` carries in its `_meta`. */
export interface TraceFields {
  traceparent: string;
  tracestate?: string;
  baggage?: string;
}

/**
 * The `traceparent` and `tracestate` of a span, and the `baggage` of `ctx` (the context the message is sent in), for
 * the `_meta` of the messages sent under it.
 */
export function traceFields(span: Span, ctx: OtelContext): TraceFields | undefined {
  const c = span.spanContext();
  if (!trace.isSpanContextValid(c)) return undefined;
  const fields: TraceFields = {
    traceparent: `00-${c.traceId}-${c.spanId}-${c.traceFlags === 1 ? '01' : (c.traceFlags & 0xff).toString(16).padStart(2, '0')}`,
  };
  const state = c.traceState?.serialize();
  if (state) fields.tracestate = state;
  const baggage = serializeBaggage(propagation.getBaggage(ctx));
  if (baggage !== undefined) fields.baggage = baggage;
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

/** What a method and its target give every span of theirs: the name, the fixed attributes, the metric attributes. */
export class Shape {
  readonly name: string;
  /** A `resources/…` method (its span takes the request's URI). */
  readonly resource: boolean;
  /** `tools/call` (its span may take the arguments and the result). */
  readonly toolCall: boolean;
  /** The attributes every span of this shape starts with (frozen: copied, never changed). */
  readonly attributes: Attributes;
  /** Each of them on its own (`gen_ai.tool.name`, `gen_ai.operation.name`, `gen_ai.prompt.name`: undefined if none). */
  readonly method: string;
  readonly toolName: string | undefined;
  readonly operation: string | undefined;
  readonly promptName: string | undefined;
  #version: string | undefined;
  #transport: string | undefined;
  #metric: Attributes | undefined;

  constructor(method: string, params: { readonly [key: string]: unknown } | undefined) {
    const { name, attributes } = requestAttributes(method, params, false);
    this.name = name;
    this.resource = method.startsWith('resources/');
    this.toolCall = method === 'tools/call';
    // The URI is the request's own, not the shape's.
    delete attributes[ATTR.resourceUri];
    this.attributes = Object.freeze(attributes);
    this.method = method;
    this.toolName = attributes[ATTR.toolName] as string | undefined;
    this.operation = attributes[ATTR.operation] as string | undefined;
    this.promptName = attributes[ATTR.promptName] as string | undefined;
  }

  /** The metric attributes of a span that ended well, for one revision and transport (the last pair kept). */
  metric(version: string | undefined, transport: string | undefined): Attributes {
    if (this.#metric === undefined || version !== this.#version || transport !== this.#transport) {
      const kept: Attributes = { ...this.attributes };
      if (version !== undefined) kept[ATTR.protocolVersion] = version;
      if (transport !== undefined) kept[ATTR.networkTransport] = transport;
      this.#metric = Object.freeze(metricAttributes(kept));
      this.#version = version;
      this.#transport = transport;
    }
    return this.#metric;
  }
}

/** At most this many shapes are kept per method: targets are the peer's words, so the cache is bounded. */
const SHAPES_PER_METHOD = 256;

/** The shapes of the messages one instrumented part has seen, by method and target. */
export class Shapes {
  readonly #byMethod = new Map<string, Map<string, Shape>>();

  /** The shape of a message (made, and kept while there is room). */
  of(method: string, params: { readonly [key: string]: unknown } | undefined): Shape {
    const name = params?.name;
    const target =
      typeof name === 'string' && (method === 'tools/call' || method === 'prompts/get') ? name : '';
    let targets = this.#byMethod.get(method);
    const known = targets?.get(target);
    if (known !== undefined) return known;
    const shape = new Shape(method, params);
    if (targets === undefined) {
      // Methods are the peer's words too: a method no one has seen counts against the same bound.
      if (this.#byMethod.size >= SHAPES_PER_METHOD) return shape;
      targets = new Map();
      this.#byMethod.set(method, targets);
    }
    if (targets.size < SHAPES_PER_METHOD) targets.set(target, shape);
    return shape;
  }
}
