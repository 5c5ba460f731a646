// What a server's sandbox allows: the setting as configured (`true`, `false` or grants), checked once, and the policy
// one start uses. Everything not granted is refused; a grant that would undo the sandbox (`/`, the home folder) needs
// `force`. No I/O beyond checking that granted paths exist.
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve, sep } from 'node:path';
import { type AllowedHost, parseAllowedHost } from './allowed-hosts.js';

/** A server's sandbox as configured: `true` (the safe preset), `false` (none), or the safe preset with these grants. */
export type SandboxSetting = boolean | SandboxGrants;

/** Grants and limits on top of the safe preset (no network, a read-only system, the home folder hidden). */
export interface SandboxGrants {
  /** `false` (the default): no network; `true`: the host's network; a list: only these hosts, through the host's filtering proxy. */
  network?: boolean | string[];
  /** Folders or files the server may read (absolute, existing; `~/` is the home folder). */
  read?: string[];
  /** Folders or files the server may read and write. */
  write?: string[];
  /** Memory of each process and of the whole sandbox, in MB. Default 1024. */
  memoryMb?: number;
  /** CPU time of each process, in seconds (it is stopped after it). Default: no limit. */
  cpuSeconds?: number;
  /** Processes (and threads) the sandbox may run at once. Default 256. */
  processes?: number;
  /** Allows a grant of `/`, of the home folder or of a folder holding it (refused otherwise). */
  force?: boolean;
}

/** A sandbox resolved for a server: checked, absolute grants and every limit. */
export interface SandboxPolicy {
  /** `none`, the host's network, or only these hosts through the filtering proxy. */
  network: 'none' | 'host' | AllowedHost[];
  read: string[];
  write: string[];
  memoryMb: number;
  cpuSeconds?: number;
  processes: number;
}

/** The safe preset's limits. */
export const SANDBOX_DEFAULTS = { memoryMb: 1024, processes: 256 } as const;

/** The fields a sandbox object may have. */
export const SANDBOX_FIELDS: readonly string[] = [
  'network',
  'read',
  'write',
  'memoryMb',
  'cpuSeconds',
  'processes',
  'force',
];

/** One thing wrong with a sandbox setting: the field (`read[0]`, `network`, …) and what. */
export interface SandboxProblem {
  field?: string;
  message: string;
}

/** Where the checks look: the home folder (default: this user's). */
export interface SandboxCheckOptions {
  home?: string;
}

/**
 * Checks a sandbox setting of unknown shape (a config file's value, or an app's object): the setting, with `~/`
 * expanded in its paths, or the problems (unknown fields, relative or missing paths, a grant of `/` or the home
 * folder without `force`, a bad host, a limit that is not a positive integer).
 */
export function checkSandboxSetting(
  value: unknown,
  options: SandboxCheckOptions = {},
): { setting: SandboxSetting } | { problems: SandboxProblem[] } {
  if (typeof value === 'boolean') return { setting: value };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problems: [{ message: `must be true, false or an object of grants, got ${shapeOf(value)}` }] };
  const problems: SandboxProblem[] = [];
  const given = value as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!SANDBOX_FIELDS.includes(key))
      problems.push({ field: key, message: `unknown field (expected one of: ${SANDBOX_FIELDS.join(', ')})` });
  const out: SandboxGrants = {};
  const force = given.force;
  if (force !== undefined && typeof force !== 'boolean')
    problems.push({ field: 'force', message: `must be true or false, got ${shapeOf(force)}` });
  else if (force === true) out.force = true;
  const network = checkNetwork(given.network, problems);
  if (network !== undefined) out.network = network;
  const home = options.home ?? homedir();
  for (const field of ['read', 'write'] as const) {
    const paths = checkPaths(given[field], field, home, out.force === true, problems);
    if (paths) out[field] = paths;
  }
  for (const field of ['memoryMb', 'cpuSeconds', 'processes'] as const) {
    const n = given[field];
    if (n === undefined) continue;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
      problems.push({ field, message: `must be a positive whole number, got ${shapeOf(n)}` });
    else out[field] = n;
  }
  return problems.length > 0 ? { problems } : { setting: out };
}

/**
 * The policy of a server: its own setting, else the host-wide default; undefined when neither sandboxes it. The
 * setting must have been checked ({@link checkSandboxSetting}).
 */
