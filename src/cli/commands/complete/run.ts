// What `mcpkit complete` does once it runs (loaded only then).
import { parsePairs } from '../../shared/coerce.js';
import { splitTarget } from '../../shared/execute.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { out, outJson } from '../../shared/output.js';
import { withConnection } from '../../shared/session.js';
import type { CompleteFlags } from './flags.js';

/**
 * Asks for the completions of the argument the words name (after the target, unless a command after `--`), given
 * the value typed so far, and prints them.
 */
export async function complete(words: readonly string[], flags: CompleteFlags): Promise<number> {
  const { target, rest } = splitTarget(words);
  const [argument, value = '', ...extra] = rest;
  if (
    (flags.prompt === undefined) === (flags.template === undefined) ||
    argument === undefined ||
    extra.length > 0
  )
    throw new CliError(
      ExitCode.usage,
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
    if (completion.hasMore || (completion.total !== undefined && completion.total > completion.values.length))
      out(`… (${completion.total ?? 'more'} in all)`);
  });
  return 0;
}
