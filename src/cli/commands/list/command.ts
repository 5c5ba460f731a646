// `mcpkit tools|resources|templates|prompts [target]`: lists what a server has, as a table or JSON.
import type { Command } from 'commander';
import { type CommonFlags, execute } from '../../shared/execute.js';
import { withTarget } from '../../shared/options.js';
import type { ListKind } from './run.js';

/** Each list command and its help line, in the order `mcpkit --help` lists them. */
const LISTS: readonly (readonly [ListKind, string])[] = [
  ['tools', 'List the tools of a server'],
  ['resources', 'List the resources of a server'],
  ['templates', 'List the resource templates of a server'],
  ['prompts', 'List the prompts of a server'],
];

/** Adds the four list commands to `program`. */
export function register(program: Command): void {
  for (const [kind, description] of LISTS)
    withTarget(
      program.command(kind).description(description).argument('[target]', 'URL or configured server name'),
    ).action((target: string | undefined, flags: CommonFlags) =>
      execute(flags, async () => (await import('./run.js')).list(kind, target, flags)),
    );
}
