// `mcpkit complete <target> (--prompt NAME | --template URI) <argument> [value] [--context key=value …]`:
// asks the server for completions of a prompt argument or a resource template variable.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { collect, withTarget } from '../../shared/options.js';
import type { CompleteFlags } from './flags.js';

/** Adds `mcpkit complete` to `program`. */
export function register(program: Command): void {
  withTarget(
    program
      .command('complete')
      .description('Complete a prompt argument or a resource template variable')
      .argument('[words...]', 'target (unless -- command), the argument name, then the value typed so far')
      .option('--prompt <name>', 'complete an argument of this prompt')
      .option('--template <uriTemplate>', 'complete a variable of this resource template')
      .option('--context <key=value>', 'an already chosen argument (repeatable)', collect),
  ).action((words: string[], flags: CompleteFlags) =>
    execute(flags, async () => (await import('./run.js')).complete(words, flags)),
  );
}
