// What `mcpkit read` does once it runs (loaded only then).
import { splitTarget } from '../../shared/execute.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { out, outJson } from '../../shared/output.js';
import { MediaSaver, renderContents } from '../../shared/render.js';
import { withConnection } from '../../shared/session.js';
import type { ReadFlags } from './flags.js';

/** Reads the resource named by the words (the target unless a command after `--`, then the URI) and prints it. */
export async function read(words: readonly string[], flags: ReadFlags): Promise<number> {
  const { target, rest } = splitTarget(words);
  const [uri, ...extra] = rest;
  if (uri === undefined || extra.length > 0)
    throw new CliError(ExitCode.usage, 'read needs one resource URI: mcpkit read <target> <uri>');
  await withConnection(target, flags, async ({ client, timeout }, format) => {
    const result = await client.readResource(uri, { timeout });
    if (format === 'json') return outJson(result);
    const saver = new MediaSaver(flags.saveMedia);
    for (const contents of result.contents) {
      if (result.contents.length > 1)
        out(`[${contents.uri}${contents.mimeType ? ` ${contents.mimeType}` : ''}]`);
      out(await renderContents(contents, saver));
    }
  });
  return 0;
}
