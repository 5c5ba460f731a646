// The `mcpkit` commands that keep running (serve, bridge): started as processes, waited for until they say where
// they listen, stopped with SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { MCPKIT, ROOT } from './helpers.js';

/** A running `mcpkit` process and what it has written to stderr so far. */
export interface Running {
  child: ChildProcess;
  /** The first match of the pattern it was waited for. */
  match: RegExpExecArray;
  stderr(): string;
}

/** Starts `mcpkit args…` and resolves once its stderr matches `ready` (rejects if it exits first or takes 30 s). */
export function startMcpkit(
  args: readonly string[],
  ready: RegExp,
  options: { env?: NodeJS.ProcessEnv; cwd?: string; stdin?: 'pipe' | 'ignore' } = {},
): Promise<Running> {
  const child = spawn(process.execPath, [MCPKIT, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mcpkit ${args.join(' ')} was not ready within 30 s:\n${text}`));
    }, 30_000);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const match = ready.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, stderr: () => text });
      }
    });
    child.stdout?.resume();
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mcpkit ${args.join(' ')} exited with ${code}:\n${text}`));
    });
  });
}

/** Stops a process with SIGTERM (SIGKILL after 5 s); resolves with its exit code. */
export function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

/** Waits until `check` returns true (polling every 100 ms), failing after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
