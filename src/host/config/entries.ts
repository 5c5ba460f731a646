import { readFile } from 'node:fs/promises';
import { isJsonObject, type JsonObject } from '../../jsonrpc/types.js';
import { REDACTED, redact, redactText } from '../redact.js';
import { ConfigError } from './config-error.js';
import { kind } from './fields.js';
import { parseConfigText } from './jsonc.js';
import type { ConfigLocation } from './locations.js';

/** One server entry as a host application's file has it: not expanded, not checked beyond its shape. */
export interface ConfiguredServer {
  name: string;
  app: ConfigLocation['app'];
  /** `project` also for the project entries `~/.claude.json` keeps under `projects`. */
  scope: ConfigLocation['scope'];
  file: string;
  entry: JsonObject;
}

/**
 * The server entries of a config file as written (variables unexpanded, so nothing is asked or resolved), or
 * `undefined` when the file does not exist. A file that does not parse is a {@link ConfigError} with the line and
 * column. `workspaceFolder` picks the project entries of `~/.claude.json`.
 */
export async function readConfiguredServers(
  location: ConfigLocation,
  workspaceFolder?: string,
): Promise<ConfiguredServer[] | undefined> {
  const file = location.path;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError({ file }, `cannot read: ${e instanceof Error ? e.message : String(e)}`, {
      cause: e,
    });
  }
  return configuredServersIn(text, location, workspaceFolder);
}

/** The server entries of a config file's text as written (see {@link readConfiguredServers}). */
export function configuredServersIn(
  text: string,
  location: ConfigLocation,
  workspaceFolder?: string,
): ConfiguredServer[] {
  const file = location.path;
  if (text.trim() === '') return [];
  const root = parseConfigText(text, file, location.format === 'vscode');
  if (!isJsonObject(root))
    throw new ConfigError({ file }, `the file must hold a JSON object, got ${kind(root)}`);
  const out: ConfiguredServer[] = [];
  const add = (map: unknown, field: string, scope: ConfigLocation['scope']) => {
    if (map === undefined) return;
    if (!isJsonObject(map))
      throw new ConfigError({ file, field }, `must be an object of servers, got ${kind(map)}`);
    for (const [name, entry] of Object.entries(map)) {
      if (!isJsonObject(entry))
        throw new ConfigError({ file, server: name }, `must be an object, got ${kind(entry)}`);
      out.push({ name, app: location.app, scope, file, entry });
    }
  };
  if (location.format === 'vscode' || location.format === 'mcpkit')
    add(root.servers, 'servers', location.scope);
  if (location.format !== 'mcpkit') add(root.mcpServers, 'mcpServers', location.scope);
  if (location.format === 'claude-code' && location.scope === 'user' && workspaceFolder !== undefined) {
    const projects = root.projects;
    const project = isJsonObject(projects) ? projects[workspaceFolder] : undefined;
    if (isJsonObject(project)) add(project.mcpServers, `projects.${workspaceFolder}.mcpServers`, 'project');
  }
  return out;
}

/**
 * A copy of a server entry fit to print: every value of `env` and `headers` is hidden (that is where credentials
 * live; the names stay), a `url`'s password and secret-looking query values too, other values go through
 * {@link redact} (secret-looking fields and strings).
 */
export function redactServerEntry(entry: JsonObject): JsonObject {
  const out = redact(entry) as JsonObject;
  if (typeof entry.url === 'string') out.url = redactUrl(entry.url);
  for (const field of ['env', 'headers']) {
    const map = entry[field];
    if (!isJsonObject(map)) continue;
    const hidden: JsonObject = {};
    for (const key of Object.keys(map)) hidden[key] = REDACTED;
    out[field] = hidden;
  }
  return out;
}

/** A URL with its password and the values of secret-looking query parameters hidden (`redacted`). */
export function redactUrl(text: string): string {
  if (!URL.canParse(text)) return redactText(text);
  const url = new URL(text);
  if (url.password) url.password = 'redacted';
  for (const [key, value] of [...url.searchParams]) {
    const hidden = (redact({ [key]: value }) as Record<string, unknown>)[key];
    if (hidden !== value) url.searchParams.set(key, 'redacted');
  }
  return redactText(url.href);
}

/** How an entry as written reaches its server, fit to print: its transport, and its command line or URL redacted. */
export function describeEntry(entry: JsonObject): { transport: string; target: string } {
  if (typeof entry.url === 'string') {
    const type = typeof entry.type === 'string' ? entry.type : 'http';
    return { transport: type, target: redactUrl(entry.url) };
  }
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  return { transport: 'stdio', target: redactText([String(entry.command ?? '?'), ...args].join(' ')) };
}
