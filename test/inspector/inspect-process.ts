// `mcpkit inspect --config FILE --no-open` as a process for the browser tests: started with its own config home,
// its URL read from the first line of its stderr, stopped by its own pid.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { MCPKIT } from '../cli/helpers.js';
import { ROOT } from './chromium.js';

/** A running `mcpkit inspect`. */
export interface InspectProcess {
  url: string;
  /** Its stderr so far. */
  stderr(): string;
  /** SIGTERM to its pid, then waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts `mcpkit inspect --config <config> --no-open` with `XDG_CONFIG_HOME=<home>`; resolves with its URL. */
export async function startInspect(config: string, home: string): Promise<InspectProcess> {
  const child: ChildProcess = spawn(process.execPath, [MCPKIT, 'inspect', '--config', config, '--no-open'], {
    cwd: ROOT,
    env: { ...process.env, XDG_CONFIG_HOME: home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no Inspector line: ${stderr}`)), 30_000);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const m = /^Inspector: (\S+)\n/.exec(stderr);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`mcpkit inspect exited (${code}): ${stderr}`)));
  });
  return {
    url,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null || child.pid === undefined) return;
      const exited = once(child, 'exit');
      process.kill(child.pid, 'SIGTERM');
      await exited;
    },
  };
}
