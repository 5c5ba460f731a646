import { dirname } from 'node:path';
import { errorMessage } from '../../jsonrpc/errors.js';
import { isJsonObject } from '../../jsonrpc/types.js';
import { ConfigError } from './config-error.js';
import { type EntryRules, isOverlayEntry, readEntries, readOverlay, type ServerOverlay } from './entry.js';
import {
  claudeCodeResolver,
  cursorResolver,
  type ExpansionContext,
  expandString,
  mcpkitResolver,
  type VariableResolver,
  vscodeResolver,
} from './expand.js';
import { FieldReader, kind } from './fields.js';
import { parseConfigText } from './jsonc.js';
import { readSandboxField } from './sandbox-field.js';
import type {
  ApprovalMode,
  ConfigFormat,
  ConfigNotice,
  HostSettings,
  LoadedConfig,
  ServerConfig,
} from './types.js';

/** A VS Code input (`inputs[]`), as the input callback receives it. */
export interface ConfigInput {
  id: string;
  type: 'promptString' | 'pickString';
  description?: string;
  password?: boolean;
  default?: string;
  options?: string[];
  /** The file that declared it. */
  file: string;
}

/** How variables are expanded when a file is read. */
export interface ParseOptions {
  /** The environment for `${VAR}` / `${env:NAME}`. Default: this process's. */
  env?: Readonly<Record<string, string | undefined>>;
  /** `${userHome}`. Default: the OS home directory. */
  userHome: string;
  /** `${workspaceFolder}`, and the project whose entries `~/.claude.json` adds. */
  workspaceFolder?: string | undefined;
  /** Asks for a VS Code `${input:id}`; each id is asked once per file. */
  input?: ((input: ConfigInput) => Promise<string>) | undefined;
}

const STDIO_HTTP_SSE = { stdio: 'stdio', http: 'http', sse: 'sse' } as const;
const TRANSPORT_FIELDS = ['command', 'args', 'env', 'url', 'headers'];
const MCPKIT_FIELDS = [
  'type',
  ...TRANSPORT_FIELDS,
  'cwd',
  'envFile',
  'disabled',
  'lazy',
  'trusted',
  'approval',
  'toolChanges',
  'allowedTools',
  'disabledTools',
  'connectTimeoutMs',
  'requestTimeoutMs',
  'sandbox',
];

/** A file read: its servers and settings, and (mcpkit format) its overlays of servers other files define. */
export type ParsedConfig = LoadedConfig & { overlays?: ServerOverlay[] };

/** Parses the text of a config file of `format`, expanding its variables. */
export async function parseConfig(
  text: string,
  file: string,
  format: ConfigFormat,
  options: ParseOptions,
): Promise<ParsedConfig> {
  const root = parseConfigText(text, file, format === 'vscode');
  if (!isJsonObject(root))
    throw new ConfigError({ file }, `the file must hold a JSON object, got ${kind(root)}`);
  const ctx: ExpansionContext = {
    env: options.env ?? process.env,
    userHome: options.userHome,
    workspaceFolder: options.workspaceFolder,
  };
  const base = { file, baseDir: options.workspaceFolder ?? dirname(file), home: options.userHome };
  const settings: HostSettings = {};
  switch (format) {
    case 'claude-desktop': {
      // Claude Desktop expands nothing: values are passed as written.
      const rules = { ...base, format, fields: TRANSPORT_FIELDS.slice(0, 3), types: {}, resolver: literal };
      return { servers: await readEntries(root, 'mcpServers', rules), settings, files: [file] };
    }
    case 'claude-code': {
      const rules: EntryRules = {
        ...base,
        format,
        fields: ['type', ...TRANSPORT_FIELDS],
        types: STDIO_HTTP_SSE,
        resolver: claudeCodeResolver(ctx),
      };
      const servers = await readEntries(root, 'mcpServers', rules);
      // ~/.claude.json: the project's (local scope) entries override the user's.
      const project =
        options.workspaceFolder === undefined ? undefined : projectEntry(root, options.workspaceFolder);
      if (project) mergeInto(servers, await readEntries(project, 'mcpServers', rules));
      return { servers, settings, files: [file] };
    }
    case 'vscode': {
      const inputs = readInputs(root, file);
      const answers = new Map<string, Promise<string>>();
      ctx.input = (id) => {
        const input = inputs.get(id);
        if (!input) return Promise.reject(new Error(`\${input:${id}} is not declared in "inputs"`));
        if (!options.input)
          return Promise.reject(new Error(`\${input:${id}} needs a value but no input callback was given`));
        const known = answers.get(id);
        if (known) return known;
        const answer = options.input(input);
        answers.set(id, answer);
        return answer;
      };
      const fields = ['type', ...TRANSPORT_FIELDS, 'envFile', 'cwd', 'dev'];
      const rules: EntryRules = {
        ...base,
        format,
        fields,
        types: STDIO_HTTP_SSE,
        resolver: vscodeResolver(ctx),
      };
      // VS Code also reads the portable `mcpServers` key.
      const servers = await readEntries(root, 'servers', rules);
      mergeInto(servers, await readEntries(root, 'mcpServers', rules));
      return { servers, settings, files: [file] };
    }
    case 'cursor': {
      const fields = ['type', ...TRANSPORT_FIELDS, 'envFile', 'auth'];
      const types = { ...STDIO_HTTP_SSE, streamableHttp: 'http' } as const;
      const rules: EntryRules = { ...base, format, fields, types, resolver: cursorResolver(ctx) };
      return { servers: await readEntries(root, 'mcpServers', rules), settings, files: [file] };
    }
    case 'mcpkit': {
      const top = new FieldReader(root, { file });
      top.rejectUnknown(['$schema', 'servers', 'host']);
      const host = top.nested('host');
      if (host) {
        host.rejectUnknown(['separator', 'defaultApproval', 'sandbox']);
        const separator = host.string('separator');
        if (separator !== undefined) {
          if (!/^[a-zA-Z0-9_-]{1,8}$/.test(separator))
            throw host.error('must be 1 to 8 of the characters a-z A-Z 0-9 _ -', 'separator');
          settings.separator = separator;
        }
        const mode = host.oneOf<ApprovalMode>('defaultApproval', ['allow', 'deny', 'ask']);
        if (mode) settings.defaultApproval = mode;
        const sandbox = await readSandboxField(host, 'sandbox', options.userHome, (value, field) =>
          expandString(value, mcpkitResolver(ctx)).catch((e: unknown) => {
            throw e instanceof ConfigError ? e : host.error(errorMessage(e), field);
          }),
        );
        if (sandbox !== undefined) settings.sandbox = sandbox;
      }
      const rules: EntryRules = {
        ...base,
        format,
        fields: MCPKIT_FIELDS,
        types: STDIO_HTTP_SSE,
        resolver: mcpkitResolver(ctx),
      };
      // An entry naming no way to reach a server is an overlay of a server another file defines.
      const map = root.servers;
      const entries = isJsonObject(map) ? Object.entries(map) : [];
      const overlays: ServerOverlay[] = [];
      for (const [name, raw] of entries)
        if (isOverlayEntry(raw)) overlays.push(await readOverlay(name, raw, rules));
      const full = isJsonObject(map)
        ? { servers: Object.fromEntries(entries.filter(([, raw]) => !isOverlayEntry(raw))) }
        : root;
      return { servers: await readEntries(full, 'servers', rules), settings, files: [file], overlays };
    }
  }
}

