// `mcpkit serve <module> [--http PORT] [--watch] [--export NAME]`: serves the McpServer a module exports
// (JavaScript or TypeScript) over stdio or Streamable HTTP; --watch restarts it when a file beside it changes.
import type { Command } from 'commander';
import { withFormat } from './options.js';
import { execute } from './run.js';

interface ServeFlags {
  http?: string;
  watch?: boolean;
  export?: string;
  format?: string;
}

export function register(program: Command): void {
  withFormat(
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
  ).action((file: string, flags: ServeFlags) =>
    execute(flags, async () => {
      const [{ serveCommand }] = await Promise.all([import('./serve-command.js')]);
      return serveCommand(file, flags);
    }),
  );
}
