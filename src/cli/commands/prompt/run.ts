// What `mcpkit prompt` does once it runs (loaded only then).
import { parsePairs } from '../../shared/coerce.js';
import { splitTarget } from '../../shared/execute.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { nearest } from '../../shared/nearest.js';
import { out, outJson } from '../../shared/output.js';
import { MediaSaver, renderBlock } from '../../shared/render.js';
import { withConnection } from '../../shared/session.js';
import type { PromptFlags } from './flags.js';

/**
 * Gets the prompt the words name (after the target, unless a command after `--`) with the `key=value` arguments
 * after it, and prints it.
 */
export async function getPrompt(words: readonly string[], flags: PromptFlags): Promise<number> {
  const { target, rest: named } = splitTarget(words);
  const [name, ...rest] = named;
  if (name === undefined)
    throw new CliError(ExitCode.usage, 'prompt needs a name: mcpkit prompt <target> <name> [key=value …]');
  const args = Object.fromEntries(parsePairs(rest, 'prompt arguments'));
  await withConnection(target, flags, async ({ client, timeout, target: t }, format) => {
    const prompts = await client.listPrompts({ timeout });
    const prompt = prompts.find((p) => p.name === name);
    if (prompt === undefined) {
      const close = nearest(
        name,
        prompts.map((p) => p.name),
      );
      throw new CliError(
        ExitCode.usage,
        `no prompt "${name}" on ${t.label}${close === undefined ? '' : ` (did you mean "${close}"?)`}`,
      );
    }
    const declared = prompt.arguments ?? [];
    for (const key of Object.keys(args)) {
      if (!declared.some((a) => a.name === key)) {
        const close = nearest(
          key,
          declared.map((a) => a.name),
        );
        throw new CliError(
          ExitCode.usage,
          `prompt "${name}" has no argument "${key}"${close === undefined ? '' : ` (did you mean "${close}"?)`}; its arguments: ${declared.map((a) => a.name).join(', ') || '(none)'}`,
        );
      }
    }
    const missing = declared.filter((a) => a.required && !(a.name in args)).map((a) => `${a.name}=…`);
    if (missing.length > 0) throw new CliError(ExitCode.usage, `prompt "${name}" needs ${missing.join(' ')}`);
    const result = await client.getPrompt(name, args, { timeout });
    if (format === 'json') return outJson(result);
    if (result.description) out(result.description);
    const saver = new MediaSaver(flags.saveMedia);
    for (const message of result.messages)
      out(`${message.role}: ${await renderBlock(message.content, saver)}`);
  });
  return 0;
}
