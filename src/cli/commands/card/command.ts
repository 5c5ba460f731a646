// `mcpkit card <url>`: a server's card (the experimental server card extension), held against the live server.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { withTarget } from '../../shared/options.js';
import type { CardFlags } from './flags.js';

/** Adds `mcpkit card` to `program`. */
export function register(program: Command): void {
  withTarget(
    program
      .command('card')
      .description("Print a server's card and compare it with the live server: mcpkit card <url>")
      .argument('[words...]', 'the Streamable HTTP endpoint URL')
      .option('--strict', 'exit 1 when the card disagrees with the live server'),
  )
    .addHelpText(
      'after',
      `
Fetches <url>/server-card (Accept: application/mcp-server-card+json), prints it, then connects to <url> and
compares: version, title, the negotiated protocol revision, and for cards carrying mcpkit's "mcpkit/definition"
_meta the capabilities and tools. Each difference is a "warning:" line on stderr.
Exit codes: 0 the card was read (differences are warnings), 1 no card (not served, not JSON, not a card) or,
with --strict, any difference; 3 and 4 as for other commands (the live server wants authorization, or is out of reach).`,
    )
    .action((words: string[], flags: CardFlags) =>
      execute(flags, async () => (await import('./run.js')).card(words, flags)),
    );
}
