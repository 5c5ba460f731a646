// What `mcpkit config list|show` do: read the host config files as written (nothing expanded or asked), and print
// them with every env and header value hidden and other secret-looking values redacted.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../host/config/config-error.js';
import {
  type ConfiguredServer,
  readConfiguredServers,
  redactServerEntry,
  redactUrl,
} from '../host/config/entries.js';
import { detectFormat } from '../host/config/load.js';
import { type ConfigLocation, knownConfigLocations } from '../host/config/locations.js';
import { redactText } from '../host/redact.js';
import { errorMessage } from '../jsonrpc/errors.js';
import type { ConfigFlags } from './config.js';
import { CliError, ExitCode } from './exit.js';
import { nearest } from './nearest.js';
import { note, out, outJson, table } from './output.js';

const APP_OF = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  vscode: 'VS Code',
  cursor: 'Cursor',
  mcpkit: 'mcpkit',
} as const;

/** Every server of the files looked at, and the files that could not be read. */
async function readAll(
  flags: ConfigFlags,
): Promise<{ servers: ConfiguredServer[]; files: string[]; errors: ConfigError[] }> {
  const workspaceFolder = process.cwd();
  const locations =
    flags.config === undefined ? knownConfigLocations({ workspaceFolder }) : [given(flags.config)];
  const servers: ConfiguredServer[] = [];
  const files: string[] = [];
  const errors: ConfigError[] = [];
  for (const location of locations) {
    try {
      const found = await readConfiguredServers(location, workspaceFolder);
      if (found === undefined) continue;
      files.push(location.path);
      servers.push(...found);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      errors.push(e);
    }
  }
  if (flags.config !== undefined && files.length === 0 && errors.length === 0)
    throw new CliError(ExitCode.usage, `no such file: ${flags.config}`);
  return { servers, files, errors };
}

/** The location of a file given with --config, its format told by its name or content. */
function given(file: string): ConfigLocation {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(ExitCode.usage, `cannot read ${file}: ${errorMessage(e)}`);
  }
  const format = detectFormat(file, text);
  return { format, app: APP_OF[format], scope: 'project', path: file };
}

/** A one-line description of how a server is reached, secrets redacted. */
function reach(entry: ConfiguredServer['entry']): { transport: string; target: string } {
  if (typeof entry.url === 'string') {
    const type = typeof entry.type === 'string' ? entry.type : 'http';
    return { transport: type, target: redactUrl(entry.url) };
  }
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  return { transport: 'stdio', target: redactText([String(entry.command ?? '?'), ...args].join(' ')) };
}

function failIfBroken(errors: readonly ConfigError[]): void {
  if (errors.length === 0) return;
  throw new CliError(ExitCode.usage, errors.map((e) => e.message).join('\n'), {
    files: errors.map((e) => e.file),
  });
}

export async function configList(flags: ConfigFlags): Promise<number> {
  const { servers, files, errors } = await readAll(flags);
  if (flags.format === 'json') {
    outJson({
      files,
      servers: servers.map((s) => ({ ...s, entry: redactServerEntry(s.entry) })),
      errors: errors.map((e) => ({ file: e.file, message: e.message })),
    });
  } else if (servers.length === 0) {
    if (errors.length === 0)
      out(files.length === 0 ? 'no host config files found' : `no servers in ${files.join(', ')}`);
  } else {
    const rows = servers.map((s) => {
      const { transport, target } = reach(s.entry);
      return [s.name, s.app, s.scope, transport, target];
    });
    out(table(['NAME', 'HOST', 'SCOPE', 'TRANSPORT', 'COMMAND / URL'], rows));
    out(`\nfiles: ${files.join(', ')}`);
  }
  failIfBroken(errors);
  return ExitCode.ok;
}

export async function configShow(name: string, flags: ConfigFlags): Promise<number> {
  const { servers, errors } = await readAll(flags);
  const found = servers.filter((s) => s.name === name);
  if (found.length === 0) {
    failIfBroken(errors);
    const names = [...new Set(servers.map((s) => s.name))];
    const close = nearest(name, names);
    throw new CliError(
      ExitCode.usage,
      `no server "${name}" in the host config files${close ? ` (did you mean "${close}"?)` : ''}${names.length > 0 ? `; servers: ${names.join(', ')}` : ''}`,
    );
  }
  if (flags.format === 'json') {
    outJson(found.map((s) => ({ ...s, entry: redactServerEntry(s.entry) })));
  } else {
    for (const s of found) {
      out(`${s.app} (${s.scope}) ${s.file}:`);
      out(JSON.stringify(redactServerEntry(s.entry), null, 2));
    }
  }
  for (const e of errors) note(`warning: ${e.message}`);
  return ExitCode.ok;
}
