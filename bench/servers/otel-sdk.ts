// The OpenTelemetry SDK as the OpenTelemetry benches register it (issue 29): a realistic production setup whose
// export costs nothing. Every span sampled (`AlwaysOnSampler`) and handed to a `BatchSpanProcessor` (what production
// uses: spans are queued on end and exported off the request path; a `SimpleSpanProcessor` would export each span
// synchronously, which no one runs in production) whose exporter drops the batch; the duration histograms read every
// second by a `PeriodicExportingMetricReader` whose exporter drops them; the async-hooks context manager, as
// `NodeSDK` registers it.

/**
 * The parts of the SDK a run registers (all by default); `otel-inproc.ts` leaves some out to count what each costs:
 * without `tracer` the API's no-op tracer, without `processor` a tracer provider with no span processor (spans
 * made and ended, handed to no one), without `metrics` the API's no-op meter.
 */
export interface BenchSdkParts {
  readonly tracer?: boolean;
  readonly processor?: boolean;
  readonly metrics?: boolean;
  /** How often the metric reader collects (ms; default 1000). */
  readonly readerMs?: number;
}

/** Registers the SDK globally (tracer provider, meter provider, context manager). */
export async function registerBenchSdk(parts: BenchSdkParts = {}): Promise<void> {
  const { context, metrics, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { AlwaysOnSampler, BatchSpanProcessor, TracerProvider } = await import('@opentelemetry/sdk-trace');
  const { MeterProvider, PeriodicExportingMetricReader, AggregationTemporality } = await import(
    '@opentelemetry/sdk-metrics'
  );
  const done = (_items: unknown, callback: (result: { code: 0 }) => void) => callback({ code: 0 });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  if (parts.tracer !== false)
    trace.setGlobalTracerProvider(
      new TracerProvider({
        sampler: new AlwaysOnSampler(),
        spanProcessors:
          parts.processor === false
            ? []
            : [new BatchSpanProcessor({ exporter: { export: done, shutdown: () => Promise.resolve() } })],
      }),
    );
  if (parts.metrics === false) return;
  metrics.setGlobalMeterProvider(
    new MeterProvider({
      readers: [
        new PeriodicExportingMetricReader({
          exporter: {
            export: done,
            forceFlush: () => Promise.resolve(),
            shutdown: () => Promise.resolve(),
            selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
          },
          exportIntervalMillis: parts.readerMs ?? 1000,
        }),
      ],
    }),
  );
}
