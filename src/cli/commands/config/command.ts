// `mcpkit config list|show <name>`: what the host applications have configured, secrets redacted.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { withFormat, withTrustProject } from '../../shared/options.js';
import type { ConfigFlags } from './flags.js';

/** Adds `mcpkit config` to `program`. */
export function register(program: Command): void {
  const config = program
    .command('config')
    .description("Show the servers the hosts' config files have (secrets redacted)");
  const file = (c: Command) =>
    withFormat(
      withTrustProject(
        c.option('--config <file>', 'read this file only (default: every known host location)'),
      ),
    );
  file(config.command('list').description('List the servers of every host config file found')).action(
    (flags: ConfigFlags) =>
      execute(flags, async () => {
        const { configList } = await import('./run.js');
        return configList(flags);
      }),
  );
  file(
    config
      .command('show')
      .description('Show the entries of one server, secrets redacted')
      .argument('<name>', 'the server name'),
  ).action((name: string, flags: ConfigFlags) =>
    execute(flags, async () => {
      const { configShow } = await import('./run.js');
      return configShow(name, flags);
    }),
  );
}
