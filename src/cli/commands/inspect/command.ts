// `mcpkit inspect [target]`: the web inspector on 127.0.0.1, opened in the browser. The first line on stderr is
// `Inspector: <url with its token>`, so scripts can drive it. `--config FILE` alone inspects the configured host.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { withTarget } from '../../shared/options.js';
import type { InspectFlags } from './flags.js';

/** Adds `mcpkit inspect` to `program`. */
export function register(program: Command): void {
  withTarget(
    program
      .command('inspect')
      .description('Inspect a server in the browser (a local web page; Ctrl-C ends it)')
      .argument(
        '[target]',
        'URL or configured server name (or a command after --); none: the configured host with --config, else choose in the page',
      )
      .option('--port <n>', 'port on 127.0.0.1 (default: a free one)')
      .option('--no-open', 'do not open the browser; just print the URL'),
  ).action((target: string | undefined, flags: InspectFlags) =>
    execute(flags, async () => (await import('./run.js')).inspect(target, flags)),
  );
}
