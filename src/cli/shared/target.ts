// Targets: what a command talks to. A stdio command after `--` (with `--cwd` and `-e K=V`), a URL (Streamable HTTP
// with the legacy HTTP+SSE fallback, `--header "Name: value"`), or a server's name in a host config file
// (`--config FILE`, else the known locations of Claude Desktop, Claude Code, VS Code, Cursor and mcpkit).
import type { LoadedConfig, ServerConfig } from '../../host/config/types.js';
import { serverEnvironment } from '../../host/environment.js';
import { isSecretName, REDACTED, redactText } from '../../host/redact.js';
import { decideSandbox } from '../../host/sandbox/decide.js';
import { resolveSandbox, type SandboxPolicy } from '../../host/sandbox/policy.js';
import { CliError, ExitCode, type TargetKind } from './exit.js';
import { configSources, type HostConfigFlags, loadHostConfig, printNotices } from './host-config.js';
import { nearest } from './nearest.js';
import { note } from './output.js';

/** The target options every command that talks to a server accepts. */
export interface TargetFlags extends HostConfigFlags {
  cwd?: string;
  /** `-e K=V`, repeatable. */
  env?: string[];
  /** `--header "Name: value"`, repeatable. */
  header?: string[];
}

/** A resolved target. */
export type Target =
  | {
      kind: 'stdio';
      /** What to call it in messages. */
      label: string;
      command: string;
      args: string[];
      /** The child's complete environment (the stdio allow-list, the config's and `-e` variables). */
      env: Record<string, string>;
      cwd?: string;
      /** Its sandbox (the config's `sandbox`, its `host.sandbox`, or `--sandbox`); none: not sandboxed. */
      sandbox?: SandboxPolicy;
    }
  | {
      kind: 'url';
      label: string;
      url: string;
      /** `sse`: only the legacy HTTP+SSE transport (a config entry said so); `http`: Streamable HTTP with fallback. */
      transport: 'http' | 'sse';
      headers: Record<string, string>;
      /** A pre-registered OAuth client from the config (Cursor's `auth` block). */
      oauth?: ServerConfig['oauth'];
    };

export type { TargetKind };

/** Whether `text` names a server by URL rather than by name. */
export function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/** Parses repeated `-e K=V` options (built from entries, so every name, `__proto__` too, is an own property). */
export function parseEnv(pairs: readonly string[] = []): Record<string, string> {
  const env: [string, string][] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(ExitCode.usage, `-e needs NAME=value, got "${pair}"`);
    env.push([pair.slice(0, eq), pair.slice(eq + 1)]);
  }
  return Object.fromEntries(env);
}

/** Parses repeated `--header "Name: value"` options. */
export function parseHeaders(lines: readonly string[] = []): Record<string, string> {
  const headers: [string, string][] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new CliError(ExitCode.usage, `--header needs "Name: value", got "${line}"`);
    headers.push([name, line.slice(colon + 1).trim()]);
  }
  return Object.fromEntries(headers);
}

/**
 * Resolves what a command talks to: `command` (the words after `--`) wins; otherwise `name` is a URL or a
 * configured server's name (in `config` when the caller loaded the host config already). Bad input is a usage
 * error (exit 1); a config file that does not parse is one too, its message naming the file, the line and the column.
 */
export async function resolveTarget(
  name: string | undefined,
  command: readonly string[] | undefined,
  flags: TargetFlags,
  config?: LoadedConfig,
): Promise<Target> {
  const extraEnv = parseEnv(flags.env);
  const extraHeaders = parseHeaders(flags.header);
  if (command !== undefined && command.length > 0) {
    if (name !== undefined)
      throw new CliError(ExitCode.usage, `give either a target ("${name}") or a command after --, not both`);
    const [program, ...args] = command as [string, ...string[]];
    const sandbox = flags.sandbox === true ? resolveSandbox(true, undefined) : undefined;
    return {
      kind: 'stdio',
      label: commandLabel(command),
      command: program,
      args,
      env: serverEnvironment(extraEnv, Object.keys(extraEnv)),
      ...(flags.cwd === undefined ? {} : { cwd: flags.cwd }),
      ...(sandbox ? { sandbox } : {}),
    };
  }
  if (name === undefined || name === '')
    throw new CliError(
      ExitCode.usage,
      'no target: give a URL, a configured server name, or a command after -- (e.g. `-- node server.js`)',
    );
  if (isUrl(name)) {
    let url: URL;
    try {
      url = new URL(name);
    } catch {
      throw new CliError(ExitCode.usage, `not a valid URL: "${urlLabel(name)}"`);
    }
    if (url.username !== '' || url.password !== '')
      throw new CliError(
        ExitCode.usage,
        `the URL ${urlLabel(url.href)} carries a user name or password: give credentials with --header "Authorization: …" instead`,
      );
    return {
      kind: 'url',
      label: urlLabel(url.href),
      url: url.href,
      transport: 'http',
      headers: extraHeaders,
    };
  }
  const { server, settings } = await configuredServer(name, flags, config);
  const t = server.transport;
  const sandboxed = decideSandbox(server, flags.sandbox === true ? true : settings.sandbox);
  if (sandboxed.refused) throw new CliError(ExitCode.usage, sandboxed.refused.message);
  for (const line of sandboxed.notes) note(`notice: ${line}`);
  if (t.type === 'stdio') {
    const env = { ...t.env, ...extraEnv };
    const cwd = flags.cwd ?? t.cwd;
    return {
      kind: 'stdio',
      label: name,
      command: t.command,
      args: t.args,
      env: serverEnvironment(env, [...t.namedEnv, ...Object.keys(extraEnv)]),
      ...(cwd === undefined ? {} : { cwd }),
      ...(sandboxed.policy ? { sandbox: sandboxed.policy } : {}),
    };
  }
  return {
    kind: 'url',
    label: name,
    url: t.url,
    transport: t.type,
    headers: { ...t.headers, ...extraHeaders },
    ...(server.oauth === undefined ? {} : { oauth: server.oauth }),
  };
}

