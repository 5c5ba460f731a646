import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { isJsonObject } from '../../jsonrpc/types.js';
import { ConfigError } from './config-error.js';
import { parseEnvFile } from './env-file.js';
import { expandString, type VariableResolver } from './expand.js';
import { FieldReader, kind } from './fields.js';
import { readSandboxField } from './sandbox-field.js';
import type { ApprovalMode, ApprovalPolicy, ConfigFormat, ServerConfig, ToolChangePolicy } from './types.js';

/** What differs between the formats when one server entry is read. */
export interface EntryRules {
  format: ConfigFormat;
  file: string;
  /** The fields a server entry may have. */
  fields: readonly string[];
  /** The `type` values and what they mean. */
  types: Readonly<Record<string, 'stdio' | 'http' | 'sse'>>;
  resolver: VariableResolver;
  /** Relative `envFile` and `cwd` paths are resolved against this folder. */
  baseDir: string;
  /** The home folder (`~/` in sandbox grants, and the folder a grant may not be without `force`). */
  home: string;
}

const APPROVAL_MODES: readonly ApprovalMode[] = ['allow', 'deny', 'ask'];

/** Reads the map of server entries under `key` (e.g. `mcpServers`) of a parsed file. */
export async function readEntries(
  root: Record<string, unknown>,
  key: string,
  rules: EntryRules,
): Promise<ServerConfig[]> {
  const map = root[key];
  if (map === undefined) return [];
  if (!isJsonObject(map))
    throw new ConfigError({ file: rules.file, field: key }, `must be an object of servers, got ${kind(map)}`);
  const out: ServerConfig[] = [];
  for (const [name, raw] of Object.entries(map)) {
    if (name.trim() === '') throw new ConfigError({ file: rules.file, field: key }, 'a server name is empty');
    out.push(await readEntry(name, raw, rules));
  }
  return out;
}

/** Reads one server entry: its transport (expanded), and the mcpkit fields when the format has them. */
export async function readEntry(name: string, raw: unknown, rules: EntryRules): Promise<ServerConfig> {
  const r = new FieldReader(raw, { file: rules.file, server: name });
  r.rejectUnknown(rules.fields);
  const expand = async (value: string, field: string): Promise<string> => {
    try {
      return await expandString(value, rules.resolver);
    } catch (cause) {
      if (cause instanceof ConfigError) throw cause;
      throw r.error(cause instanceof Error ? cause.message : String(cause), field);
    }
  };
  const typeName = r.oneOf('type', Object.keys(rules.types));
  const type = typeName === undefined ? (r.has('url') ? 'http' : 'stdio') : (rules.types[typeName] as string);
  const config: ServerConfig = {
    name,
    transport: { type: 'stdio', command: '', args: [], env: {}, namedEnv: [] },
    disabled: r.boolean('disabled') ?? false,
    trusted: r.boolean('trusted') ?? false,
    source: { file: rules.file, format: rules.format },
  };
  if (type === 'stdio') {
    if (r.has('url'))
      throw r.error(`a ${typeName ?? 'stdio'} server has no url (set "type" for a remote server)`, 'url');
    const command = await expand(
      r.requiredString('command', 'a stdio server needs the command to run'),
      'command',
    );
    const args: string[] = [];
    const rawArgs = r.stringArray('args') ?? [];
    for (let i = 0; i < rawArgs.length; i++) args.push(await expand(rawArgs[i] as string, `args[${i}]`));
    const env: Record<string, string> = {};
    const envFile = r.string('envFile');
    if (envFile !== undefined)
      Object.assign(env, await readEnvFile(await expand(envFile, 'envFile'), rules, r));
    const given = r.stringRecord('env') ?? {};
    for (const [key, value] of Object.entries(given)) env[key] = await expand(value, `env.${key}`);
    const cwd = r.string('cwd');
    config.transport = { type: 'stdio', command, args, env, namedEnv: Object.keys(given) };
    if (cwd !== undefined) config.transport.cwd = resolve(rules.baseDir, await expand(cwd, 'cwd'));
  } else {
    if (r.has('command')) throw r.error(`a ${typeName ?? type} server has no command`, 'command');
    const url = await expand(r.requiredString('url', `an ${type} server needs its url`), 'url');
    try {
      new URL(url);
    } catch {
      throw r.error(`not a valid URL: ${JSON.stringify(url)}`, 'url');
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(r.stringRecord('headers') ?? {}))
      headers[key] = await expand(value, `headers.${key}`);
    config.transport = { type: type === 'sse' ? 'sse' : 'http', url, headers };
    const auth = r.nested('auth');
    if (auth) config.oauth = await readOAuth(auth, expand);
  }
  readGovernance(r, config);
  if (r.has('sandbox')) {
    if (config.transport.type !== 'stdio')
      throw r.error(
        'a sandbox applies to a server the host starts (stdio), not to one reached by URL',
        'sandbox',
      );
    const sandbox = await readSandboxField(r, 'sandbox', rules.home, expand);
    if (sandbox !== undefined) config.sandbox = sandbox;
  }
  return config;
}

