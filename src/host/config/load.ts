import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, resolve, sep } from 'node:path';
import { isJsonObject } from '../../jsonrpc/types.js';
import { ConfigError } from './config-error.js';
import { type ConfigInput, mergeInto, type ParseOptions, parseConfig } from './formats.js';
import { parseConfigText } from './jsonc.js';
import type { ConfigFormat, LoadedConfig } from './types.js';

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions extends Partial<ParseOptions> {
  /** The file's format; default: from its name (`claude_desktop_config.json`, `.mcp.json`, …) or its content. */
  format?: ConfigFormat;
}

export type { ConfigInput };

/**
 * Reads config files (each in its own format) into one list of servers; a server named again in a later file
 * replaces the earlier one (Cursor's project file over the user's, `.mcp.json` over `~/.claude.json`).
 * A missing file, a syntax error, an unknown field, a missing command or an unset variable is a
 * {@link ConfigError} naming the file, the server and the field.
 *
 * @example
 * const config = await loadConfig(['~/.cursor/mcp.json', '.cursor/mcp.json'], { workspaceFolder: process.cwd() });
 */
export async function loadConfig(
  files: string | readonly string[],
  options: LoadConfigOptions = {},
): Promise<LoadedConfig> {
  const userHome = options.userHome ?? homedir();
  const parse: ParseOptions = { ...options, userHome };
  const out: LoadedConfig = { servers: [], settings: {}, files: [] };
  for (const name of typeof files === 'string' ? [files] : files) {
    const file = resolve(
      name.startsWith(`~${sep}`) || name.startsWith('~/') ? userHome + name.slice(1) : name,
    );
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (cause) {
      throw new ConfigError(
        { file },
        `cannot read: ${cause instanceof Error ? cause.message : String(cause)}`,
        { cause },
      );
    }
    const format = options.format ?? detectFormat(file, text);
    const loaded = await parseConfig(text, file, format, parse);
    mergeInto(out.servers, loaded.servers);
    Object.assign(out.settings, loaded.settings);
    out.files.push(file);
  }
  return out;
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
