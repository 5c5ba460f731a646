// `mcpkit bridge --from-stdio [--shared] --http PORT -- cmd …`: the stdio server reached over Streamable HTTP (both
// eras, as far as the server speaks them), a process per session or one shared process. The server is started once
// at the beginning and must answer `initialize`, so a command that cannot start fails the bridge at once (exit 2,
// with its stderr's last lines) rather than each session later.
import { errorMessage } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import type { Transport } from '../../../protocol/transport.js';
import { serveRelay } from '../../../server/http/adapters/node-serve.js';
import { LATEST_STATEFUL_REVISION } from '../../../spec/versions.js';
import { type SharedTransport, shareTransport } from '../../../transport/share.js';
import { StdioClientTransport } from '../../../transport/stdio-client.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { note, terminalSafe, withoutStderrTail } from '../../shared/output.js';
import { commandLabel, parseEnv } from '../../shared/target.js';

/** What to bridge and where. */
export interface StdioBridge {
  command: string;
  args: string[];
  port: number;
  shared: boolean;
  cwd: string | undefined;
  /** `-e NAME=value` pairs. */
  env: string[];
  startupTimeoutMs: number;
}

/** Serves the stdio server over Streamable HTTP until SIGINT/SIGTERM; resolves with the exit code. */
export async function bridgeStdioToHttp(bridge: StdioBridge): Promise<number> {
  const env = parseEnv(bridge.env);
  const label = commandLabel([bridge.command, ...bridge.args]);
  const spawnServer = (forwardStderr = true): StdioClientTransport => {
    const transport = new StdioClientTransport({
      command: bridge.command,
      args: bridge.args,
      env,
      ...(bridge.cwd === undefined ? {} : { cwd: bridge.cwd }),
    });
    if (forwardStderr) transport.onstderr = (chunk) => process.stderr.write(terminalSafe(chunk));
    return transport;
  };
  // The check's stderr is shown only when it fails (as the error's tail).
  await checkStarts(spawnServer(false), label, bridge.startupTimeoutMs);
  const report = (e: Error) => note(`mcpkit bridge: ${e.message}`);
  let shared: SharedTransport | undefined;
  const sharedChannel = (): Transport => {
    if (shared === undefined || shared.closed) shared = shareTransport(spawnServer(), { onerror: report });
    return shared.channel();
  };
  const open = bridge.shared ? sharedChannel : () => spawnServer();
  let running: Awaited<ReturnType<typeof serveRelay>>;
  try {
    running = await serveRelay(open, {
      port: bridge.port,
      host: '127.0.0.1',
      onerror: report,
      ...(bridge.shared ? { openStateless: sharedChannel } : {}),
    });
  } catch (e) {
    throw new CliError(ExitCode.usage, `cannot listen on port ${bridge.port}: ${errorMessage(e)}`);
  }
  note(
    `mcpkit bridge: ${label} at ${running.url} (Streamable HTTP; ${bridge.shared ? 'one shared process' : 'a process per session'})`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  await shared?.close();
  return ExitCode.ok;
}

/**
 * Starts the server once and asks it to `initialize` (any answer, even an error, shows it speaks JSON-RPC); then
 * stops it. A spawn failure, an exit or no answer in time is exit 2 with the server's stderr tail.
 */
async function checkStarts(transport: StdioClientTransport, label: string, timeoutMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fail = (why: string) =>
    new CliError(ExitCode.serverFailed, `the server did not start (${label}): ${why}`, {
      stderr: transport.stderrTail.trimEnd(),
    });
  try {
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(fail(`no answer to initialize within ${timeoutMs} ms`)), timeoutMs);
      const answered = (m: JsonRpcMessage) => {
        if ('id' in m && m.id === 'mcpkit-bridge-check' && !('method' in m)) resolve();
      };
      transport
        .start({
          onmessage: answered,
          oninvalid: () => undefined,
          onerror: () => undefined,
          // The tail is shown under the message: not in it too.
          onclose: (e) => reject(fail(e ? withoutStderrTail(e.message) : 'it exited')),
        })
        .then(
          () =>
            transport.send({
              jsonrpc: '2.0',
              id: 'mcpkit-bridge-check',
              method: 'initialize',
              params: {
                protocolVersion: LATEST_STATEFUL_REVISION,
                capabilities: {},
                clientInfo: { name: 'mcpkit-bridge-check', version: '0.1.0' },
              },
            }),
          (e: unknown) => reject(fail(errorMessage(e))),
        )
        .catch((e: unknown) => reject(fail(errorMessage(e))));
    });
  } finally {
    clearTimeout(timer);
    await transport.close();
  }
}
