// What `mcpkit config list|show` do: read the host config files as written (nothing expanded or asked), and print
// them with every env and header value hidden and other secret-looking values redacted.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../../../host/config/config-error.js';
import {
  type ConfiguredServer,
  configuredServersIn,
  describeEntry,
  redactServerEntry,
} from '../../../host/config/entries.js';
import { isOverlayEntry } from '../../../host/config/entry.js';
import { parseConfigText } from '../../../host/config/jsonc.js';
import { detectFormat } from '../../../host/config/load.js';
import { appOf, type ConfigLocation, knownConfigLocations } from '../../../host/config/locations.js';
import { fileDigest } from '../../../host/config/project.js';
import { ProjectTrust } from '../../../host/config/project-trust.js';
import { settingSummary } from '../../../host/sandbox/view.js';
import { errorMessage } from '../../../jsonrpc/errors.js';
import { isJsonObject } from '../../../jsonrpc/types.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { nearest } from '../../shared/nearest.js';
import { note, out, outJson, table } from '../../shared/output.js';
import type { ConfigFlags } from './flags.js';

/** Whether a file's servers are taken: the person's own files are; a project file as the person decided. */
type Trust = 'yours' | 'trusted' | 'not trusted' | 'changed' | 'this run';

/** A file looked at: where, whose, and its trust. */
interface FileRead {
  file: string;
  scope: ConfigLocation['scope'];
  trust: Trust;
}

/** Every server of the files looked at (with its file's trust), the files, and those that could not be read. */
async function readAll(flags: ConfigFlags): Promise<{
  servers: (ConfiguredServer & { trust: Trust })[];
  files: FileRead[];
  errors: ConfigError[];
  /** The host-wide sandbox of the person's mcpkit files (`host.sandbox`; a later file wins). */
  hostSandbox: unknown;
}> {
  const workspaceFolder = process.cwd();
  const locations =
    flags.config === undefined ? knownConfigLocations({ workspaceFolder }) : [given(flags.config)];
  const servers: (ConfiguredServer & { trust: Trust })[] = [];
  const files: FileRead[] = [];
  const errors: ConfigError[] = [];
  let hostSandbox: unknown;
  const trustStore = new ProjectTrust();
  for (const location of locations) {
    let bytes: Buffer;
    try {
      bytes = await readFile(location.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      errors.push(new ConfigError({ file: location.path }, `cannot read: ${errorMessage(e)}`));
      continue;
    }
    const trust = await trustOf(location, bytes, trustStore, flags.trustProject === true);
    files.push({ file: location.path, scope: location.scope, trust });
    try {
      const text = bytes.toString('utf8');
      for (const s of configuredServersIn(text, location, workspaceFolder)) servers.push({ ...s, trust });
      if (location.format === 'mcpkit' && location.scope === 'user')
        hostSandbox = hostSandboxIn(text) ?? hostSandbox;
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      errors.push(e);
    }
  }
  if (flags.config !== undefined && files.length === 0 && errors.length === 0)
    throw new CliError(ExitCode.usage, `no such file: ${flags.config}`);
  return { servers, files, errors, hostSandbox };
}

/** Whether a row is an mcpkit overlay: an entry that changes a server another file defines. */
function isOverlay(s: ConfiguredServer): boolean {
  return s.app === 'mcpkit' && isOverlayEntry(s.entry);
}

/** The `host.sandbox` of an mcpkit file's text, as written. */
function hostSandboxIn(text: string): unknown {
  const root = text.trim() === '' ? {} : parseConfigText(text, '', false);
  const host = isJsonObject(root) ? root.host : undefined;
  return isJsonObject(host) ? host.sandbox : undefined;
}

async function trustOf(
  location: ConfigLocation,
  bytes: Buffer,
  store: ProjectTrust,
  thisRun: boolean,
): Promise<Trust> {
  if (location.scope === 'user') return 'yours';
  const state = await store.state(location.path, fileDigest(bytes));
  if (state === 'trusted') return 'trusted';
  if (thisRun) return 'this run';
  return state === 'changed' ? 'changed' : 'not trusted';
}

/** The location of a file given with --config (the person's own), its format told by its name or content. */
function given(file: string): ConfigLocation {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(ExitCode.usage, `cannot read ${file}: ${errorMessage(e)}`);
  }
  const format = detectFormat(file, text);
  return { format, app: appOf(format), scope: 'user', path: file };
}

