/**
 * A client's spans and metrics, by a transport that wraps the client's own: one CLIENT span per request it sends
 * (`{mcp.method.name} {target}`) with the current trace context put into the request's `_meta` (`traceparent`,
 * `tracestate`), ended by the answer (a JSON-RPC error, an `isError` result), by the client giving up (its
 * `notifications/cancelled`: `timeout` or `cancelled`) or by the connection closing; a SERVER span per request the
 * server makes of the client (sampling, elicitation, roots), continuing its `_meta`; `mcp.client.operation.duration`
 * per request and `mcp.client.session.duration` per connection. Works for every transport and both eras: it sees the
 * messages, not the client.
 */
import { type Attributes, context, type Span, SpanKind, trace } from '@opentelemetry/api';
import type { JsonObject, JsonRpcMessage, JsonRpcResponse, RequestId } from '../jsonrpc/types.js';
import type { MessageContext, SendOptions, Transport, TransportReceiver } from '../protocol/transport.js';
import { META } from '../spec/modern.js';
import { ATTR, METRIC } from './conventions.js';
import { failureOf, isToolError, TOOL_ERROR } from './errors.js';
import {
  Instruments,
  type OtelOptions,
  remoteParent,
  requestAttributes,
  traceFields,
} from './instruments.js';

interface Open {
  readonly span: Span;
  readonly attributes: Attributes;
  readonly started: number;
  readonly method: string;
}

/** Wraps a client's transport so that its requests are traced and measured; give the result to `client.connect`. */
export function instrumentTransport(transport: Transport, options: OtelOptions = {}): Transport {
  return new InstrumentedTransport(transport, new Instruments(options));
}

/** `network.transport` of a transport by its kind: stdio is a pipe, HTTP runs on TCP, in-memory links have none. */
function networkOf(transport: Transport): string | undefined {
  const kind = transport.constructor.name;
  if (/stdio/i.test(kind)) return 'pipe';
  if (/http|sse/i.test(kind)) return 'tcp';
  return undefined;
}

class InstrumentedTransport implements Transport {
  readonly #inner: Transport;
  readonly #o: Instruments;
  readonly #network: string | undefined;
  /** Requests sent, by id, until answered or given up. */
  readonly #sent = new Map<RequestId, Open>();
  /** The server's requests being answered, by id. */
  readonly #received = new Map<RequestId, Open>();
  #protocolVersion: string | undefined;
  #opened = 0;

  constructor(inner: Transport, o: Instruments) {
    this.#inner = inner;
    this.#o = o;
    this.#network = o.networkTransport ?? networkOf(inner);
    // Only a transport that can be reopened says so: the client probes for `reopen` (a stdio server that exits on the
    // era probe is started afresh), and the reopened one is instrumented too.
    const reopen = inner.reopen?.bind(inner);
    if (reopen !== undefined) this.reopen = () => new InstrumentedTransport(reopen(), o);
  }

