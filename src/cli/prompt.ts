// `mcpkit prompt <target> <name> [key=value …]`: gets a prompt with its arguments and prints its messages.
import type { Command } from 'commander';
import { withTarget } from './options.js';
import { type CommonFlags, execute, splitTarget } from './run.js';

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
  ).action((words: string[], flags: CommonFlags & { saveMedia?: string }) =>
    execute(flags, async () => {
      const { target, rest } = splitTarget(words);
      const { getPrompt } = await import('./prompt-run.js');
      return getPrompt(target, rest, flags);
    }),
  );
}
