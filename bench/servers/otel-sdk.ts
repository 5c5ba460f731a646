// The OpenTelemetry SDK as the OpenTelemetry benches register it (issue 29): a realistic production setup whose
// export costs nothing. Every span sampled (`AlwaysOnSampler`) and handed to a `BatchSpanProcessor` (what production
// uses: spans are queued on end and exported off the request path; a `SimpleSpanProcessor` would export each span
// synchronously, which no one runs in production) whose exporter drops the batch; the duration histograms read every
// second by a `PeriodicExportingMetricReader` whose exporter drops them; the async-hooks context manager, as
// `NodeSDK` registers it.

/** Registers the SDK globally (tracer provider, meter provider, context manager). */
export async function registerBenchSdk(): Promise<void> {
  const { context, metrics, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { AlwaysOnSampler, BatchSpanProcessor, TracerProvider } = await import('@opentelemetry/sdk-trace');
  const { MeterProvider, PeriodicExportingMetricReader, AggregationTemporality } = await import(
    '@opentelemetry/sdk-metrics'
  );
  const done = (_items: unknown, callback: (result: { code: 0 }) => void) => callback({ code: 0 });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new TracerProvider({
      sampler: new AlwaysOnSampler(),
      spanProcessors: [
        new BatchSpanProcessor({ exporter: { export: done, shutdown: () => Promise.resolve() } }),
      ],
    }),
  );
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
          exportIntervalMillis: 1000,
        }),
      ],
    }),
  );
}
