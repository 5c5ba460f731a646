// Control groups for one sandbox, made under the host's own (cgroup v2, or v1's pids and memory hierarchies) where
// the host may write there: a process count and a memory limit for the whole sandbox (tmpfs files and every process
// included), and counters that tell when either was hit. Root ignores RLIMIT_NPROC, so there it is the only way to
// stop a fork bomb; its memory limit replaces the per-process RLIMIT_DATA, which counts reserved memory too.
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The control groups of one sandbox: where the sandbox's first process puts itself, and what was hit. */
export interface SandboxCgroups {
  /** The `cgroup.procs` files a process joins (one per hierarchy). */
  procs: string[];
  /** What limits they set: `processes`, `memory`. */
  limits: ('processes' | 'memory')[];
  /** How often a fork was refused, and how often a process was killed for memory, so far. */
  counters(): { forksRefused: number; oomKills: number };
  /** Removes the groups once their processes are gone (bounded retries); false if one is still busy. */
  remove(): Promise<boolean>;
}

interface Mount {
  version: 1 | 2;
  root: string;
  controllers: string[];
}

let counter = 0;

/**
 * Makes the control groups of a sandbox with these limits, or undefined where the host cannot (no writable
 * hierarchy with the controllers, or a v2 group that holds processes and cannot delegate them).
 */
export function createSandboxCgroups(limits: {
  processes: number;
  memoryMb: number;
}): SandboxCgroups | undefined {
  const mounts = cgroupMounts();
  const own = ownCgroups();
  const name = `mcpkit-sandbox-${process.pid}-${++counter}`;
  const made: { dir: string; version: 1 | 2; controllers: string[] }[] = [];
  try {
    const v2 = mounts.find((m) => m.version === 2);
    const v2Path = own.get('');
    if (v2 && v2Path !== undefined) {
      const parent = join(v2.root, v2Path);
      const wanted = ['pids', 'memory'].filter((c) => available(parent).includes(c));
      if (wanted.length > 0 && delegate(parent, wanted)) {
        const dir = join(parent, name);
        mkdirSync(dir);
        made.push({ dir, version: 2, controllers: wanted });
      }
    }
    for (const controller of ['pids', 'memory']) {
      if (made.some((m) => m.controllers.includes(controller))) continue;
      const v1 = mounts.find((m) => m.version === 1 && m.controllers.includes(controller));
      const path = [...own.entries()].find(([k]) => k.split(',').includes(controller))?.[1];
      if (!v1 || path === undefined) continue;
      const dir = join(v1.root, path, name);
      mkdirSync(dir);
      made.push({ dir, version: 1, controllers: [controller] });
    }
    for (const m of made) {
      if (m.controllers.includes('pids')) writeFileSync(join(m.dir, 'pids.max'), String(limits.processes));
      if (m.controllers.includes('memory')) {
        const bytes = String(limits.memoryMb * 1024 * 1024);
        writeFileSync(join(m.dir, m.version === 2 ? 'memory.max' : 'memory.limit_in_bytes'), bytes);
        if (m.version === 2) tryWrite(join(m.dir, 'memory.swap.max'), '0');
      }
    }
  } catch (e) {
    // Not writable here (permissions, a read-only mount): no groups, and none left behind.
    for (const m of made) tryRmdir(m.dir);
    if (isDenied(e)) return undefined;
    throw e;
  }
  if (made.length === 0) return undefined;
  const has = (c: string) => made.find((m) => m.controllers.includes(c));
  const pids = has('pids');
  const memory = has('memory');
  return {
    procs: made.map((m) => join(m.dir, 'cgroup.procs')),
    limits: [...(pids ? (['processes'] as const) : []), ...(memory ? (['memory'] as const) : [])],
    counters: () => ({
      forksRefused: pids ? counterIn(join(pids.dir, 'pids.events'), 'max') : 0,
      oomKills: memory
        ? counterIn(
            join(memory.dir, memory.version === 2 ? 'memory.events' : 'memory.oom_control'),
            'oom_kill',
          )
        : 0,
    }),
    remove: async () => {
      let all = true;
      for (const m of made) {
        let gone = tryRmdir(m.dir);
        // The pid namespace dies with bwrap; its processes may take a moment to be reaped.
        for (let i = 0; i < 40 && !gone; i++) {
          await new Promise((r) => setTimeout(r, 50));
          gone = tryRmdir(m.dir);
        }
        all &&= gone;
      }
      return all;
    },
  };
}

/** The cgroup file systems mounted here (from /proc/self/mountinfo). */
function cgroupMounts(): Mount[] {
  const out: Mount[] = [];
  for (const line of readLines('/proc/self/mountinfo')) {
    const [before, after] = line.split(' - ');
    if (before === undefined || after === undefined) continue;
    const [fstype, , superOptions = ''] = after.split(' ');
    const root = before.split(' ')[4];
    if (root === undefined) continue;
    if (fstype === 'cgroup2') out.push({ version: 2, root, controllers: [] });
    else if (fstype === 'cgroup') out.push({ version: 1, root, controllers: superOptions.split(',') });
  }
  return out;
}

/** This process's group in each hierarchy: controllers (`''` for v2) to path (from /proc/self/cgroup). */
function ownCgroups(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readLines('/proc/self/cgroup')) {
    const first = line.indexOf(':');
    const second = line.indexOf(':', first + 1);
    if (first < 0 || second < 0) continue;
    out.set(line.slice(first + 1, second), line.slice(second + 1));
  }
  return out;
}

function available(dir: string): string[] {
  return readLines(join(dir, 'cgroup.controllers')).join(' ').split(/\s+/).filter(Boolean);
}

/** Enables `controllers` for the children of `dir` (v2); false when a group holding processes refuses it. */
function delegate(dir: string, controllers: string[]): boolean {
  const enabled = readLines(join(dir, 'cgroup.subtree_control')).join(' ').split(/\s+/);
  const missing = controllers.filter((c) => !enabled.includes(c));
  if (missing.length === 0) return true;
  return tryWrite(join(dir, 'cgroup.subtree_control'), missing.map((c) => `+${c}`).join(' '));
}

function counterIn(file: string, key: string): number {
  for (const line of readLines(file)) {
    const [k, v] = line.split(/\s+/);
    if (k === key) return Number(v) || 0;
  }
  return 0;
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch (e) {
    // A hierarchy without this file (or a group already removed) has nothing to say.
    if (isDenied(e)) return [];
    throw e;
  }
}

function tryWrite(file: string, text: string): boolean {
  try {
    writeFileSync(file, text);
    return true;
  } catch (e) {
    if (isDenied(e)) return false;
    throw e;
  }
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    if ((e as NodeJS.ErrnoException).code === 'EBUSY' || isDenied(e)) return false;
    throw e;
  }
}

function isDenied(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return ['EACCES', 'EPERM', 'EROFS', 'ENOENT', 'EBUSY', 'EINVAL', 'ENOTSUP', 'EOPNOTSUPP'].includes(
    code ?? '',
  );
}
