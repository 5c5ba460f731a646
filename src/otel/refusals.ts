/**
 * HTTP requests refused before any of their messages reached a server (a Streamable HTTP endpoint's or a relay's: an
 * Origin or Host not allowed, a body that is not JSON, the auth gate's 401 or 403): one SERVER span `_OTHER` each,
 * ended at once, and its duration on `mcp.server.operation.duration`.
 */
import { type Attributes, context, SpanKind } from '@opentelemetry/api';
import type { HttpRefusal, RefusalHook } from '../server/handler/middleware.js';
import { ATTR, METRIC } from './conventions.js';
import { Instruments, type OtelOptions } from './instruments.js';

/** `mcp.method.name` of an HTTP request refused before its body was read or understood (OpenTelemetry's "other"). */
const UNKNOWN_METHOD = '_OTHER';

/**
 * A `refused` hook that traces each refusal, for a relay (`createStreamableHttpRelay`, `serveRelay`: its `refused`
 * option); `instrumentServer` sets one on the server it instruments.
 */
export function refusalSpans(options: OtelOptions = {}): RefusalHook {
  const o = new Instruments(options);
  return (refusal) => refusedSpan(o, refusal);
}

/**
 * A refusal's SERVER span `_OTHER`, ended at once, with `error.type` the JSON-RPC code of a 400 (a body the endpoint
 * could not take as JSON-RPC: `-32700` for one that is not JSON) and the HTTP status otherwise (the refusal is
 * HTTP's: `401`, `403`, `413`…), `rpc.response.status_code` the reply's JSON-RPC code.
 */
export function refusedSpan(o: Instruments, refusal: HttpRefusal): void {
  const attributes: Attributes = {
    [ATTR.method]: UNKNOWN_METHOD,
    [ATTR.networkTransport]: o.networkTransport ?? 'tcp',
  };
  if (refusal.protocolVersion !== undefined) attributes[ATTR.protocolVersion] = refusal.protocolVersion;
  if (refusal.remoteAddress !== undefined) attributes[ATTR.clientAddress] = refusal.remoteAddress;
  const at = performance.now();
  const span = o.tracer.startSpan(UNKNOWN_METHOD, { kind: SpanKind.SERVER, attributes }, context.active());
  const code = refusal.code === undefined ? undefined : String(refusal.code);
  o.end(span, attributes, at, METRIC.serverOperation, {
    type: refusal.status === 400 && code !== undefined ? code : String(refusal.status),
    statusCode: code,
    message: refusal.message,
  });
}
