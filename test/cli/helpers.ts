// Runs the built `mcpkit` command (dist/pkg/cli.js, the package's bin) as a process, as users run it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests run from dist/test/cli). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The bin's file. */
export const MCPKIT = join(ROOT, 'dist/pkg/cli.js');
/** Our example server, built. */
export const EXAMPLE = join(ROOT, 'dist/examples/everything/server.js');
/** The stdio command of the example server, as words after `--`. */
export const EXAMPLE_STDIO = ['--', process.execPath, EXAMPLE];
/** The official reference server (`@modelcontextprotocol/server-everything`), as words after `--`. */
export const OFFICIAL_STDIO = [
  '--',
  process.execPath,
  join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
  'stdio',
];

/** What a run of the command gave. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh config home, so no test reads or writes the user's token file. */
export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'mcpkit-cli-'));
}

/** Runs `mcpkit args…`; resolves when it exits. */
export function mcpkit(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<Run> {
  const home = options.env?.XDG_CONFIG_HOME === undefined ? tempHome() : undefined;
  const child = spawn(process.execPath, [MCPKIT, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...(home === undefined ? {} : { XDG_CONFIG_HOME: home }), ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return collect(child, options.input, options.timeoutMs ?? 60_000);
}

/** Waits for `child` to exit, collecting its output; kills it after `timeoutMs`. */
export function collect(child: ChildProcess, input: string | undefined, timeoutMs: number): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  child.stdin?.end(input ?? '');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mcpkit did not exit within ${timeoutMs} ms; stdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts the example server over HTTP (`--http PORT` plus `extra`); resolves with its URL once it listens. */
export function startExampleHttp(
  extra: readonly string[] = [],
  port = 0,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [EXAMPLE, '--http', String(port), ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const m = /Streamable HTTP at (\S+),/.exec(text);
      if (m?.[1]) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${text}`)));
  });
}

/** Resolves with the first capture of `pattern` once `child`'s stderr shows it (rejects if it exits first). */
export function fromStderr(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const m = pattern.exec(text);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) =>
      reject(new Error(`${child.spawnargs.join(' ')} exited with ${code}: ${text}`)),
    );
  });
}

/** Parses the one JSON document a `--format json` run printed. */
export function json<T>(run: Run): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch (e) {
    throw new Error(`stdout is not one JSON document (${String(e)}):\n${run.stdout}\nstderr: ${run.stderr}`);
  }
}
