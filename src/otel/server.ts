/**
 * A server's spans and metrics: one SERVER span per request the server is given (`{mcp.method.name} {target}`),
 * those its revision check, method lookup or guards refuse included, continuing the trace context and baggage of the
 * request's `_meta` (the ambient one linked), the handler run inside it, so what it calls (a proxy's forwarded
 * request, a gateway's routed call) joins the trace; one per notification its clients send; a CLIENT span per request
 * a handler makes of its client (elicitation, sampling, roots), whose trace context goes in that request's `_meta`;
 * `mcp.server.operation.duration` per request and notification; `mcp.server.session.duration` per session that
 * closes. A request that answers synchronously is still answered synchronously.
 */
import {
  type Attributes,
  type Context,
  context,
  type Histogram,
  type Link,
  type Span,
  SpanKind,
  trace,
} from '@opentelemetry/api';
import type { JsonObject, JsonRpcNotification } from '../jsonrpc/types.js';
import type { IncomingRequest } from '../protocol/peer.js';
import type { Answer } from '../server/handler/middleware.js';
import type { McpServer } from '../server/server.js';
import { ATTR, METRIC } from './conventions.js';
import { failureOf, isToolError, TOOL_ERROR } from './errors.js';
import {
  Instruments,
  keepsDuration,
  metricAttributes,
  type OtelOptions,
  remoteParent,
  type Shape,
  Shapes,
  secondsOf,
  traceFields,
} from './instruments.js';
import { refusedSpan } from './refusals.js';

/**
 * Instruments a server (an `McpServer`, a proxy, a host's gateway): adds the tracing middleware, in front of any
 * added after it. Returns the server.
 */
export function instrumentServer<S extends McpServer>(server: S, options: OtelOptions = {}): S {
  const o = new Instruments(options);
  server.watchSessions((session, ms) => {
    const attributes: Attributes = { [ATTR.protocolVersion]: session.protocolVersion };
    if (o.networkTransport !== undefined) attributes[ATTR.networkTransport] = o.networkTransport;
    o.record(METRIC.serverSession, ms / 1000, attributes);
  });
  server.aroundAsks((method, params, ctx, send) => {
    // A request of the server's to its client: a CLIENT span under the handler's, its context put into `_meta`.
    const attributes: Attributes = {
      [ATTR.method]: method,
      [ATTR.protocolVersion]: ctx.session.protocolVersion,
    };
    if (ctx.session.id !== undefined) attributes[ATTR.session] = ctx.session.id;
    if (o.networkTransport !== undefined) attributes[ATTR.networkTransport] = o.networkTransport;
    const span = o.tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes }, context.active());
    const fields = traceFields(span, context.active());
    if (fields !== undefined && params !== undefined)
      params._meta = { ...(params._meta as JsonObject | undefined), ...fields };
    const started = performance.now();
    return send().then(
      (answer) => {
        o.end(span, attributes, started, METRIC.clientOperation);
        return answer;
      },
      (e: unknown) => {
        o.end(span, attributes, started, METRIC.clientOperation, failureOf(e));
        throw e;
      },
    );
  });
  const shapes = new Shapes();
  const operation = o.histogram(METRIC.serverOperation);
  server.observe({
    requests: (incoming, sessionId, protocolVersion, run) =>
      serverSpan(o, shapes, operation, incoming, sessionId, protocolVersion, run),
    notifications: (notification, sessionId, protocolVersion) =>
      notificationSpan(o, shapes, notification, sessionId, protocolVersion),
    sent: (method, params, sessionId, protocolVersion, send) =>
      sentSpan(o, method, params, sessionId, protocolVersion, send),
    refused: (refusal) => refusedSpan(o, refusal),
  });
  return server;
}

/**
 * The attributes of a message's span (`id`: a request's), in one object literal with every key, undefined for those
 * the message lacks (the API allows it, and the SDK keeps none of them): far cheaper per request than a copy of the
 * shape's attributes with keys added one by one. The keys are `ATTR`'s, written out so that the literal stays one.
 */
function spanAttributes(
  o: Instruments,
  shape: Shape,
  params: JsonObject | undefined,
  id: string | undefined,
  sessionId: string | undefined,
  protocolVersion: string | undefined,
  remoteAddress: string | undefined,
): Attributes {
  const attributes: Attributes = {
    'mcp.method.name': shape.method,
    'gen_ai.tool.name': shape.toolName,
    'gen_ai.operation.name': shape.operation,
    'gen_ai.prompt.name': shape.promptName,
    'jsonrpc.request.id': id,
    'mcp.session.id': sessionId,
    'mcp.protocol.version': protocolVersion,
    'network.transport': o.networkTransport ?? (remoteAddress !== undefined ? 'tcp' : undefined),
    'client.address': remoteAddress,
  };
  if (shape.resource) {
    const uri = params?.uri;
    if (typeof uri === 'string') attributes[ATTR.resourceUri] = uri;
  }
  if (o.captureContent && shape.toolCall && params?.arguments !== undefined)
    attributes[ATTR.toolArguments] = JSON.stringify(params.arguments);
  return attributes;
}

/**
 * A message's SERVER span: its parent the `_meta` context (the ambient one linked), returned with it, else the
 * ambient one (the common case: the span alone, no other object made).
 */
