// `mcpkit skills <target> [name]`: the skills a server publishes (SEP-2640), one skill's manifest, or one of its files.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { withTarget } from '../../shared/options.js';
import type { SkillsFlags } from './flags.js';

/** Adds `mcpkit skills` to `program`. */
export function register(program: Command): void {
  withTarget(
    program
      .command('skills')
      .description('List the skills a server publishes, or show one: mcpkit skills <target> [name|uri]')
      .argument('[words...]', 'target (unless -- command), then optionally a skill name or SKILL.md URI')
      .option(
        '--file <path>',
        'print one file of the skill (a path inside it, or its URI), checked against its digest',
      )
      .addHelpText(
        'after',
        `
Without a name: a table of name, description, file count and URI. With a name (or the URI of its SKILL.md):
the skill's frontmatter and every file with its size and sha256 digest; --file prints a file once its bytes
match the digest the server listed (a mismatch is exit 1, nothing printed).`,
      ),
  ).action((words: string[], flags: SkillsFlags) =>
    execute(flags, async () => (await import('./run.js')).skills(words, flags)),
  );
}
