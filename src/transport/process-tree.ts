// The global `process`, not an import of node:process: importing it makes Node build a module facade that reads every
// property of \`process\` (stdio streams, allowedNodeEnvironmentFlags, report...), which costs a server's start.

/** The signals the stdio client uses to stop a server: politely, then forcibly. */
export type StopSignal = 'SIGTERM' | 'SIGKILL';

/** True on Windows, where there are no process groups or signals and `taskkill /T` stops a tree. */
export const isWindows: boolean = process.platform === 'win32';

/** Signals the process tree of a child spawned `detached` (its POSIX process group; `taskkill /T /F` on Windows), resolving `false` when nothing was left. */
export function killProcessTree(pid: number, signal: StopSignal): Promise<boolean> {
  if (isWindows) return taskkill(pid);
  try {
    process.kill(-pid, signal);
    return Promise.resolve(true);
  } catch (error) {
    if (isErrno(error, 'ESRCH')) return Promise.resolve(false);
    return Promise.reject(error);
  }
}

async function taskkill(pid: number): Promise<boolean> {
  // Loaded here, not with the package (as in stdio-client.ts): only Windows stops a tree this way.
  const { spawn } = await import('node:child_process');
  return new Promise<boolean>((resolve, reject) => {
    const killer = spawn('taskkill', ['/T', '/F', '/PID', String(pid)], {
      stdio: 'ignore',
      windowsHide: true,
    });
    killer.once('error', reject);
    // taskkill exits with 128 when the process is already gone.
    killer.once('exit', (code) => resolve(code === 0));
  });
}

/** True when `error` is a Node system error with the given `code` (such as `ESRCH`). */
export function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
