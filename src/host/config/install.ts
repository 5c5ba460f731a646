import { readFile } from 'node:fs/promises';
import { McpkitError } from '../../jsonrpc/errors.js';
import { isJsonObject, type JsonObject } from '../../jsonrpc/types.js';
import { ConfigError } from './config-error.js';
import { kind } from './fields.js';
import { parseConfigText, stripJsonc } from './jsonc.js';
import { type ConfigLocation, knownConfigLocations, type LocationOptions } from './locations.js';
import { writeFileAtomic, writeTarget } from './write.js';

/** The host applications {@link installServer} writes to. */
export type InstallApp = 'claude-desktop' | 'claude-code' | 'vscode' | 'cursor';

/** What to install: a command to spawn (stdio) or a URL (Streamable HTTP, with the legacy fallback). */
export type InstallEntry =
  | { command: string; args?: readonly string[]; env?: Readonly<Record<string, string>> }
  | { url: string; headers?: Readonly<Record<string, string>> };

/** Options of {@link installServer}. */
export interface InstallOptions extends LocationOptions {
  /**
   * The user's file or the project's (`workspaceFolder`, default the current folder). Defaults: `project` for VS
   * Code (`.vscode/mcp.json`), `user` for the others. Claude Desktop has only a user file.
   */
  scope?: 'user' | 'project';
  /** Replace an entry of the same name that differs (else a `CONFIG_CONFLICT` error). */
  force?: boolean;
}

/** What {@link installServer} did. */
export interface InstallResult {
  file: string;
  /** The file written, when `file` is a symbolic link (the link is kept, its target rewritten). */
  target?: string;
  /** `unchanged`: the same entry was there already and nothing was written. */
  action: 'added' | 'replaced' | 'unchanged';
  /** The copy of the file as it was (`<file>.bak`), when an existing file was changed. */
  backup?: string;
  /** The file had comments or trailing commas (VS Code's JSONC), which the rewritten file does not keep. */
  droppedComments: boolean;
  /** The entry as written. */
  entry: JsonObject;
}

/** The file `app` keeps its servers in for `scope` (see {@link InstallOptions.scope} for the defaults). */
export function installLocation(
  app: InstallApp,
  options: Pick<InstallOptions, keyof LocationOptions | 'scope'> = {},
): ConfigLocation {
  const scope = options.scope ?? (app === 'vscode' ? 'project' : 'user');
  if (app === 'claude-desktop' && scope === 'project')
    throw new McpkitError('CONFIG_INVALID', 'Claude Desktop has no project config file');
  const workspaceFolder = options.workspaceFolder ?? process.cwd();
  const found = knownConfigLocations({ ...options, workspaceFolder }).find(
    (l) => l.format === app && l.scope === scope,
  );
  if (!found) throw new McpkitError('CONFIG_INVALID', `no ${scope} config file is known for ${app}`);
  return found;
}

/** The entry `app` reads, in its own spelling. */
export function hostEntry(app: InstallApp, entry: InstallEntry, file: string): JsonObject {
  const typed = app === 'claude-code' || app === 'vscode';
  if ('url' in entry) {
    if (app === 'claude-desktop')
      throw new ConfigError(
        { file },
        "Claude Desktop's config file holds only commands (stdio): reach a URL through a stdio bridge",
      );
    const out: JsonObject = typed ? { type: 'http', url: entry.url } : { url: entry.url };
    if (entry.headers && Object.keys(entry.headers).length > 0) out.headers = { ...entry.headers };
    return out;
  }
  const out: JsonObject = typed ? { type: 'stdio', command: entry.command } : { command: entry.command };
  out.args = [...(entry.args ?? [])];
  if (entry.env && Object.keys(entry.env).length > 0) out.env = { ...entry.env };
  return out;
}

/**
 * Adds server `name` to the config file of a host application, creating the file when absent. Idempotent (the same
 * entry again writes nothing); an entry of that name that differs is refused unless `force`. The file is written
 * atomically (a temporary file renamed over it), the previous one kept as `<file>.bak`, every other field kept.
 *
 * @example
 * await installServer('cursor', 'everything', { command: 'node', args: ['server.js'] });
 */
export async function installServer(
  app: InstallApp,
  name: string,
  entry: InstallEntry,
  options: InstallOptions = {},
): Promise<InstallResult> {
  if (name.trim() === '') throw new McpkitError('CONFIG_INVALID', 'the server name is empty');
  if (RESERVED_NAMES.has(name))
    throw new McpkitError(
      'CONFIG_INVALID',
      `"${name}" cannot be a server name: JavaScript gives it a meaning on objects, so a host reading the file could mistake it (choose another name)`,
    );
  const { path: file, scope } = installLocation(app, options);
  const wanted = hostEntry(app, entry, file);
  const key = app === 'vscode' ? 'servers' : 'mcpServers';
  // The real file (a link's target), read only when it is a regular file (not a device or a pipe a link names).
  const target = await writeTarget(file);
  let text: string | undefined;
  try {
    text = await readFile(target, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const jsonc = app === 'vscode';
  const root = text === undefined || text.trim() === '' ? {} : parseConfigText(text, file, jsonc);
  if (!isJsonObject(root))
    throw new ConfigError({ file }, `the file must hold a JSON object, got ${kind(root)}`);
  const servers = root[key] ?? {};
  if (!isJsonObject(servers))
    throw new ConfigError({ file, field: key }, `must be an object of servers, got ${kind(servers)}`);
  const present = Object.hasOwn(servers, name) ? servers[name] : undefined;
  const result = (action: InstallResult['action'], backup?: string): InstallResult => ({
    file,
    ...(target === file ? {} : { target }),
    action,
    ...(backup === undefined ? {} : { backup }),
    droppedComments: action !== 'unchanged' && text !== undefined && jsonc && stripJsonc(text) !== text,
    entry: wanted,
  });
  if (present !== undefined) {
    if (sameJson(present, wanted)) return result('unchanged');
    if (!options.force)
      throw new McpkitError(
        'CONFIG_CONFLICT',
        `${file}: a different server named "${name}" is already configured (force replaces it)`,
      );
  }
  servers[name] = wanted;
  root[key] = servers;
  const indent = text === undefined ? 2 : indentOf(text);
  const backup = await writeFileAtomic(file, `${JSON.stringify(root, null, indent)}\n`, {
    backup: text !== undefined,
    mode: scope === 'user' ? 0o600 : 0o644,
  });
  return result(present === undefined ? 'added' : 'replaced', backup);
}

/** Names a server cannot have: JavaScript's own property names (setting `__proto__` would even set a prototype). */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether two JSON values are equal, whatever the order of object keys. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (!isJsonObject(a) || !isJsonObject(b) || Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]))
  );
}

/** The indentation the file uses (its first indented line), so a rewrite does not reformat it. */
function indentOf(text: string): string | number {
  const m = /\n([ \t]+)\S/.exec(text);
  return m ? (m[1] as string) : 2;
}
