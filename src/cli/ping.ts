// `mcpkit ping <target>`: checks the server answers, and how fast.
import type { Command } from 'commander';
import { withTarget } from './options.js';
import { type CommonFlags, execute } from './run.js';

export function register(program: Command): void {
  withTarget(
    program
      .command('ping')
      .description('Check a server answers')
      .argument('[target]', 'URL or configured server name'),
  ).action((target: string | undefined, flags: CommonFlags) =>
    execute(flags, async () => {
      const [{ withConnection }, { out, outJson }] = await Promise.all([
        import('./session.js'),
        import('./output.js'),
      ]);
      await withConnection(target, flags, async ({ client, timeout }, format) => {
        const start = performance.now();
        await client.ping({ timeout });
        const ms = Math.round((performance.now() - start) * 10) / 10;
        if (format === 'json') outJson({ ok: true, ms });
        else out(`ok (${ms} ms)`);
      });
      return 0;
    }),
  );
}
