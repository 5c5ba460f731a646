/**
 * A server's spans and metrics: one SERVER span per request the middleware chain sees (`{mcp.method.name} {target}`),
 * continuing the trace context of the request's `_meta` (the ambient one linked), the handler run inside it, so
 * what it calls (a proxy's forwarded request, a gateway's routed call) joins the trace; `mcp.server.operation.duration`
 * per request; `mcp.server.session.duration` per session that closes; a CLIENT span per request a handler makes of
 * its client (elicitation, sampling, roots), whose trace context goes in that request's `_meta`.
 */
import { type Attributes, context, type Link, SpanKind, trace } from '@opentelemetry/api';
import type { JsonObject } from '../jsonrpc/types.js';
import type { McpServer } from '../server/server.js';
import { ATTR, METRIC } from './conventions.js';
import { failureOf, isToolError, TOOL_ERROR } from './errors.js';
import {
  Instruments,
  type OtelOptions,
  remoteParent,
  requestAttributes,
  traceFields,
} from './instruments.js';

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
    const fields = traceFields(span);
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
  server.use((request, next) => {
    const { method, params, ctx } = request;
    const { name, attributes } = requestAttributes(method, params, o.captureContent);
    attributes[ATTR.requestId] = String(ctx.requestId);
    if (ctx.session.id !== undefined) attributes[ATTR.session] = ctx.session.id;
    attributes[ATTR.protocolVersion] = ctx.session.protocolVersion;
    const transport = o.networkTransport ?? (ctx.remoteAddress !== undefined ? 'tcp' : undefined);
    if (transport !== undefined) attributes[ATTR.networkTransport] = transport;
    if (ctx.remoteAddress !== undefined) attributes[ATTR.clientAddress] = ctx.remoteAddress;
    const ambient = context.active();
    const remote = remoteParent(ctx.meta);
    // The conventions: the caller's context from `_meta` is the parent; the ambient one (an HTTP span) is linked.
    const ambientSpan = remote === undefined ? undefined : trace.getSpanContext(ambient);
    const links: Link[] = ambientSpan === undefined ? [] : [{ context: ambientSpan }];
    const parent = remote ?? ambient;
    const span = o.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, links }, parent);
    const started = performance.now();
    let answer: Promise<JsonObject>;
    try {
      answer = context.with(trace.setSpan(parent, span), next);
    } catch (e) {
      // A handler that throws at once makes `next()` throw rather than reject.
      answer = Promise.reject(e);
    }
    return answer.then(
      (result) => {
        if (isToolError(result)) o.end(span, attributes, started, METRIC.serverOperation, TOOL_ERROR);
        else {
          if (o.captureContent && method === 'tools/call')
            span.setAttribute(ATTR.toolResult, JSON.stringify(result));
          o.end(span, attributes, started, METRIC.serverOperation);
        }
        return result;
      },
      (e: unknown) => {
        const failure = ctx.signal.aborted
          ? { type: 'cancelled', message: 'the client cancelled the request' }
          : failureOf(e);
        o.end(span, attributes as Attributes, started, METRIC.serverOperation, failure);
        throw e;
      },
    );
  });
  return server;
}
