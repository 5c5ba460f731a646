// `mcpkit prompt <target> <name> [key=value …]`: gets a prompt with its arguments and prints its messages.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { withTarget } from '../../shared/options.js';
import type { PromptFlags } from './flags.js';

/** Adds `mcpkit prompt` to `program`. */
export function register(program: Command): void {
  withTarget(
    program
      .command('prompt')
      .description('Get a prompt: mcpkit prompt <target> <name> [key=value …]')
      .argument('[words...]', 'target (unless -- command), the prompt name, then key=value arguments')
      .option(
        '--save-media <dir>',
        'save images, audio and blobs of the messages to files in this directory',
      ),
  ).action((words: string[], flags: PromptFlags) =>
    execute(flags, async () => (await import('./run.js')).getPrompt(words, flags)),
  );
}
