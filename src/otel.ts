// `mcpkit/otel`: OpenTelemetry by the MCP semantic conventions (Node only) for a server, a client, a host and its
// model loop, against `@opentelemetry/api`, an optional peer dependency loaded only through this entry; and
// `startOtlpExport`, the SDK's OTLP/HTTP export configured by the standard environment variables (`--otel`).
export { instrumentTransport } from './otel/client.js';
export { ATTR, DURATION_BUCKETS, METRIC } from './otel/conventions.js';
export { type OtlpExport, type OtlpExportOptions, startOtlpExport } from './otel/export.js';
export { HOST_ATTR, hostInstrumentation } from './otel/host.js';
export type { OtelOptions } from './otel/instruments.js';
export { refusalSpans } from './otel/refusals.js';
export { instrumentServer } from './otel/server.js';
