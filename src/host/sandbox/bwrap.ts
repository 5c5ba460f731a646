// The bubblewrap command line of a sandboxed server: every namespace new (user, pid, ipc, uts, cgroup, and network
// unless the host's network is granted), no capabilities, nested user namespaces refused, a new session (no typing
// into the host's terminal), the system read-only, the hidden folders empty, the grants bound on top (deeper paths
// after shallower ones, so a read grant inside a write grant stays read-only), and prlimit setting the per-process
// limits inside the user namespace (where RLIMIT_NPROC counts the sandbox's processes only). Memory is limited by the
// sandbox's memory control group where there is one (it counts memory used); RLIMIT_DATA, which also counts memory a
// runtime only reserves (Node 24 reserves about 600 MB at start), is the limit only where there is no such group.
import { existsSync, realpathSync } from 'node:fs';
import { sep } from 'node:path';
import { SECRET_FILES, SECRET_FOLDERS } from './paths.js';
import type { SandboxPolicy } from './policy.js';
import type { SandboxTools } from './support.js';

/** Where the filtering proxy's socket appears inside the sandbox. */
export const PROXY_SOCKET_INSIDE = '/run/mcpkit/proxy.sock';

/** Everything the command line is made of. */
export interface BwrapPlan {
  tools: SandboxTools;
  policy: SandboxPolicy;
  command: string;
  args: readonly string[];
  cwd?: string | undefined;
  /** Folders emptied (tmpfs). */
  hidden: readonly string[];
  /** Paths readable besides the policy's (the server's program and working folder). */
  reads: readonly string[];
  /** The host's end of the filtering proxy, bound into the sandbox, and the words that start the forwarder. */
  proxy?: { socket: string; forwarder: readonly string[] } | undefined;
  /** True when a memory control group holds the sandbox to `policy.memoryMb`: no per-process data limit then. */
  memoryByGroup?: boolean | undefined;
}

/** The bwrap arguments (after `bwrap`) that run `plan.command` sandboxed. */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const { policy } = plan;
  const out = ['--unshare-all'];
  if (policy.network === 'host') out.push('--share-net');
  out.push('--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  const tmpfsBytes = String(policy.memoryMb * 1024 * 1024);
  // /dev's own tmpfs has no size: shared memory gets one of its own, bounded like the other writable folders.
  out.push(
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--size',
    tmpfsBytes,
    '--tmpfs',
    '/dev/shm',
    '--proc',
    '/proc',
  );
  // Outer folders first: the home folder may be inside another hidden one (/home), and must still exist.
  for (const folder of byDepth(plan.hidden)) out.push('--size', tmpfsBytes, '--tmpfs', folder);
  for (const file of SECRET_FILES) if (existsSync(file)) out.push('--ro-bind', '/dev/null', file);
  for (const folder of SECRET_FOLDERS)
    if (existsSync(folder)) out.push('--tmpfs', folder, '--remount-ro', folder);
  if (policy.network === 'host') {
    // /etc/resolv.conf often points into /run (systemd-resolved), which is hidden.
    const resolver = realOf('/etc/resolv.conf');
    if (resolver !== '/etc/resolv.conf') out.push('--ro-bind-try', resolver, resolver);
  }
  for (const [path, mode] of mounts(plan))
    out.push(mode === 'write' ? '--bind' : '--ro-bind', realOf(path), path);
  if (plan.proxy) out.push('--bind', plan.proxy.socket, PROXY_SOCKET_INSIDE);
  if (plan.cwd !== undefined) out.push('--chdir', plan.cwd);
  out.push(
    '--',
    plan.tools.prlimit,
    ...rlimits(policy, plan.memoryByGroup === true),
    '--',
    ...(plan.proxy?.forwarder ?? []),
  );
  out.push(plan.command, ...plan.args);
  return out;
}

/**
 * prlimit's options for the policy: processes, data (memory) per process unless a memory control group limits the
 * sandbox, CPU seconds, no core files.
 */
export function rlimits(policy: SandboxPolicy, memoryByGroup: boolean): string[] {
  const out = [`--nproc=${policy.processes}`, '--core=0'];
  if (!memoryByGroup) out.push(`--data=${policy.memoryMb * 1024 * 1024}`);
  // SIGXCPU at the limit (it says why), SIGKILL a second later for a process that ignores it.
  if (policy.cpuSeconds !== undefined) out.push(`--cpu=${policy.cpuSeconds}:${policy.cpuSeconds + 1}`);
  return out;
}

/** The grants in mount order: shallower first; a path both read and written is written. */
function mounts(plan: BwrapPlan): [string, 'read' | 'write'][] {
  const byPath = new Map<string, 'read' | 'write'>();
  for (const p of [...plan.reads, ...plan.policy.read]) byPath.set(p, 'read');
  for (const p of plan.policy.write) byPath.set(p, 'write');
  const depth = (p: string) => p.split(sep).length;
  return [...byPath].sort(([a], [b]) => depth(a) - depth(b) || a.localeCompare(b));
}

/** The folders, each once, shallower first. */
function byDepth(folders: readonly string[]): string[] {
  return [...new Set(folders)].sort(
    (a, b) => a.split(sep).length - b.split(sep).length || a.localeCompare(b),
  );
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Checked to exist when granted; gone since, bwrap says so when it starts.
    return path;
  }
}