/** The fields an overlay may set: how a server is governed, never how it starts. */
export const OVERLAY_FIELDS: readonly string[] = [
  'disabled',
  'trusted',
  'approval',
  'allowedTools',
  'disabledTools',
  'connectTimeoutMs',
  'requestTimeoutMs',
  'toolChanges',
  'lazy',
  'sandbox',
];

/** What an overlay changes of a server another file defines. */
export type ServerOverlay = { name: string; file: string } & Partial<
  Pick<
    ServerConfig,
    | 'disabled'
    | 'trusted'
    | 'approval'
    | 'allowedTools'
    | 'disabledTools'
    | 'connectTimeoutMs'
    | 'requestTimeoutMs'
    | 'toolChanges'
    | 'lazy'
    | 'sandbox'
  >
>;

/** Whether an mcpkit entry is an overlay: it names no way to reach a server (no `type`, `command` or `url`). */
export function isOverlayEntry(raw: unknown): boolean {
  return isJsonObject(raw) && raw.type === undefined && raw.command === undefined && raw.url === undefined;
}

/** Reads an overlay entry: the governance fields only (anything about starting the server is refused). */
export async function readOverlay(name: string, raw: unknown, rules: EntryRules): Promise<ServerOverlay> {
  const r = new FieldReader(raw, { file: rules.file, server: name });
  for (const key of Object.keys(r.object))
    if (!OVERLAY_FIELDS.includes(key))
      throw r.error(
        rules.fields.includes(key)
          ? 'an entry without command or url changes the server of that name in an earlier file: it may set how the server is governed, not how it starts (give its full entry instead)'
          : `unknown field (expected one of: ${OVERLAY_FIELDS.join(', ')})`,
        key,
      );
  const scratch: ServerConfig = {
    name,
    transport: { type: 'stdio', command: '', args: [], env: {}, namedEnv: [] },
    disabled: false,
    trusted: false,
    source: { file: rules.file, format: rules.format },
  };
  readGovernance(r, scratch);
  const out: ServerOverlay = { name, file: rules.file };
  const disabled = r.boolean('disabled');
  if (disabled !== undefined) out.disabled = disabled;
  const trusted = r.boolean('trusted');
  if (trusted !== undefined) out.trusted = trusted;
  for (const key of [
    'approval',
    'allowedTools',
    'disabledTools',
    'connectTimeoutMs',
    'requestTimeoutMs',
    'toolChanges',
    'lazy',
  ] as const)
    if (scratch[key] !== undefined) Object.assign(out, { [key]: scratch[key] });
  const expand = (value: string, field: string) =>
    expandString(value, rules.resolver).catch((cause: unknown) => {
      throw cause instanceof ConfigError
        ? cause
        : r.error(cause instanceof Error ? cause.message : String(cause), field);
    });
  const sandbox = await readSandboxField(r, 'sandbox', rules.home, expand);
  if (sandbox !== undefined) out.sandbox = sandbox;
  return out;
}

