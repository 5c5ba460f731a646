// `mcpkit serve` without --watch: the module's server over stdio (until stdin ends) or Streamable HTTP (both eras
// on one endpoint, the legacy HTTP+SSE transport beside it; until SIGINT or SIGTERM).
import type { Transport, TransportReceiver } from '../../../protocol/transport.js';
import { serve } from '../../../server/http/adapters/node-serve.js';
import type { McpServer } from '../../../server/server.js';
import { StdioServerTransport } from '../../../transport/stdio-server.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { startOtel } from '../../shared/otel.js';
import { note } from '../../shared/output.js';
import { loadServer } from './module.js';

/** Where to serve: stdio, or HTTP on a port of 127.0.0.1. */
export interface ServeTarget {
  path: string;
  http: number | undefined;
  exportName: string | undefined;
  /** `--otel`: the server traced, spans and metrics exported over OTLP/HTTP. */
  otel: boolean;
}

/** Serves the module's server until the client goes (stdio) or a signal comes (HTTP); resolves with the exit code. */
export async function runServe(target: ServeTarget): Promise<number> {
  const loaded = await loadServer(target.path, target.exportName);
  const otel = await startOtel(target.otel, 'mcpkit-serve');
  try {
    return await serveLoaded(
      otel ? otel.server(loaded, target.http === undefined ? 'pipe' : undefined) : loaded,
      target,
    );
  } finally {
    await otel?.shutdown();
  }
}

async function serveLoaded(server: McpServer, target: ServeTarget): Promise<number> {
  if (target.http === undefined) {
    const { transport, closed } = watchClose(new StdioServerTransport());
    await server.connect(transport);
    note(`mcpkit serve: ${target.path} on stdio`);
    await closed;
    return ExitCode.ok;
  }
  let running: Awaited<ReturnType<typeof serve>>;
  try {
    running = await serve(server, { port: target.http, host: '127.0.0.1' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliError(
      ExitCode.serverFailed,
      code === 'EADDRINUSE'
        ? `port ${target.http} is in use`
        : `cannot listen on port ${target.http}: ${String(e)}`,
    );
  }
  note(
    `mcpkit serve: ${target.path} at ${running.url} (Streamable HTTP, both eras; legacy SSE at ${running.sseUrl})`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  return ExitCode.ok;
}

/** `transport`, and a promise that resolves once it has closed. */
function watchClose(inner: Transport): { transport: Transport; closed: Promise<void> } {
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  const transport: Transport = {
    start: (receiver: TransportReceiver) =>
      inner.start({
        onmessage: (m, c) => receiver.onmessage(m, c),
        oninvalid: (p, c) => receiver.oninvalid(p, c),
        onerror: (e) => receiver.onerror(e),
        onclose: (e) => {
          receiver.onclose(e);
          done();
        },
        ...(receiver.onend ? { onend: () => receiver.onend?.() } : {}),
      }),
    send: (m, o) => inner.send(m, o),
    close: () => inner.close(),
  };
  return { transport, closed };
}
