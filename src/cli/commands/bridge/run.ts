// What `mcpkit bridge` does once parsed: checks which way it bridges, then runs that bridge.

import { serverCommand } from '../../shared/execute.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { parsePort } from '../../shared/port.js';
import type { BridgeFlags } from './flags.js';

/** Checks the flags for one way of bridging and runs it; resolves with the exit code once it ends. */
export async function bridgeCommand(flags: BridgeFlags): Promise<number> {
  const fromUrl = flags.fromUrl !== undefined;
  if (flags.fromStdio === fromUrl)
    throw new CliError(
      ExitCode.usage,
      'bridge needs one of --from-stdio (with --http PORT -- command…) or --from-url URL --to-stdio',
    );
  if (fromUrl) {
    if (!flags.toStdio)
      throw new CliError(ExitCode.usage, '--from-url needs --to-stdio (the only way out it has)');
    for (const flag of ['http', 'shared', 'cwd', 'env'] as const)
      if (flags[flag] !== undefined)
        throw new CliError(ExitCode.usage, `--${flag} goes with --from-stdio, not --from-url`);
    if (serverCommand.words !== undefined)
      throw new CliError(ExitCode.usage, '--from-url takes no command after --');
    const { bridgeUrlToStdio } = await import('./url-to-stdio.js');
    return bridgeUrlToStdio(flags.fromUrl as string, flags.header ?? [], flags.headerEnv ?? []);
  }
  if (flags.toStdio || flags.header !== undefined || flags.headerEnv !== undefined)
    throw new CliError(
      ExitCode.usage,
      '--to-stdio, --header and --header-env go with --from-url, not --from-stdio',
    );
  const words = serverCommand.words;
  if (words === undefined || words.length === 0)
    throw new CliError(
      ExitCode.usage,
      "--from-stdio needs the server's command after --, e.g. -- node server.js",
    );
  const port = parsePort(flags.http);
  if (port === undefined) throw new CliError(ExitCode.usage, '--from-stdio needs --http PORT');
  const timeout = Number(flags.startupTimeout ?? '30000');
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new CliError(
      ExitCode.usage,
      `--startup-timeout needs a number of milliseconds, got "${flags.startupTimeout}"`,
    );
  const { bridgeStdioToHttp } = await import('./stdio-to-http.js');
  return bridgeStdioToHttp({
    command: words[0] as string,
    args: words.slice(1),
    port,
    shared: flags.shared === true,
    cwd: flags.cwd,
    env: flags.env ?? [],
    startupTimeoutMs: timeout,
  });
}