/**
 * How a server runs, as its entry is written: `-` for a URL, its own `sandbox` (a project's `false` does not count),
 * else the `host.sandbox` of the person's mcpkit files (`default: …`), else `off` (`--sandbox` of the commands that
 * start servers makes the safe preset the default for that run).
 */
function sandboxColumn(s: ConfiguredServer, hostSandbox: unknown): string {
  if (typeof s.entry.url === 'string') return '-';
  if (isOverlay(s)) return s.entry.sandbox === undefined ? '(unchanged)' : settingSummary(s.entry.sandbox);
  const own = s.entry.sandbox;
  if (own !== undefined && !(own === false && s.scope === 'project')) return settingSummary(own);
  return hostSandbox === undefined ? 'off' : `default: ${settingSummary(hostSandbox)}`;
}

const TRUST_TEXT: Record<Trust, string> = {
  yours: 'yours',
  trusted: 'trusted (as it is now)',
  'not trusted':
    'not trusted: its servers are skipped (mcpkit asks in a terminal; --trust-project trusts it for one run)',
  changed:
    'changed since you trusted it: its servers are skipped until you trust it again (mcpkit asks in a terminal)',
  'this run': 'trusted for this run (--trust-project)',
};

function failIfBroken(errors: readonly ConfigError[]): void {
  if (errors.length === 0) return;
  throw new CliError(ExitCode.usage, errors.map((e) => e.message).join('\n'), {
    files: errors.map((e) => e.file),
  });
}

export async function configList(flags: ConfigFlags): Promise<number> {
  const { servers, files, errors, hostSandbox } = await readAll(flags);
  const paths = files.map((f) => f.file);
  // The person's overlays (entries of an mcpkit file without command or url) set the sandbox of the servers above them.
  const overlays = new Map<string, unknown>();
  for (const s of servers)
    if (isOverlay(s) && s.scope === 'user' && s.entry.sandbox !== undefined)
      overlays.set(s.name, s.entry.sandbox);
  const sandboxOf = (s: ConfiguredServer) =>
    !isOverlay(s) && s.scope === 'user' && overlays.has(s.name)
      ? settingSummary(overlays.get(s.name))
      : sandboxColumn(s, hostSandbox);
  if (flags.format === 'json') {
    outJson({
      files: paths,
      projects: files.filter((f) => f.scope === 'project').map((f) => ({ file: f.file, trust: f.trust })),
      servers: servers.map((s) => ({ ...s, entry: redactServerEntry(s.entry), sandbox: sandboxOf(s) })),
      errors: errors.map((e) => ({ file: e.file, message: e.message })),
    });
  } else {
    if (servers.length === 0) {
      if (errors.length === 0)
        out(files.length === 0 ? 'no host config files found' : `no servers in ${paths.join(', ')}`);
    } else {
      const rows = servers.map((s) => {
        const { transport, target } = isOverlay(s)
          ? { transport: 'overlay', target: '(settings for the server of that name above)' }
          : describeEntry(s.entry);
        return [s.name, s.app, s.scope, s.trust, transport, target, sandboxOf(s)];
      });
      out(table(['NAME', 'HOST', 'SCOPE', 'TRUST', 'TRANSPORT', 'COMMAND / URL', 'SANDBOX'], rows));
      out(`\nfiles: ${paths.join(', ')}`);
    }
    for (const f of files.filter((f) => f.scope === 'project'))
      out(`project file ${f.file}: ${TRUST_TEXT[f.trust]}`);
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
      out(`${s.app} (${s.scope}${s.trust === 'yours' ? '' : `, ${s.trust}`}) ${s.file}:`);
      out(JSON.stringify(redactServerEntry(s.entry), null, 2));
    }
  }
  for (const e of errors) note(`warning: ${e.message}`);
  return ExitCode.ok;
}