export function resolveSandbox(
  own: SandboxSetting | undefined,
  hostDefault: SandboxSetting | undefined,
): SandboxPolicy | undefined {
  const setting = own ?? hostDefault;
  if (setting === undefined || setting === false) return undefined;
  const g: SandboxGrants = setting === true ? {} : setting;
  const network = g.network === true ? 'host' : Array.isArray(g.network) ? allowed(g.network) : 'none';
  const policy: SandboxPolicy = {
    network,
    read: [...(g.read ?? [])],
    write: [...(g.write ?? [])],
    memoryMb: g.memoryMb ?? SANDBOX_DEFAULTS.memoryMb,
    processes: g.processes ?? SANDBOX_DEFAULTS.processes,
  };
  if (g.cpuSeconds !== undefined) policy.cpuSeconds = g.cpuSeconds;
  return policy;
}

/** Whether `a` gives no more than `b`: every grant of `a` is in `b`, and `a`'s limits are no higher. */
export function isNoLooserThan(a: SandboxPolicy, b: SandboxPolicy): boolean {
  const within = (path: string, grants: readonly string[]) => grants.some((g) => inside(path, g));
  const net =
    a.network === 'none' ||
    b.network === 'host' ||
    (Array.isArray(a.network) &&
      Array.isArray(b.network) &&
      a.network.every((h) => (b.network as AllowedHost[]).some((k) => k.text === h.text)));
  return (
    net &&
    a.read.every((p) => within(p, b.read) || within(p, b.write)) &&
    a.write.every((p) => within(p, b.write)) &&
    a.memoryMb <= b.memoryMb &&
    a.processes <= b.processes &&
    (b.cpuSeconds === undefined || (a.cpuSeconds !== undefined && a.cpuSeconds <= b.cpuSeconds))
  );
}

/** Whether `path` is `folder` or inside it. */
export function inside(path: string, folder: string): boolean {
  if (folder === sep) return true;
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

function allowed(entries: readonly string[]): AllowedHost[] {
  return entries.map((e) => {
    const host = parseAllowedHost(e);
    // checkSandboxSetting refused these already; an app skipping it gets the same message here.
    if (typeof host === 'string') throw new TypeError(`sandbox.network: ${host}`);
    return host;
  });
}

function checkNetwork(value: unknown, problems: SandboxProblem[]): boolean | string[] | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  if (!Array.isArray(value)) {
    problems.push({
      field: 'network',
      message: `must be true, false or a list of hosts, got ${shapeOf(value)}`,
    });
    return undefined;
  }
  const out: string[] = [];
  value.forEach((entry, i) => {
    const host =
      typeof entry === 'string' ? parseAllowedHost(entry) : `must be a string, got ${shapeOf(entry)}`;
    if (typeof host === 'string') problems.push({ field: `network[${i}]`, message: host });
    else out.push(host.text);
  });
  return out;
}

function checkPaths(
  value: unknown,
  field: 'read' | 'write',
  home: string,
  force: boolean,
  problems: SandboxProblem[],
): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.push({ field, message: `must be a list of paths, got ${shapeOf(value)}` });
    return undefined;
  }
  const realHome = real(home);
  const out: string[] = [];
  value.forEach((entry, i) => {
    const at = `${field}[${i}]`;
    if (typeof entry !== 'string' || entry === '') {
      problems.push({ field: at, message: `must be a path, got ${shapeOf(entry)}` });
      return;
    }
    const path = entry === '~' ? home : entry.startsWith('~/') ? resolve(home, entry.slice(2)) : entry;
    if (!isAbsolute(path)) {
      problems.push({
        field: at,
        message: `"${entry}" is relative: a grant must be an absolute path (or ~/…)`,
      });
      return;
    }
    if (!existsSync(path)) {
      problems.push({ field: at, message: `"${path}" does not exist (grant an existing folder or file)` });
      return;
    }
    const target = real(resolve(path));
    if (!force && (target === sep || inside(realHome, target))) {
      const what =
        target === sep
          ? 'the whole file system'
          : target === realHome
            ? 'your home folder'
            : `a folder holding your home folder`;
      problems.push({
        field: at,
        message: `"${entry}" is ${what}: that undoes the sandbox (grant the folders the server needs, or set "force": true)`,
      });
      return;
    }
    out.push(resolve(path));
  });
  return out;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // A home folder that does not exist is still the home folder by name.
    return resolve(path);
  }
}

function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}
