// `mcpkit config list|show <name>`: what the host applications have configured, secrets redacted.
import type { Command } from 'commander';
import { withFormat, withTrustProject } from './options.js';
import { execute } from './run.js';

/** The flags of `mcpkit config list|show`. */
export interface ConfigFlags {
  config?: string;
  format?: string;
  /** `--trust-project`: show the project files as this run would take them. */
  trustProject?: boolean;
}

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
        const { configList } = await import('./config-run.js');
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
      const { configShow } = await import('./config-run.js');
      return configShow(name, flags);
    }),
  );
}
