// `mcpkit call <target> <tool> [key=value …] [--args-json '{…}']`: calls a tool, its arguments coerced by the
// tool's input schema; the result's content rendered (or the result as JSON); exit 5 when the tool returned isError.
import type { Command } from 'commander';
import { withTarget } from './options.js';
import { type CommonFlags, execute, splitTarget } from './run.js';

interface CallFlags extends CommonFlags {
  argsJson?: string;
  saveMedia?: string;
}

export function register(program: Command): void {
  withTarget(
    program
      .command('call')
      .description('Call a tool: mcpkit call <target> <tool> [key=value …] (or: call <tool> … -- command)')
      .argument('[words...]', 'target (unless -- command), the tool, then key=value arguments')
      .option('--args-json <json>', 'the arguments as one JSON object (key=value words override its keys)')
      .option('--save-media <dir>', 'save images, audio and blobs of the result to files in this directory'),
  ).action((words: string[], flags: CallFlags) =>
    execute(flags, async () => {
      const { target, rest } = splitTarget(words);
      const [tool, ...pairs] = rest;
      if (tool === undefined) {
        const { CliError } = await import('./exit.js');
        throw new CliError(1, 'call needs a tool name: mcpkit call <target> <tool> [key=value …]');
      }
      const { callTool } = await import('./call-run.js');
      return callTool(target, tool, pairs, flags);
    }),
  );
}
