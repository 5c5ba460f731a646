// `mcpkit ping <target>`: checks the server answers, and how fast.
import type { Command } from 'commander';
import { type CommonFlags, execute } from '../../shared/execute.js';
import { withTarget } from '../../shared/options.js';

/** Adds `mcpkit ping` to `program`. */
export function register(program: Command): void {
  withTarget(
    program
      .command('ping')
      .description('Check a server answers')
      .argument('[target]', 'URL or configured server name'),
  ).action((target: string | undefined, flags: CommonFlags) =>
    execute(flags, async () => (await import('./run.js')).ping(target, flags)),
  );
}
