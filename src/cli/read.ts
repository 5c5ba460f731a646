// `mcpkit read <target> <uri>`: reads a resource; text printed, blobs described or saved (`--save-media DIR`).
import type { Command } from 'commander';
import { withTarget } from './options.js';
import { type CommonFlags, execute, splitTarget } from './run.js';

export function register(program: Command): void {
  withTarget(
    program
      .command('read')
      .description('Read a resource: mcpkit read <target> <uri>')
      .argument('[words...]', 'target (unless -- command), then the resource URI')
      .option('--save-media <dir>', 'save blob contents to files in this directory'),
  ).action((words: string[], flags: CommonFlags & { saveMedia?: string }) =>
    execute(flags, async () => {
      const { target, rest } = splitTarget(words);
      const [{ CliError }, { withConnection }, { out, outJson }, { MediaSaver, renderContents }] =
        await Promise.all([
          import('./exit.js'),
          import('./session.js'),
          import('./output.js'),
          import('./render.js'),
        ]);
      const [uri, ...extra] = rest;
      if (uri === undefined || extra.length > 0)
        throw new CliError(1, 'read needs one resource URI: mcpkit read <target> <uri>');
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
    }),
  );
}
