// `mcpkit auth login|logout|status <url>`: signs in to a server with OAuth (the browser opened, or the URL printed
// with `--no-browser`; the redirect received on 127.0.0.1), and keeps the tokens for the other commands in the
// user's config directory (0600).
import type { Command } from 'commander';
import { type CommonFlags, execute } from '../../shared/execute.js';
import { withFormat } from '../../shared/options.js';
import type { LoginFlags } from './flags.js';

/** Adds `mcpkit auth` to `program`. */
export function register(program: Command): void {
  const auth = program
    .command('auth')
    .description('Sign in to a server with OAuth, sign out, or show the stored sign-in');
  const common = (command: Command) =>
    withFormat(
      command
        .argument('<target>', 'the server URL (or a configured server name)')
        .option('--config <file>', 'host config file to look a server name up in')
        .option(
          '--header <"Name: value">',
          'HTTP header for the server (repeatable)',
          (v: string, p: string[] = []) => [...p, v],
        ),
    );
  common(
    auth
      .command('login')
      .description('Sign in: opens the browser (or prints the URL) and stores the tokens')
      .option('--no-browser', 'print the authorization URL instead of opening a browser')
      .option('--scope <scopes>', 'scopes to ask for besides those the server names')
      .option('--callback-port <port>', 'port of the 127.0.0.1 redirect receiver (default: any free one)')
      .option('--timeout <ms>', 'how long to wait for the sign-in, in milliseconds', '300000'),
  ).action((target: string, flags: LoginFlags) =>
    execute(flags, async () => (await import('./run.js')).login(target, flags)),
  );
  common(auth.command('logout').description('Forget the stored tokens of a server')).action(
    (target: string, flags: CommonFlags) =>
      execute(flags, async () => (await import('./run.js')).logout(target, flags)),
  );
  common(
    auth.command('status').description('Show whether tokens are stored for a server (exit 3 when not)'),
  ).action((target: string, flags: CommonFlags) =>
    execute(flags, async () => (await import('./run.js')).status(target, flags)),
  );
}
