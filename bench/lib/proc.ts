// Reads a process's CPU time and peak memory from /proc (Linux), and stops processes by their own pid.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let clockTicks: number | undefined;

/** Kernel clock ticks per second (USER_HZ), the unit of utime/stime in /proc/<pid>/stat. */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100; // the Linux default
    }
  }
  return clockTicks;
}

/** CPU time (user + system) a live process has used so far, in milliseconds; NaN if it cannot be read. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3; utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / ticksPerSecond();
  } catch {
    return Number.NaN;
  }
}

/** Peak resident set size (VmHWM) of a live process, in KiB; NaN if it cannot be read. */
export function peakRssKiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Read and write system calls a live process has made so far (`syscr`, `syscw` of /proc/<pid>/io); NaN if unreadable. */
export function syscalls(pid: number): { reads: number; writes: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const reads = /^syscr:\s+(\d+)/m.exec(io);
    const writes = /^syscw:\s+(\d+)/m.exec(io);
    return { reads: reads ? Number(reads[1]) : Number.NaN, writes: writes ? Number(writes[1]) : Number.NaN };
  } catch {
    return { reads: Number.NaN, writes: Number.NaN };
  }
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** CPU time the whole machine has been busy (all CPUs, everything but idle and iowait), in milliseconds. */
export function machineBusyMs(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    const ticks = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
    return (ticks * 1000) / ticksPerSecond();
  } catch {
    return Number.NaN;
  }
}

/** CPU time of this process plus its reaped children (every server and worker the harness ran), in milliseconds. */
export function ownTreeCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime are fields 14 to 17.
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    return (ticks * 1000) / ticksPerSecond();
  } catch {
    return Number.NaN;
  }
}

/** Measures how much CPU processes outside the harness used between `start()` and `stop()`, in cores. */
export class ForeignLoad {
  #busy0 = 0;
  #own0 = 0;
  #t0 = 0;

  start(): void {
    this.#busy0 = machineBusyMs();
    this.#own0 = ownTreeCpuMs();
    this.#t0 = performance.now();
  }

  /** Average number of cores other processes kept busy since `start()`. */
  stop(): number {
    const elapsed = performance.now() - this.#t0;
    const foreign = machineBusyMs() - this.#busy0 - (ownTreeCpuMs() - this.#own0);
    return elapsed > 0 ? Math.max(0, foreign / elapsed) : Number.NaN;
  }
}

/**
 * Waits until processes outside the harness keep fewer than `maxCores` cores busy over a `windowMs` window, for at
 * most `maxWaitMs`; resolves to whether such a quiet window was found.
 */
export async function waitForQuiet(maxCores: number, windowMs: number, maxWaitMs: number): Promise<boolean> {
  const deadline = performance.now() + maxWaitMs;
  const probe = new ForeignLoad();
  do {
    probe.start();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    if (probe.stop() < maxCores) return true;
  } while (performance.now() < deadline);
  return false;
}
