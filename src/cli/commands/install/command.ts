// `mcpkit install <claude-desktop|claude-code|vscode|cursor> <name> (-- cmd … | URL)`: adds a server to a host
// application's config file.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { collect, withFormat } from '../../shared/options.js';
import type { InstallFlags } from './flags.js';

/** Adds `mcpkit install` to `program`. */
export function register(program: Command): void {
  withFormat(
    program
      .command('install')
      .description("Add a server to a host's config file (Claude Desktop, Claude Code, VS Code, Cursor)")
      .usage('<claude-desktop|claude-code|vscode|cursor> <name> (<url> | -- <command> [args…]) [options]')
      .argument('<app>', 'claude-desktop, claude-code, vscode or cursor')
      .argument('<name>', 'the name of the server in that file')
      .argument('[url]', "the server's URL (or give its command after --)")
      .option(
        '--scope <scope>',
        'user (~/.claude.json, ~/.cursor/mcp.json, …) or project (.mcp.json, .vscode/mcp.json, .cursor/mcp.json in this folder); default: project for vscode, user otherwise',
      )
      .option('--force', 'replace an entry of that name that differs')
      .option('-e, --env <NAME=value>', 'environment variable for a command (repeatable)', collect)
      .option('--header <"Name: value">', 'HTTP header for a URL (repeatable)', collect)
      .addHelpText(
        'after',
        '\nThe file is created when absent, written atomically, and the previous one kept as <file>.bak\n' +
          '(a file that is a symbolic link is written at its target). The same entry again changes nothing.\n' +
          "Claude Desktop's file holds only commands: a URL goes there as `mcpkit bridge --from-url URL --to-stdio`,\n" +
          "each --header value in the entry's env (MCPKIT_HEADER_<NAME>), not in its arguments.\n" +
          'The home folder is $HOME (tests use a temporary one).',
      ),
  ).action((app: string, name: string, url: string | undefined, flags: InstallFlags) =>
    execute(flags, async () => {
      const { installCommand } = await import('./run.js');
      return installCommand(app, name, url, flags);
    }),
  );
}
