// `mcpkit resources [target]`: lists the resources of a server, as a table or JSON.
import type { Command } from 'commander';
import { withTarget } from './options.js';
import { type CommonFlags, execute } from './run.js';

export function register(program: Command): void {
  withTarget(
    program
      .command('resources')
      .description('List the resources of a server')
      .argument('[target]', 'URL or configured server name'),
  ).action((target: string | undefined, flags: CommonFlags) =>
    execute(flags, async () => {
      const [{ withConnection }, { printList }] = await Promise.all([
        import('./session.js'),
        import('./list.js'),
      ]);
      await withConnection(target, flags, (c, format) => printList('resources', c, format));
      return 0;
    }),
  );
}
