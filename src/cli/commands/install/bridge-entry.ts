// The Claude Desktop entry for a URL (its file holds only commands): `mcpkit bridge --from-url URL --to-stdio`, with
// each header's value in the entry's `env` (named by `--header-env`), never in its arguments, and a command that
// lasts: `mcpkit` when it is on PATH, else this Node running this copy of the CLI, with a note saying how to do better.
import { realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, sep } from 'node:path';
import type { InstallEntry } from '../../../host/config/install.js';

/** The entry, and a note for the person when the command is this copy's path (which goes when its folder goes). */
export interface BridgeEntry {
  entry: InstallEntry;
  note?: string;
}

/** The command entry that bridges `url` to stdio, its `headers` passed through environment variables. */
export function bridgeEntry(
  url: string,
  headers: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv = process.env,
): BridgeEntry {
  const args = ['bridge', '--from-url', url, '--to-stdio'];
  const variables = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const variable = unique(`MCPKIT_HEADER_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`, variables);
    variables.set(variable, value);
    args.push('--header-env', `${name}: ${variable}`);
  }
  const withEnv = variables.size === 0 ? {} : { env: Object.fromEntries(variables) };
  if (onPath('mcpkit', env)) return { entry: { command: 'mcpkit', args, ...withEnv } };
  const cli = realpathSync(process.argv[1] as string);
  const where = cli.split(sep).includes('node_modules') ? ', inside a node_modules folder' : '';
  return {
    entry: { command: process.execPath, args: [cli, ...args], ...withEnv },
    note:
      `note: mcpkit is not on PATH, so the entry runs this copy (${cli}${where}), which stops working when that ` +
      'folder is removed or moved. For an entry that lasts: npm install -g mcpkit, then run this command again with --force.',
  };
}

/** `name`, or `name_2`, `name_3`… when two header names give the same variable. */
function unique(name: string, taken: ReadonlyMap<string, string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name}_${n}`;
  return candidate;
}

/** Whether an executable file `name` is in a folder of PATH (absolute folders only: never the current one). */
export function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  const windows = process.platform === 'win32';
  const extensions = windows ? (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';') : [''];
  for (const dir of (env.PATH ?? env.Path ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    for (const extension of extensions)
      if (executable(join(dir, `${name}${extension}`), windows)) return true;
  }
  return false;
}

function executable(file: string, windows: boolean): boolean {
  try {
    const info = statSync(file, { throwIfNoEntry: false });
    return info?.isFile() === true && (windows || (info.mode & 0o111) !== 0);
  } catch (e) {
    // A PATH entry that is not a folder, or one this user cannot read, holds no mcpkit for this user.
    if (['ENOTDIR', 'EACCES', 'ELOOP', 'ENAMETOOLONG'].includes((e as NodeJS.ErrnoException).code ?? ''))
      return false;
    throw e;
  }
}