  reopen?: () => Transport;

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(receiver: TransportReceiver): Promise<void> {
    this.#opened = performance.now();
    const self = this;
    return this.#inner.start({
      onmessage(message, ctx) {
        self.#incoming(receiver, message, ctx);
      },
      oninvalid: (parsed, ctx) => receiver.oninvalid(parsed, ctx),
      onerror: (error) => receiver.onerror(error),
      onclose: (error) => {
        self.#closed(error);
        receiver.onclose(error);
      },
      ...(receiver.onend ? { onend: () => receiver.onend?.() } : {}),
    });
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (Array.isArray(message)) return this.#inner.send(message, options);
    if ('method' in message) {
      if ('id' in message && message.id !== undefined && message.id !== null)
        return this.#inner.send(this.#request(message.id, message.method, message.params), options);
      if (message.method === 'notifications/cancelled') this.#cancelled(message.params);
      return this.#notify(message.method, message.params, options);
    }
    this.#answered(message);
    return this.#inner.send(message, options);
  }

  /** A notification going out: a CLIENT span until it is sent, its trace context in its `_meta`. */
  #notify(method: string, params: JsonObject | undefined, options: SendOptions | undefined): Promise<void> {
    const o = this.#o;
    const { name, attributes } = requestAttributes(method, params, false);
    this.#common(attributes);
    const active = context.active();
    const span = o.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, active);
    const started = performance.now();
    const fields = traceFields(span, active);
    const message: JsonRpcMessage =
      fields === undefined
        ? { jsonrpc: '2.0', method, ...(params ? { params } : {}) }
        : {
            jsonrpc: '2.0',
            method,
            params: { ...params, _meta: { ...(params?._meta as JsonObject), ...fields } },
          };
    return this.#inner.send(message, options).then(
      () => o.end(span, attributes, started, METRIC.clientOperation),
      (e: unknown) => {
        o.end(span, attributes, started, METRIC.clientOperation, failureOf(e));
        throw e;
      },
    );
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  /** A request going out: its span started, the trace context put into its `_meta`. */
  #request(id: RequestId, method: string, params: JsonObject | undefined): JsonRpcMessage {
    const o = this.#o;
    const { name, attributes } = requestAttributes(method, params, o.captureContent);
    attributes[ATTR.requestId] = String(id);
    const meta = params?._meta as JsonObject | undefined;
    const version = meta?.[META.protocolVersion];
    if (typeof version === 'string') this.#protocolVersion = version;
    this.#common(attributes);
    const active = context.active();
    const span = o.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, active);
    this.#sent.set(id, { span, attributes, started: performance.now(), method });
    const fields = traceFields(span, active);
    if (fields === undefined) return { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) };
    return { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...meta, ...fields } } };
  }

  #common(attributes: Attributes): void {
    const session = this.#inner.sessionId;
    if (session !== undefined) attributes[ATTR.session] = session;
    if (this.#protocolVersion !== undefined) attributes[ATTR.protocolVersion] = this.#protocolVersion;
    if (this.#network !== undefined) attributes[ATTR.networkTransport] = this.#network;
  }

  #incoming(receiver: TransportReceiver, message: JsonRpcMessage, ctx: MessageContext | undefined): void {
    if (!('method' in message)) {
      this.#response(message);
      receiver.onmessage(message, ctx);
      return;
    }
    if (!('id' in message) || message.id === undefined || message.id === null) {
      this.#notified(message.method, message.params);
      receiver.onmessage(message, ctx);
      return;
    }
    // The server's request: a SERVER span on this side, its handler run inside it.
    const o = this.#o;
    const params = message.params;
    const { name, attributes } = requestAttributes(message.method, params, o.captureContent);
    attributes[ATTR.requestId] = String(message.id);
    this.#common(attributes);
    const parent =
      remoteParent(params?._meta as JsonObject | undefined, context.active()) ?? context.active();
    const span = o.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    this.#received.set(message.id, { span, attributes, started: performance.now(), method: message.method });
    context.with(trace.setSpan(parent, span), () => receiver.onmessage(message, ctx));
  }

  /** A notification of the server's: a SERVER span on this side, its `_meta` context the parent, ended at once. */
  #notified(method: string, params: JsonObject | undefined): void {
    const o = this.#o;
    const { name, attributes } = requestAttributes(method, params, false);
    this.#common(attributes);
    const parent =
      remoteParent(params?._meta as JsonObject | undefined, context.active()) ?? context.active();
    const started = performance.now();
    o.end(
      o.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent),
      attributes,
      started,
      METRIC.serverOperation,
    );
  }

  /** The answer to one of this client's requests. */
  #response(message: JsonRpcResponse): void {
    const open = message.id === null ? undefined : this.#sent.get(message.id);
    if (open === undefined) return;
    this.#sent.delete(message.id as RequestId);
    const o = this.#o;
    if ('error' in message) {
      o.end(open.span, open.attributes, open.started, METRIC.clientOperation, failureOf(message.error));
      return;
    }
    const result = 'result' in message ? (message.result as JsonObject) : undefined;
    if (open.method === 'initialize' && typeof result?.protocolVersion === 'string') {
      this.#protocolVersion = result.protocolVersion;
      open.attributes[ATTR.protocolVersion] = result.protocolVersion;
      open.span.setAttribute(ATTR.protocolVersion, result.protocolVersion);
    }
    if (isToolError(result)) {
      o.end(open.span, open.attributes, open.started, METRIC.clientOperation, TOOL_ERROR);
      return;
    }
    if (o.captureContent && open.method === 'tools/call' && result !== undefined)
      open.span.setAttribute(ATTR.toolResult, JSON.stringify(result));
    o.end(open.span, open.attributes, open.started, METRIC.clientOperation);
  }

  /** This client's answer to a request of the server's. */
  #answered(message: JsonRpcResponse): void {
    const open = message.id === null ? undefined : this.#received.get(message.id);
    if (open === undefined) return;
    this.#received.delete(message.id as RequestId);
    const failure = 'error' in message ? failureOf(message.error) : undefined;
    this.#o.end(open.span, open.attributes, open.started, METRIC.serverOperation, failure);
  }

  /** The client gave up on a request: a timeout, or a cancellation. */
  #cancelled(params: JsonObject | undefined): void {
    const id = params?.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const open = this.#sent.get(id);
    if (open === undefined) return;
    this.#sent.delete(id);
    const reason = typeof params?.reason === 'string' ? params.reason : 'cancelled';
    const type = /timed out|timeout/i.test(reason) ? 'timeout' : 'cancelled';
    this.#o.end(open.span, open.attributes, open.started, METRIC.clientOperation, { type, message: reason });
  }

  #closed(error: Error | undefined): void {
    const o = this.#o;
    for (const open of this.#sent.values())
      o.end(open.span, open.attributes, open.started, METRIC.clientOperation, {
        type: 'connection_closed',
        message: error?.message ?? 'the connection closed',
      });
    this.#sent.clear();
    for (const open of this.#received.values())
      o.end(open.span, open.attributes, open.started, METRIC.serverOperation, {
        type: 'connection_closed',
        message: 'the connection closed',
      });
    this.#received.clear();
    const attributes: Attributes = {};
    this.#common(attributes);
    if (error !== undefined) attributes[ATTR.errorType] = failureOf(error).type;
    o.record(METRIC.clientSession, (performance.now() - this.#opened) / 1000, attributes);
  }
}