/**
 * Applies overlays to the servers read before them (by name), each a server of its own afterwards; an overlay naming
 * no such server is a {@link ConfigError}.
 */
export function applyOverlays(servers: ServerConfig[], overlays: readonly ServerOverlay[]): void {
  for (const { name, file, ...change } of overlays) {
    const at = servers.findIndex((s) => s.name === name);
    if (at < 0)
      throw new ConfigError(
        { file, server: name },
        `no server "${name}" in the files read before this one: an entry without command or url changes a server another file defines (give the full entry, or read the file defining it first)`,
      );
    servers[at] = { ...(servers[at] as ServerConfig), ...change };
  }
}

/** The mcpkit fields: approval, tool changes, tool filters, timeouts, lazy (absent from the other formats' field lists; `sandbox` after). */
function readGovernance(r: FieldReader, config: ServerConfig): void {
  const approval = readApproval(r);
  if (approval) config.approval = approval;
  const lazy = r.boolean('lazy');
  if (lazy !== undefined) config.lazy = lazy;
  const toolChanges = r.oneOf<ToolChangePolicy>('toolChanges', ['ask', 'refuse', 'accept']);
  if (toolChanges) config.toolChanges = toolChanges;
  const allowed = r.stringArray('allowedTools');
  if (allowed) config.allowedTools = allowed;
  const disabled = r.stringArray('disabledTools');
  if (disabled) config.disabledTools = disabled;
  const connect = r.positiveNumber('connectTimeoutMs');
  if (connect !== undefined) config.connectTimeoutMs = connect;
  const request = r.positiveNumber('requestTimeoutMs');
  if (request !== undefined) config.requestTimeoutMs = request;
}

/** Cursor's static OAuth client: `auth: { CLIENT_ID, CLIENT_SECRET, scopes }`, variables expanded. */
async function readOAuth(
  auth: FieldReader,
  expand: (value: string, field: string) => Promise<string>,
): Promise<NonNullable<ServerConfig['oauth']>> {
  auth.rejectUnknown(['CLIENT_ID', 'CLIENT_SECRET', 'scopes']);
  const out: NonNullable<ServerConfig['oauth']> = {};
  const id = auth.string('CLIENT_ID');
  if (id !== undefined) out.clientId = await expand(id, 'auth.CLIENT_ID');
  const secret = auth.string('CLIENT_SECRET');
  if (secret !== undefined) out.clientSecret = await expand(secret, 'auth.CLIENT_SECRET');
  const scopes = auth.stringArray('scopes');
  if (scopes) out.scopes = scopes;
  return out;
}

function readApproval(r: FieldReader): ApprovalPolicy | undefined {
  if (!r.has('approval')) return undefined;
  if (typeof r.object.approval === 'string')
    return { default: r.oneOf('approval', APPROVAL_MODES) as ApprovalMode };
  const a = r.nested('approval') as FieldReader;
  a.rejectUnknown(['default', 'tools']);
  const policy: ApprovalPolicy = {};
  const mode = a.oneOf('default', APPROVAL_MODES);
  if (mode) policy.default = mode;
  const tools = a.nested('tools');
  if (tools) {
    policy.tools = {};
    for (const tool of Object.keys(tools.object))
      policy.tools[tool] = tools.oneOf(tool, APPROVAL_MODES) as ApprovalMode;
  }
  return policy;
}

async function readEnvFile(path: string, rules: EntryRules, r: FieldReader): Promise<Record<string, string>> {
  const full = isAbsolute(path) ? path : resolve(rules.baseDir, path);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (cause) {
    throw r.error(
      `cannot read ${full}: ${cause instanceof Error ? cause.message : String(cause)}`,
      'envFile',
    );
  }
  const { env, badLines } = parseEnvFile(text);
  if (badLines.length > 0) throw r.error(`${full}: not KEY=value on line ${badLines.join(', ')}`, 'envFile');
  return env;
}
