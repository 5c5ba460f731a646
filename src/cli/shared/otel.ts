// `--otel`: spans and metrics exported over OTLP/HTTP by the OpenTelemetry SDK (the standard OTEL_* variables).
// Everything of OpenTelemetry is loaded by `import()` here, and only when the flag is given: without it a command
// loads nothing of it, and the packages need not be installed.
import type { HostInstrumentation } from '../../host/instrument.js';
import type { Transport } from '../../protocol/transport.js';
import type { McpServer } from '../../server/server.js';
import { note } from './output.js';

/** What a command instruments with `--otel`, and the export's end (flushing what is left). */
export interface CliOtel {
  /** Instruments a server; `networkTransport` "pipe" when it serves stdio (HTTP is told by the client's address). */
  server<S extends McpServer>(server: S, networkTransport?: string): S;
  transport(transport: Transport): Transport;
  host(): HostInstrumentation;
  shutdown(): Promise<void>;
}

/** Starts the export when `enabled` (the `--otel` flag); undefined otherwise. */
export async function startOtel(
  enabled: boolean | undefined,
  serviceName: string,
): Promise<CliOtel | undefined> {
  if (enabled !== true) return undefined;
  const [{ startOtlpExport }, { instrumentServer }, { instrumentTransport }, { hostInstrumentation }] =
    await Promise.all([
      import('../../otel/export.js'),
      import('../../otel/server.js'),
      import('../../otel/client.js'),
      import('../../otel/host.js'),
    ]);
  const running = await startOtlpExport({
    serviceName,
    onerror: onceOnly((e) => note(`otel: export failed (${e.message}); later failures are not shown`)),
  });
  note(`otel: exporting spans and metrics to ${running.endpoint} (${running.protocol})`);
  return {
    server: (server, networkTransport) =>
      instrumentServer(server, networkTransport === undefined ? {} : { networkTransport }),
    transport: (transport) => instrumentTransport(transport),
    host: () => hostInstrumentation(),
    shutdown: () => running.shutdown(),
  };
}

function onceOnly(report: (error: Error) => void): (error: Error) => void {
  let told = false;
  return (error) => {
    if (told) return;
    told = true;
    report(error);
  };
}
