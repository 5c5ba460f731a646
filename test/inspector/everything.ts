// The example "everything" server as the inspector's target: over stdio, or started over HTTP (stopped by its pid).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { InspectTarget } from '../../src/inspector/target.js';
import { ROOT } from './chromium.js';

export const EVERYTHING = join(ROOT, 'dist', 'examples', 'everything', 'server.js');

export const STDIO_TARGET: InspectTarget = { kind: 'stdio', command: process.execPath, args: [EVERYTHING] };

/** The example server over HTTP on a free port; `stop` ends it by its own pid. */
export async function everythingOverHttp(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, '--http', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL from the server: ${text}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const m = /Streamable HTTP at (http:\/\/\S+?),/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${text}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      if (child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      await exited;
    },
  };
}
