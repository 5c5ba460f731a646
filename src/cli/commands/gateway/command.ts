// `mcpkit gateway --config FILE [--http PORT]`: the servers of a host config served as one MCP server
// (host.toServer()): over stdio by default, or over Streamable HTTP (with the legacy HTTP+SSE endpoint) on
// 127.0.0.1:PORT (a non-loopback --host only with --allow-remote, and a warning); both protocol eras. Tool calls keep
// the config's approval policy (`--default-approval` for the tools it names none for): `ask` is put to the connecting
// client as an elicitation, or denied, saying why and how to allow it, when it cannot ask. Logs go to stderr; stdout is
// the protocol's over stdio.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { withOtel, withSandbox, withTrustProject } from '../../shared/options.js';
import type { GatewayFlags } from './flags.js';

/** Adds `mcpkit gateway` to `program`. */
export function register(program: Command): void {
  withOtel(
    withSandbox(
      withTrustProject(
        program
          .command('gateway')
          .description('Serve the servers of a host config as one MCP server (stdio, or --http PORT)')
          .option('--config <file>', 'host config file (default: the known locations)'),
      ),
    ),
  )
    .option(
      '--http <port>',
      'serve Streamable HTTP (and legacy SSE) on this port instead of stdio (0: any free port)',
    )
    .option(
      '--host <address>',
      'address to bind with --http (loopback only, unless --allow-remote)',
      '127.0.0.1',
    )
    .option(
      '--tool-search',
      'serve two tools, search_tools and call_tool, instead of every tool of every server (calls still approved one by one)',
    )
    .option(
      '--lazy',
      'start each server only when a tool search or a call needs it (its last known tools answer searches)',
    )
    .option(
      '--default-approval <mode>',
      'approval of tools no policy of your config names: "allow", "deny" or "ask" (default: your config\'s host.defaultApproval, else "ask"; a client that cannot elicit cannot be asked)',
    )
    .option(
      '--allow-remote',
      'allow a non-loopback --host: every configured server is then reachable, without authentication, by anyone who can connect',
    )
    .action((flags: GatewayFlags) =>
      execute({}, async () => {
        const { runGateway } = await import('./run.js');
        return runGateway(flags);
      }),
    );
}
