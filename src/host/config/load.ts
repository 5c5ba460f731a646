import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, resolve, sep } from 'node:path';
import { isJsonObject } from '../../jsonrpc/types.js';
import { ConfigError } from './config-error.js';
import { applyOverlays } from './entry.js';
import { type ConfigInput, mergeInto, noteDuplicates, type ParseOptions, parseConfig } from './formats.js';
import { parseConfigText } from './jsonc.js';
import {
  besideUserServers,
  type ProjectRead,
  readProjectFile,
  type TrustProjectCallback,
} from './project.js';
import type { ConfigFormat, ConfigNotice, LoadedConfig } from './types.js';

/** A config file to read, and whose it is. */
export interface ConfigSource {
  path: string;
  /**
   * `user` (the default): the person's own file, or one they named. `project`: a file of the working folder (a cloned
   * repository's), whose servers load only when {@link LoadConfigOptions.trustProject} says so.
   */
  scope?: 'user' | 'project';
  format?: ConfigFormat;
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions extends Partial<ParseOptions> {
  /** The file's format; default: from its name (`claude_desktop_config.json`, `.mcp.json`, …) or its content. */
  format?: ConfigFormat;
  /**
   * Decides, once per project file with servers, whether its servers load (shown the file, the SHA-256 of its bytes
   * and the servers as written); without it no project file's servers load. See `ProjectTrust.decider`.
   */
  trustProject?: TrustProjectCallback;
}

export type { ConfigInput };

/**
 * Reads config files (each in its own format) into one list of servers; among the user's files, a server named again
 * in a later file replaces the earlier one, a `duplicate` notice listing both files (within one file, Claude Code's
 * project scope over its user scope is the file's own rule).
 * A missing file, a syntax error, an unknown field, a missing command or an unset variable is a
 * {@link ConfigError} naming the file, the server and the field.
 *
 * Project files (`scope: 'project'`) are not the person's: each loads only when `trustProject` says so, never sets
 * host-wide settings (its `host` block is ignored) nor loosens approvals (`trusted`, `allow` dropped; `deny` and
 * `ask` kept), and an entry named like a user's is listed as `<name>-project`. Each of these is in `notices`.
 *
 * @example
 * const config = await loadConfig(
 *   knownConfigLocations({ workspaceFolder }).filter((l) => existsSync(l.path)),
 *   { workspaceFolder, trustProject: new ProjectTrust().decider(askThePerson) },
 * );
 */
export async function loadConfig(
  files: string | ConfigSource | readonly (string | ConfigSource)[],
  options: LoadConfigOptions = {},
): Promise<LoadedConfig> {
  const userHome = options.userHome ?? homedir();
  const parse: ParseOptions = { ...options, userHome };
  const notices: ConfigNotice[] = [];
  const out: LoadedConfig = { servers: [], settings: {}, files: [], notices };
  const projects: ProjectRead[] = [];
  for (const source of sources(files, userHome)) {
    const file = source.path;
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (cause) {
      throw new ConfigError(
        { file },
        `cannot read: ${cause instanceof Error ? cause.message : String(cause)}`,
        { cause },
      );
    }
    const text = bytes.toString('utf8');
    const format = source.format ?? options.format ?? detectFormat(file, text);
    if (source.scope === 'project') {
      const read = await readProjectFile({ file, format, bytes, text }, parse, options.trustProject, notices);
      projects.push(read);
      if (read.servers) out.files.push(file);
      continue;
    }
    const loaded = await parseConfig(text, file, format, parse);
    noteDuplicates(out.servers, loaded.servers, notices);
    mergeInto(out.servers, loaded.servers);
    applyOverlays(out.servers, loaded.overlays ?? []);
    Object.assign(out.settings, loaded.settings);
    out.files.push(file);
  }
  out.servers.push(...besideUserServers(out.servers, projects, notices));
  return out;
}

/** The files as sources with absolute paths (`~/` expanded); a file listed as both the user's and a project's is the user's. */
function sources(
  files: string | ConfigSource | readonly (string | ConfigSource)[],
  userHome: string,
): ConfigSource[] {
  const list = typeof files === 'string' || !Array.isArray(files) ? [files as string | ConfigSource] : files;
  const out = new Map<string, ConfigSource>();
  for (const item of list) {
    const given = typeof item === 'string' ? { path: item } : item;
    const name = given.path;
    const path = resolve(
      name.startsWith(`~${sep}`) || name.startsWith('~/') ? userHome + name.slice(1) : name,
    );
    const known = out.get(path);
    if (known === undefined) out.set(path, { ...given, path, scope: given.scope ?? 'user' });
    else if (given.scope !== 'project') known.scope = 'user';
  }
  return [...out.values()];
}

/** The format of a config file, from its name, else from its top-level keys. */
export function detectFormat(file: string, text: string): ConfigFormat {
  const name = basename(file);
  const folder = basename(dirname(file));
  if (name === 'claude_desktop_config.json') return 'claude-desktop';
  if (name === '.mcp.json' || name === '.claude.json') return 'claude-code';
  if (name === 'mcpkit.json' || name.endsWith('.mcpkit.json')) return 'mcpkit';
  if (name === 'mcp.json' && folder === '.vscode') return 'vscode';
  if (name === 'mcp.json' && folder === '.cursor') return 'cursor';
  // A syntax error is reported as such, with its line and column (JSONC is the most lenient reading).
  const root = parseConfigText(text, file, true);
  if (isJsonObject(root)) {
    if (root.host !== undefined) return 'mcpkit';
    if (root.servers !== undefined || root.inputs !== undefined) return 'vscode';
    if (root.mcpServers !== undefined) return 'claude-code';
  }
  throw new ConfigError(
    { file },
    'cannot tell the format: no "mcpServers" or "servers" (pass the format option)',
  );
}
