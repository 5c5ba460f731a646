// `mcpkit serve <module> [--http PORT] [--watch] [--export NAME]`: serves the McpServer a module exports
// (JavaScript or TypeScript) over stdio or Streamable HTTP; --watch restarts it when a file beside it changes.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { withFormat, withOtel } from '../../shared/options.js';
import type { ServeFlags } from './flags.js';

/** Adds `mcpkit serve` to `program`. */
export function register(program: Command): void {
  withFormat(
    withOtel(
      program
        .command('serve')
        .description('Serve the McpServer a module exports (JS or TS) over stdio or Streamable HTTP')
        .argument('<module>', 'a .js/.mjs/.ts/.mts file exporting an McpServer (default or named export)')
        .option('--http <port>', 'serve Streamable HTTP (both eras) on 127.0.0.1:PORT instead of stdio')
        .option('--watch', 'restart the server when a file beside the module changes')
        .option(
          '--export <name>',
          'the named export to serve (default: the default export, or the only server)',
        ),
    ),
  ).action((file: string, flags: ServeFlags) =>
    execute(flags, async () => (await import('./run.js')).serveCommand(file, flags)),
  );
}