function startServerSpan(
  o: Instruments,
  name: string,
  attributes: Attributes,
  meta: JsonObject | undefined,
  ambient: Context,
): { span: Span; parent: Context } | Span {
  const remote = remoteParent(meta, ambient);
  if (remote === undefined) return o.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, ambient);
  // Baggage alone: the ambient span stays the parent.
  const ambientSpan = trace.getSpanContext(ambient);
  const links: Link[] | undefined =
    ambientSpan === undefined || trace.getSpanContext(remote) === ambientSpan
      ? undefined
      : // The conventions: the caller's context from `_meta` is the parent; the ambient one (an HTTP span) is linked.
        [{ context: ambientSpan }];
  const span = o.tracer.startSpan(
    name,
    links === undefined
      ? { kind: SpanKind.SERVER, attributes }
      : { kind: SpanKind.SERVER, attributes, links },
    remote,
  );
  return { span, parent: remote };
}

/** One request's SERVER span around `run`: ended by its answer (now or later) or its failure. */
function serverSpan(
  o: Instruments,
  shapes: Shapes,
  operation: Histogram,
  incoming: IncomingRequest,
  sessionId: string | undefined,
  protocolVersion: string | undefined,
  run: () => Answer,
): Answer {
  const { method, params, id } = incoming.request;
  const shape = shapes.of(method, params);
  const attributes = spanAttributes(
    o,
    shape,
    params,
    String(id),
    sessionId,
    protocolVersion,
    incoming.context?.remoteAddress,
  );
  const ambient = context.active();
  const started = startServerSpan(
    o,
    shape.name,
    attributes,
    params?._meta as JsonObject | undefined,
    ambient,
  );
  const span = 'parent' in started ? started.span : started;
  const call = new ServerCall(o, shape, operation, incoming, span, attributes);
  let out: Answer;
  try {
    out = context.with(trace.setSpan('parent' in started ? started.parent : ambient, span), run);
  } catch (e) {
    call.failed(e);
    throw e;
  }
  if (!(out instanceof Promise)) {
    call.answered(out);
    return out;
  }
  return out.then(
    (result) => {
      call.answered(result);
      return result;
    },
    (e: unknown) => {
      call.failed(e);
      throw e;
    },
  );
}

/** A request being answered under its span: one object per request, no closure unless the answer comes later. */
class ServerCall {
  /** `performance.now()` at the start, or NaN when the span keeps its own duration (the SDK's spans do). */
  readonly #started: number;
  constructor(
    readonly o: Instruments,
    readonly shape: Shape,
    readonly operation: Histogram,
    readonly incoming: IncomingRequest,
    readonly span: Span,
    readonly attributes: Attributes,
  ) {
    this.#started = keepsDuration(span) ? Number.NaN : performance.now();
  }

  answered(result: JsonObject): void {
    const { o, span, attributes } = this;
    if (isToolError(result)) {
      o.end(span, attributes, this.#started, METRIC.serverOperation, TOOL_ERROR);
      return;
    }
    if (o.captureContent && this.shape.toolCall) span.setAttribute(ATTR.toolResult, JSON.stringify(result));
    span.end();
    this.operation.record(
      secondsOf(span, this.#started),
      this.shape.metric(
        attributes[ATTR.protocolVersion] as string | undefined,
        attributes[ATTR.networkTransport] as string | undefined,
      ),
    );
  }

  failed(e: unknown): void {
    const failure = this.incoming.signal.aborted
      ? { type: 'cancelled', message: 'the client cancelled the request' }
      : failureOf(e);
    this.o.end(this.span, this.attributes, this.#started, METRIC.serverOperation, failure);
  }
}

/** A notification's SERVER span: received and handled at once, so it ends as it starts. */
function notificationSpan(
  o: Instruments,
  shapes: Shapes,
  notification: JsonRpcNotification,
  sessionId: string | undefined,
  protocolVersion: string | undefined,
): void {
  const shape = shapes.of(notification.method, notification.params);
  const attributes = spanAttributes(
    o,
    shape,
    notification.params,
    undefined,
    sessionId,
    protocolVersion,
    undefined,
  );
  const at = performance.now();
  const started = startServerSpan(
    o,
    shape.name,
    attributes,
    notification.params?._meta as JsonObject | undefined,
    context.active(),
  );
  const span = 'parent' in started ? started.span : started;
  span.end();
  o.histogram(METRIC.serverOperation).record(secondsOf(span, at), metricAttributes(attributes));
}

/**
 * A notification the server sends (`notifications/message`, `…/list_changed`, progress): a CLIENT span, as the
 * conventions ask of the side that initiates, under the context it is sent in (a handler's: its request's span), its
 * trace context and baggage put into a copy of the params' `_meta`; ended once it is sent.
 */
function sentSpan(
  o: Instruments,
  method: string,
  params: JsonObject | undefined,
  sessionId: string | undefined,
  protocolVersion: string | undefined,
  send: (params: JsonObject | undefined) => Promise<void>,
): Promise<void> {
  const attributes: Attributes = { [ATTR.method]: method };
  if (sessionId !== undefined) attributes[ATTR.session] = sessionId;
  if (protocolVersion) attributes[ATTR.protocolVersion] = protocolVersion;
  if (o.networkTransport !== undefined) attributes[ATTR.networkTransport] = o.networkTransport;
  const uri = params?.uri;
  if (method === 'notifications/resources/updated' && typeof uri === 'string')
    attributes[ATTR.resourceUri] = uri;
  const ambient = context.active();
  const span = o.tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes }, ambient);
  const started = keepsDuration(span) ? Number.NaN : performance.now();
  const fields = traceFields(span, ambient);
  // A copy: the same params may go to every session (a broadcast), each with its own span.
  const traced =
    fields === undefined
      ? params
      : { ...params, _meta: { ...(params?._meta as JsonObject | undefined), ...fields } };
  return send(traced).then(
    () => o.end(span, attributes, started, METRIC.clientOperation),
    (e: unknown) => {
      o.end(span, attributes, started, METRIC.clientOperation, failureOf(e));
      throw e;
    },
  );
}
