/**
 * Export over OTLP/HTTP with the real OpenTelemetry JS SDK, configured by the standard environment variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL` `http/json` or `http/protobuf`, `OTEL_SERVICE_NAME`,
 * `OTEL_METRIC_EXPORT_INTERVAL`): what `--otel` of the example server and of the `mcpkit` command turns on. The SDK
 * packages are loaded here only, by `import()`, when export starts: they are optional peers, never loaded otherwise.
 * Spans leave in batches and metrics on a timer, off the request path: an endpoint that is down costs a request
 * nothing (its failures go to `onerror`).
 */
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { McpkitError } from '../jsonrpc/errors.js';

/** What {@link startOtlpExport} takes; every field defaults to its environment variable. */
export interface OtlpExportOptions {
  /** The environment to read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `service.name` when `OTEL_SERVICE_NAME` is not set. */
  readonly serviceName?: string;
  /** Export failures (an endpoint down); default: ignored after the first, which is written to stderr. */
  readonly onerror?: (error: Error) => void;
}

/** The running export: its providers (also registered globally) and its end. */
export interface OtlpExport {
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
  /** "http/json" or "http/protobuf". */
  readonly protocol: string;
  /** The endpoint the signals go to (`/v1/traces`, `/v1/metrics` under it). */
  readonly endpoint: string;
  /** Flushes what is left and stops (bounded by the exporters' timeout). */
  shutdown(): Promise<void>;
}

const PACKAGES = [
  '@opentelemetry/api',
  '@opentelemetry/core',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-metrics-otlp-http',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/exporter-metrics-otlp-proto',
];

/** Starts exporting spans and metrics over OTLP/HTTP and registers the SDK globally (context, propagator, providers). */
export async function startOtlpExport(options: OtlpExportOptions = {}): Promise<OtlpExport> {
  const env = options.env ?? process.env;
  const protocol = env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (protocol !== 'http/json' && protocol !== 'http/protobuf')
    throw new McpkitError(
      'CONFIG_INVALID',
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/json or http/protobuf`,
    );
  const endpoint = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '');
  const serviceName = env.OTEL_SERVICE_NAME ?? options.serviceName ?? 'mcpkit';
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000);
  let sdk: Awaited<ReturnType<typeof load>>;
  try {
    sdk = await load(protocol);
  } catch (e) {
    throw new McpkitError(
      'CONFIG_INVALID',
      `--otel needs the OpenTelemetry SDK: npm install ${PACKAGES.join(' ')} (${(e as Error).message})`,
      { cause: e },
    );
  }
  let told = false;
  const onerror =
    options.onerror ??
    ((error: Error) => {
      if (told) return;
      told = true;
      process.stderr.write(`otel: export failed (${error.message}); later failures are not shown\n`);
    });
  const { api } = sdk;
  api.diag.setLogger(
    {
      error: (message: string) => onerror(new Error(readable(message))),
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    api.DiagLogLevel.ERROR,
  );
  const resource = sdk.resources.resourceFromAttributes({ 'service.name': serviceName });
  // A short export timeout: a stalled endpoint holds only the background export, and a shutdown, this long.
  const exporterOptions = { timeoutMillis: 3000 };
  const traceExporter = new sdk.TraceExporter({ ...exporterOptions, url: `${endpoint}/v1/traces` });
  const metricExporter = new sdk.MetricExporter({ ...exporterOptions, url: `${endpoint}/v1/metrics` });
  const tracerProvider = new sdk.trace.TracerProvider({
    resource,
    spanProcessors: [
      new sdk.trace.BatchSpanProcessor({ exporter: traceExporter, exportTimeoutMillis: 3000 }),
    ],
  });
  const every = Number.isFinite(interval) && interval > 0 ? interval : 60_000;
  const reader = new sdk.metrics.PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: every,
    exportTimeoutMillis: Math.min(3000, every),
  });
  const meterProvider = new sdk.metrics.MeterProvider({ resource, readers: [reader] });
  api.context.setGlobalContextManager(new sdk.contextAsyncHooks.AsyncLocalStorageContextManager());
  api.propagation.setGlobalPropagator(new sdk.core.W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(tracerProvider);
  api.metrics.setGlobalMeterProvider(meterProvider);
  return {
    tracerProvider,
    meterProvider,
    protocol,
    endpoint,
    async shutdown() {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

async function load(protocol: string) {
  const [api, core, contextAsyncHooks, resources, trace, metrics] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/sdk-metrics'),
  ]);
  const json = protocol === 'http/json';
  const [traceExporter, metricExporter] = await Promise.all([
    json
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
    json
      ? import('@opentelemetry/exporter-metrics-otlp-http')
      : import('@opentelemetry/exporter-metrics-otlp-proto'),
  ]);
  return {
    api,
    core,
    contextAsyncHooks,
    resources,
    trace,
    metrics,
    TraceExporter: traceExporter.OTLPTraceExporter,
    MetricExporter: metricExporter.OTLPMetricExporter,
  };
}

/** The SDK's diagnostic: an error it serialized as JSON is shown by its message, on one line. */
function readable(message: string): string {
  let text = message;
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as { message?: unknown };
      if (typeof parsed.message === 'string') text = parsed.message;
    } catch {
      // Not JSON after all: shown as it is.
    }
  }
  return text.split('\n')[0]?.slice(0, 300) ?? '';
}
