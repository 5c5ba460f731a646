// `mcpkit complete <target> (--prompt NAME | --template URI) <argument> [value] [--context key=value …]`:
// asks the server for completions of a prompt argument or a resource template variable.
import type { Command } from 'commander';
import { collect, withTarget } from './options.js';
import { type CommonFlags, execute, splitTarget } from './run.js';

interface CompleteFlags extends CommonFlags {
  prompt?: string;
  template?: string;
  context?: string[];
}

export function register(program: Command): void {
  withTarget(
    program
      .command('complete')
      .description('Complete a prompt argument or a resource template variable')
      .argument('[words...]', 'target (unless -- command), the argument name, then the value typed so far')
      .option('--prompt <name>', 'complete an argument of this prompt')
      .option('--template <uriTemplate>', 'complete a variable of this resource template')
      .option('--context <key=value>', 'an already chosen argument (repeatable)', collect),
  ).action((words: string[], flags: CompleteFlags) =>
    execute(flags, async () => {
      const { target, rest } = splitTarget(words);
      const [{ CliError }, { parsePairs }, { withConnection }, { out, outJson }] = await Promise.all([
        import('./exit.js'),
        import('./coerce.js'),
        import('./session.js'),
        import('./output.js'),
      ]);
      const [argument, value = '', ...extra] = rest;
      if (
        (flags.prompt === undefined) === (flags.template === undefined) ||
        argument === undefined ||
        extra.length > 0
      )
        throw new CliError(
          1,
          'complete needs --prompt NAME or --template URI, and an argument name: mcpkit complete <target> --prompt NAME <argument> [value]',
        );
      const ref =
        flags.prompt !== undefined
          ? { type: 'ref/prompt' as const, name: flags.prompt }
          : { type: 'ref/resource' as const, uri: flags.template ?? '' };
      const context =
        flags.context === undefined
          ? undefined
          : Object.fromEntries(parsePairs(flags.context, '--context values'));
      await withConnection(target, flags, async ({ client, timeout }, format) => {
        const completion = await client.complete(ref, { name: argument, value }, context, { timeout });
        if (format === 'json') return outJson({ completion });
        if (completion.values.length === 0) out('(no completions)');
        for (const v of completion.values) out(v);
        if (
          completion.hasMore ||
          (completion.total !== undefined && completion.total > completion.values.length)
        )
          out(`… (${completion.total ?? 'more'} in all)`);
      });
      return 0;
    }),
  );
}
