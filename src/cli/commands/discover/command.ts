// `mcpkit discover <target>`: what the server is: era, revision, capabilities, server info, instructions.
import type { Command } from 'commander';
import { type CommonFlags, execute } from '../../shared/execute.js';
import { withTarget } from '../../shared/options.js';

/** Adds `mcpkit discover` to `program`. */
export function register(program: Command): void {
  withTarget(
    program
      .command('discover')
      .description('Show the era, protocol revision, capabilities, server info and instructions of a server')
      .argument('[target]', 'URL or configured server name'),
  ).action((target: string | undefined, flags: CommonFlags) =>
    execute(flags, async () => (await import('./run.js')).discover(target, flags)),
  );
}
