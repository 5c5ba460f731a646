// The "everything" example server. Usage: node dist/examples/everything/server.js [--http PORT]
// Over stdio (the default) nothing but protocol messages goes to stdout; diagnostics go to stderr.
import process from 'node:process';
import { parseArgs } from 'node:util';
import type { McpServer } from '../../src/index.js';
import { serve } from '../../src/node.js';
import { StdioServerTransport } from '../../src/stdio.js';
import { createEverythingServer } from './everything.js';

const USAGE = 'usage: server.js [--http PORT]';

/** How to serve, as read from the command line. */
type Mode = { transport: 'stdio' } | { transport: 'http'; port: number };

/** Reads the command line; throws a message for the user on bad input. */
function parseMode(argv: string[]): Mode {
  const { values } = parseArgs({ args: argv, options: { http: { type: 'string' } }, strict: true });
  if (values.http === undefined) return { transport: 'stdio' };
  const port = Number(values.http);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--http needs a port number, got "${values.http}"`);
  return { transport: 'http', port };
}

async function serveStdio(server: McpServer): Promise<void> {
  await server.connect(new StdioServerTransport());
}

async function main(): Promise<number | undefined> {
  let mode: Mode;
  try {
    mode = parseMode(process.argv.slice(2));
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    return 2;
  }
  const server = createEverythingServer();
  switch (mode.transport) {
    case 'stdio':
      await serveStdio(server);
      return undefined;
    case 'http': {
      const running = await serve(server, { port: mode.port, host: '127.0.0.1' });
      console.error(
        `mcpkit everything server: Streamable HTTP at ${running.url}, legacy HTTP+SSE at ${running.sseUrl}`,
      );
      const stop = () => {
        running.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      return undefined;
    }
  }
}

main().then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (e: unknown) => {
    console.error(`everything server: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  },
);
