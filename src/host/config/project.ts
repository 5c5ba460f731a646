// A project's config files (a working folder's `.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`, `mcpkit.json`)
// come from whoever wrote the repository, not from the person: their servers load only once the person trusts that
// file's exact bytes, they never set host-wide settings or loosen approvals or the sandbox, and they never take a
// user's name.
import { createHash } from 'node:crypto';
import { isJsonObject } from '../../jsonrpc/types.js';
import { ConfigError } from './config-error.js';
import { configuredServersIn, describeEntry } from './entries.js';
import { isOverlayEntry } from './entry.js';
import { mergeInto, noteDuplicates, type ParseOptions, parseConfig } from './formats.js';
import { parseConfigText } from './jsonc.js';
import { appOf } from './locations.js';
import type { ApprovalMode, ConfigFormat, ConfigNotice, ServerConfig } from './types.js';

/** A server a project file would add, as written (nothing expanded), for the person to judge. */
export interface ProjectServer {
  name: string;
  /** `stdio`, `http` or `sse`. */
  transport: string;
  /** The command line or URL, secret-looking parts redacted. */
  target: string;
}

/** A project file waiting for the person's decision: where it is, the digest of its bytes, what it would add. */
export interface ProjectFile {
  path: string;
  format: ConfigFormat;
  /** The SHA-256 of the file's bytes, in hex: a trust decision holds for these bytes only. */
  digest: string;
  servers: ProjectServer[];
}

/** Decides whether a project file's servers load (true: the person trusts this file as it is now). */
export type TrustProjectCallback = (file: ProjectFile) => boolean | Promise<boolean>;

/** The SHA-256 of a file's bytes, in hex. */
export function fileDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** One project file's bytes, read once: what is shown, hashed and parsed is the same text. */
export interface ProjectText {
  file: string;
  format: ConfigFormat;
  bytes: Uint8Array;
  text: string;
}

/** What a project file gave: the servers it shows, and those loaded (absent when not trusted or not readable). */
export interface ProjectRead {
  file: string;
  shown: ProjectServer[];
  servers?: ServerConfig[];
}

/**
 * Reads a project file: its servers load when the person trusts it (loosening settings dropped); not when it is
 * not trusted, has no servers, or cannot be shown. Its `host` block is never taken. Every step is a notice.
 */
export async function readProjectFile(
  source: ProjectText,
  parse: ParseOptions,
  trustProject: TrustProjectCallback | undefined,
  notices: ConfigNotice[],
): Promise<ProjectRead> {
  const { file, format, text } = source;
  let servers: ProjectServer[];
  try {
    const root = text.trim() === '' ? {} : parseConfigText(text, file, format === 'vscode');
    const host = isJsonObject(root) ? root.host : undefined;
    if (format === 'mcpkit' && isJsonObject(host) && Object.keys(host).length > 0) {
      const fields = Object.keys(host).join(', ');
      notices.push({
        kind: 'ignored',
        file,
        message: `${file}: host settings are never taken from a project file; ignored: ${fields}`,
      });
    }
    const entries = configuredServersIn(text, { format, app: appOf(format), scope: 'project', path: file });
    // An mcpkit overlay (no command or url) would change another file's server: a project file never does.
    const overlays = format === 'mcpkit' ? entries.filter((e) => isOverlayEntry(e.entry)) : [];
    if (overlays.length > 0)
      notices.push({
        kind: 'ignored',
        file,
        message: `${file}: a project file cannot change servers other files define; ignored: ${overlays.map((e) => e.name).join(', ')}`,
      });
    servers = entries
      .filter((e) => !overlays.includes(e))
      .map((e) => ({ name: e.name, ...describeEntry(e.entry) }));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    notices.push({ kind: 'unreadable', file, message: `${e.message} (its servers are skipped)` });
    return { file, shown: [] };
  }
  if (servers.length === 0) return { file, shown: servers };
  const project: ProjectFile = { path: file, format, digest: fileDigest(source.bytes), servers };
  if (!(await trustProject?.(project))) {
    notices.push({
      kind: 'untrusted',
      file,
      message: `${file} is a project file not trusted yet: its servers (${servers.map((s) => s.name).join(', ')}) are skipped`,
    });
    return { file, shown: servers };
  }
  const loaded = await parseConfig(text, file, format, parse);
  // Only what the person was shown loads (a stray `projects` key of a project `.mcp.json` is not Claude Code's).
  const shown = new Set(servers.map((s) => s.name));
  const kept = loaded.servers.filter((s) => shown.has(s.name)).map((s) => withoutLoosening(s, notices));
  return { file, shown: servers, servers: kept };
}

