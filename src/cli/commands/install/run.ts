// What `mcpkit install` does once parsed. Claude Desktop's file holds only commands: a URL is installed there as
// `mcpkit bridge --from-url URL --to-stdio` (bridge-entry.ts).
import { redactServerEntry } from '../../../host/config/entries.js';
import { type InstallApp, type InstallEntry, installServer } from '../../../host/config/install.js';
import { McpkitError } from '../../../jsonrpc/errors.js';
import { serverCommand } from '../../shared/execute.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { nearest } from '../../shared/nearest.js';
import { note, out, outJson } from '../../shared/output.js';
import { isUrl, parseEnv, parseHeaders } from '../../shared/target.js';
import { bridgeEntry } from './bridge-entry.js';
import type { InstallFlags } from './flags.js';

const APPS: readonly InstallApp[] = ['claude-desktop', 'claude-code', 'vscode', 'cursor'];

/** Adds the server to the app's config file and says what changed; resolves with the exit code. */
export async function installCommand(
  app: string,
  name: string,
  url: string | undefined,
  flags: InstallFlags,
): Promise<number> {
  if (!(APPS as readonly string[]).includes(app)) {
    const close = nearest(app, APPS);
    throw new CliError(
      ExitCode.usage,
      `unknown host "${app}"${close ? ` (did you mean "${close}"?)` : ''}: one of ${APPS.join(', ')}`,
    );
  }
  const scope = flags.scope;
  if (scope !== undefined && scope !== 'user' && scope !== 'project')
    throw new CliError(ExitCode.usage, `--scope must be "user" or "project", got "${scope}"`);
  const { entry, note: entryNote } = entryOf(app as InstallApp, url, flags);
  let result: Awaited<ReturnType<typeof installServer>>;
  try {
    result = await installServer(app as InstallApp, name, entry, {
      ...(scope === undefined ? {} : { scope }),
      ...(flags.force ? { force: true } : {}),
    });
  } catch (e) {
    if (e instanceof McpkitError && e.code === 'CONFIG_CONFLICT')
      throw new CliError(
        ExitCode.usage,
        e.message.replace('(force replaces it)', '(--force replaces it)'),
        {},
        e,
      );
    if (e instanceof McpkitError) throw new CliError(ExitCode.usage, e.message, {}, e);
    throw e;
  }
  if (entryNote !== undefined) note(entryNote);
  if (flags.format === 'json') {
    outJson({ ...result, entry: redactServerEntry(result.entry) });
    return ExitCode.ok;
  }
  const file = result.target === undefined ? result.file : `${result.file} (a link to ${result.target})`;
  const what =
    result.action === 'unchanged'
      ? `"${name}" is already in ${file} (unchanged)`
      : `${result.action} "${name}" in ${file}`;
  out(result.backup === undefined ? what : `${what}; the previous file is ${result.backup}`);
  if (result.droppedComments)
    note('note: the file had comments or trailing commas, which the new file does not keep');
  return ExitCode.ok;
}

/** The entry to install: the command after `--`, or the URL (through the stdio bridge for Claude Desktop). */
function entryOf(
  app: InstallApp,
  url: string | undefined,
  flags: InstallFlags,
): { entry: InstallEntry; note?: string } {
  const words = serverCommand.words;
  if ((url === undefined) === (words === undefined || words.length === 0))
    throw new CliError(
      ExitCode.usage,
      'give the server either as a URL or as a command after --, one of them',
    );
  if (url !== undefined) {
    if (!isUrl(url) || !URL.canParse(url)) throw new CliError(ExitCode.usage, `not an http(s) URL: "${url}"`);
    if (flags.env !== undefined) throw new CliError(ExitCode.usage, '-e goes with a command, not a URL');
    const headers = parseHeaders(flags.header);
    return app === 'claude-desktop' ? bridgeEntry(url, headers) : { entry: { url, headers } };
  }
  if (flags.header !== undefined)
    throw new CliError(ExitCode.usage, '--header goes with a URL, not a command');
  const [command, ...args] = words as [string, ...string[]];
  return { entry: { command, args, env: parseEnv(flags.env) } };
}