/**
 * A URL as messages show it: origin and path, the query's values redacted, no user name, password or fragment
 * (an `?api_key=` must not reach a terminal, a log or `--format json`).
 */
export function urlLabel(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return REDACTED;
  }
  const keys = [...url.searchParams.keys()];
  const query =
    keys.length === 0 ? '' : `?${keys.map((k) => `${encodeURIComponent(k)}=${REDACTED}`).join('&')}`;
  return `${url.origin}${url.pathname}${query}`;
}

/**
 * A stdio command as messages show it: the value of a secret-looking flag (`--token=X`, `--api-key X`) or
 * assignment (`API_KEY=X`), a URL's query values and credential-looking words (`sk-…`, `Bearer …`) redacted.
 */
export function commandLabel(command: readonly string[]): string {
  const words: string[] = [];
  let hideNext = false;
  for (const word of command) {
    if (hideNext) {
      words.push(REDACTED);
      hideNext = false;
      continue;
    }
    const flag = /^(--?[A-Za-z0-9_.-]+)(=.*)?$/.exec(word);
    if (flag?.[1] !== undefined && isSecretName(flag[1])) {
      if (flag[2] === undefined) {
        hideNext = true;
        words.push(word);
      } else words.push(`${flag[1]}=${REDACTED}`);
      continue;
    }
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word);
    if (assignment?.[1] !== undefined && isSecretName(assignment[1])) {
      words.push(`${assignment[1]}=${REDACTED}`);
      continue;
    }
    words.push(isUrl(word) ? urlLabel(word) : redactText(word));
  }
  return words.join(' ');
}

/**
 * The server called `name` in the host config files. A project file's entry never takes the name of one of the
 * person's (it is listed as `<name>-project`): the person's own server answers to its name, the clash is a notice.
 * A name two of the person's files define (or two project files) is a usage error listing them: which one is meant
 * is not guessed.
 */
async function configuredServer(
  name: string,
  flags: HostConfigFlags,
  given: LoadedConfig | undefined,
): Promise<{ server: ServerConfig; settings: LoadedConfig['settings'] }> {
  const files = configSources(flags.config).map((s) => s.path);
  if (given === undefined && files.length === 0)
    throw new CliError(
      ExitCode.usage,
      `"${name}" is not a URL, and no host config file was found to look it up in (give --config FILE, a URL, or a command after --)`,
    );
  const loaded = given ?? (await loadHostConfig(flags, { quiet: true }));
  const found = loaded.servers.find((s) => s.name === name);
  // The files defining the name again: the error below says it, not a notice that one of them is used.
  const twice = (loaded.notices ?? []).filter(
    (n) => n.kind === 'duplicate' && n.server === name && n.file === found?.source.file,
  );
  if (given === undefined)
    printNotices({ ...loaded, notices: (loaded.notices ?? []).filter((n) => !twice.includes(n)) });
  const defining = twice[twice.length - 1]?.files;
  if (defining !== undefined)
    throw new CliError(
      ExitCode.usage,
      `"${name}" is defined in ${defining.length} config files: ${defining.join(', ')}; mcpkit does not pick one: give --config FILE for the one you mean, or rename the others`,
      { server: name, files: defining },
    );
  if (found) return { server: found, settings: loaded.settings };
  const names = loaded.servers.map((s) => s.name);
  const close = nearest(name, names);
  throw new CliError(
    ExitCode.usage,
    `no server "${name}" in ${(given?.files ?? files).join(', ')}${close === undefined ? '' : ` (did you mean "${close}"?)`}${names.length > 0 ? `; servers: ${names.join(', ')}` : ''}`,
  );
}