/**
 * A project server without what would loosen the person's approvals or sandbox: `trusted`, every `allow`,
 * `toolChanges: "accept"` (a changed tool taken without asking; `ask` and `refuse` are kept) and `sandbox: false`.
 * Marked as a project's, so its own sandbox grants count only where they are within the host's default (see
 * `decideSandbox`).
 */
function withoutLoosening(server: ServerConfig, notices: ConfigNotice[]): ServerConfig {
  const ignored: string[] = [];
  const out: ServerConfig = { ...server, trusted: false, source: { ...server.source, scope: 'project' } };
  if (server.trusted) ignored.push('trusted');
  if (server.toolChanges === 'accept') {
    ignored.push('toolChanges "accept"');
    delete out.toolChanges;
  }
  if (server.sandbox === false) {
    ignored.push('sandbox false');
    delete out.sandbox;
  }
  const approval = server.approval;
  if (approval) {
    const kept: NonNullable<ServerConfig['approval']> = {};
    if (approval.default === 'allow') ignored.push('approval.default "allow"');
    else if (approval.default) kept.default = approval.default;
    const tools: Record<string, ApprovalMode> = {};
    for (const [tool, mode] of Object.entries(approval.tools ?? {})) {
      if (mode === 'allow') ignored.push(`approval.tools.${tool} "allow"`);
      else tools[tool] = mode;
    }
    if (Object.keys(tools).length > 0) kept.tools = tools;
    if (kept.default === undefined && kept.tools === undefined) delete out.approval;
    else out.approval = kept;
  }
  if (ignored.length > 0)
    notices.push({
      kind: 'ignored',
      file: server.source.file,
      server: server.name,
      message: `${server.source.file}: a project file cannot loosen ${ignored.includes('sandbox false') ? 'the sandbox or approvals' : 'approvals'}; ignored for "${server.name}": ${ignored.join(', ')}`,
    });
  return out;
}

/**
 * The project's servers beside the user's: a project entry named like a user entry is listed as `<name>-project`
 * (then `<name>-project-2`, …), so the user's keeps its name and neither hides the other. Each clash is a notice,
 * a skipped file's too. Between project files, a later file's entry replaces an earlier one's (a `duplicate` notice).
 */
export function besideUserServers(
  user: readonly ServerConfig[],
  reads: readonly ProjectRead[],
  notices: ConfigNotice[],
): ServerConfig[] {
  const byName = new Map(user.map((s) => [s.name, s]));
  const project: ServerConfig[] = [];
  for (const read of reads) {
    if (read.servers) {
      noteDuplicates(project, read.servers, notices);
      mergeInto(project, read.servers);
    } else
      for (const { name } of read.shown) {
        const mine = byName.get(name);
        if (mine)
          notices.push({
            kind: 'clash',
            file: read.file,
            server: name,
            message: `"${name}" of ${read.file} (skipped) is also the name of your server of ${mine.source.file}, which keeps it`,
          });
      }
  }
  const taken = new Set([...user, ...project].map((s) => s.name));
  return project.map((server) => {
    const mine = byName.get(server.name);
    if (!mine) return server;
    let listedAs = `${server.name}-project`;
    for (let n = 2; taken.has(listedAs); n++) listedAs = `${server.name}-project-${n}`;
    taken.add(listedAs);
    notices.push({
      kind: 'clash',
      file: server.source.file,
      server: server.name,
      message: `"${server.name}" of ${server.source.file} is listed as "${listedAs}": "${server.name}" is your server of ${mine.source.file}`,
    });
    return { ...server, name: listedAs };
  });
}