/**
 * Adds a `duplicate` notice for each of `later`'s servers (one file's) named like one of another file's in `servers`
 * (call it before {@link mergeInto}, which lets the later entry win).
 */
export function noteDuplicates(
  servers: readonly ServerConfig[],
  later: readonly ServerConfig[],
  notices: ConfigNotice[],
): void {
  for (const entry of later) {
    const earlier = servers.find((s) => s.name === entry.name);
    if (earlier === undefined || earlier.source.file === entry.source.file) continue;
    // A third file naming it: the files of the notice about the second are listed too.
    const known = notices.filter(
      (n) => n.kind === 'duplicate' && n.server === entry.name && n.file === earlier.source.file,
    );
    const before = known[known.length - 1]?.files ?? [earlier.source.file];
    const files = [...before, entry.source.file];
    notices.push({
      kind: 'duplicate',
      file: entry.source.file,
      server: entry.name,
      files,
      message: `"${entry.name}" is defined in ${files.length} config files (${files.join(', ')}); the entry of ${entry.source.file} is used`,
    });
  }
}

/** Replaces or appends `later` entries in `servers` by name (the later file or scope wins). */
export function mergeInto<T extends { name: string }>(servers: T[], later: readonly T[]): void {
  for (const entry of later) {
    const at = servers.findIndex((s) => s.name === entry.name);
    if (at >= 0) servers[at] = entry;
    else servers.push(entry);
  }
}

const literal: VariableResolver = (expression) => `\${${expression}}`;

function projectEntry(root: Record<string, unknown>, folder: string): Record<string, unknown> | undefined {
  const projects = root.projects;
  if (!isJsonObject(projects)) return undefined;
  const entry = projects[folder];
  return isJsonObject(entry) ? entry : undefined;
}

function readInputs(root: Record<string, unknown>, file: string): Map<string, ConfigInput> {
  const inputs = new Map<string, ConfigInput>();
  const list = root.inputs;
  if (list === undefined) return inputs;
  if (!Array.isArray(list))
    throw new ConfigError({ file, field: 'inputs' }, `must be an array, got ${kind(list)}`);
  list.forEach((raw, i) => {
    const r = new FieldReader(raw, { file, field: `inputs[${i}]` }, `inputs[${i}].`);
    r.rejectUnknown(['type', 'id', 'description', 'password', 'default', 'options']);
    const id = r.requiredString('id', 'an input needs its id');
    const input: ConfigInput = {
      id,
      type: r.oneOf('type', ['promptString', 'pickString']) ?? 'promptString',
      file,
    };
    const description = r.string('description');
    if (description !== undefined) input.description = description;
    const password = r.boolean('password');
    if (password !== undefined) input.password = password;
    const fallback = r.string('default');
    if (fallback !== undefined) input.default = fallback;
    const options = r.stringArray('options');
    if (options) input.options = options;
    inputs.set(id, input);
  });
  return inputs;
}
