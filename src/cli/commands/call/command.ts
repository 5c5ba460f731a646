// `mcpkit call <target> <tool> [key=value …] [--args-json '{…}']`: calls a tool, its arguments coerced by the
// tool's input schema; the result's content rendered (or the result as JSON); exit 5 when the tool returned isError.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { withTarget } from '../../shared/options.js';
import type { CallFlags } from './flags.js';

/** Adds `mcpkit call` to `program`. */
export function register(program: Command): void {
  withTarget(
    program
      .command('call')
      .description('Call a tool: mcpkit call <target> <tool> [key=value …] (or: call <tool> … -- command)')
      .argument('[words...]', 'target (unless -- command), the tool, then key=value arguments')
      .option('--args-json <json>', 'the arguments as one JSON object (key=value words override its keys)')
      .option('--save-media <dir>', 'save images, audio and blobs of the result to files in this directory')
      .option(
        '--allow-unknown-args',
        "send argument names the tool's input schema does not list (refused by default, naming the nearest one)",
      ),
  ).action((words: string[], flags: CallFlags) =>
    execute(flags, async () => (await import('./run.js')).call(words, flags)),
  );
}
