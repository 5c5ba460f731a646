// `mcpkit bridge`: a local stdio server over Streamable HTTP (`--from-stdio --http PORT -- cmd …`, a process per
// session or one shared with --shared), or a remote server as a local stdio server (`--from-url URL --to-stdio`).
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { collect, withFormat } from '../../shared/options.js';
import type { BridgeFlags } from './flags.js';

/** Adds `mcpkit bridge` to `program`. */
export function register(program: Command): void {
  withFormat(
    program
      .command('bridge')
      .description('Expose a stdio server over Streamable HTTP, or a remote server over stdio')
      .usage('--from-stdio [--shared] --http PORT -- <command> [args…]  |  --from-url URL --to-stdio')
      .option('--from-stdio', 'bridge the stdio server given after -- ')
      .option('--http <port>', 'with --from-stdio: serve Streamable HTTP (both eras) on 127.0.0.1:PORT')
      .option(
        '--shared',
        'with --from-stdio: one server process for every session (default: one per session)',
      )
      .option('--cwd <dir>', 'with --from-stdio: working directory of the server')
      .option(
        '-e, --env <NAME=value>',
        'with --from-stdio: environment variable for the server (repeatable)',
        collect,
      )
      .option(
        '--startup-timeout <ms>',
        'with --from-stdio: how long the server may take to answer at start',
        '30000',
      )
      .option('--from-url <url>', 'bridge the remote server at this URL')
      .option('--to-stdio', "with --from-url: serve it on this process's stdin and stdout")
      .option(
        '--header <"Name: value">',
        'with --from-url: HTTP header for the remote server (repeatable)',
        collect,
      )
      .option(
        '--header-env <"Name: VARIABLE">',
        "with --from-url: HTTP header whose value is the environment variable VARIABLE's, kept off the command line (repeatable)",
        collect,
      ),
  ).action((flags: BridgeFlags) =>
    execute(flags, async () => {
      const { bridgeCommand } = await import('./run.js');
      return bridgeCommand(flags);
    }),
  );
}
