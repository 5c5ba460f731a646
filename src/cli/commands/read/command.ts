// `mcpkit read <target> <uri>`: reads a resource; text printed, blobs described or saved (`--save-media DIR`).
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { withTarget } from '../../shared/options.js';
import type { ReadFlags } from './flags.js';

/** Adds `mcpkit read` to `program`. */
export function register(program: Command): void {
  withTarget(
    program
      .command('read')
      .description('Read a resource: mcpkit read <target> <uri>')
      .argument('[words...]', 'target (unless -- command), then the resource URI')
      .option('--save-media <dir>', 'save blob contents to files in this directory'),
  ).action((words: string[], flags: ReadFlags) =>
    execute(flags, async () => (await import('./run.js')).read(words, flags)),
  );
}
