// CPU pinning (on by default): the load generator keeps CPU 0 and the servers under test get the others, so the two
// never compete for a core and the scheduler cannot move them around between runs (much less noise on 2 cores).
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import type { ServerCommand } from '../load/stdio.js';

let pinned = false;

/** Pins this process (every thread) to CPU 0; false when taskset is missing or there is a single CPU. */
export function pinLoadGenerator(): boolean {
  if (os.cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
    pinned = true;
  } catch {
    pinned = false;
  }
  return pinned;
}

/**
 * Runs `task` with the load generator free to use every CPU (and servers it spawns meanwhile too, since children
 * inherit the affinity of their parent), pinning it back afterwards: for workloads measured without pinning.
 */
export async function unpinned<T>(task: () => Promise<T>): Promise<T> {
  if (!pinned) return task();
  const all = `0-${os.cpus().length - 1}`;
  execFileSync('taskset', ['-a', '-p', '-c', all, String(process.pid)], { stdio: 'ignore' });
  pinned = false;
  try {
    return await task();
  } finally {
    pinLoadGenerator();
  }
}

/** Whether the load generator is pinned. */
export function isPinned(): boolean {
  return pinned;
}

/**
 * The command wrapped in `taskset` (which execs it, so the pid is the command's own): `server` runs it on the CPUs
 * the load generator does not use; `any` on every CPU (children would otherwise inherit CPU 0 only).
 */
export function onCpus(command: ServerCommand, where: 'server' | 'any'): ServerCommand {
  if (!pinned) return command;
  const last = os.cpus().length - 1;
  const list = where === 'server' ? `1-${last}` : `0-${last}`;
  return { command: 'taskset', args: ['-c', list, command.command, ...command.args] };
}
