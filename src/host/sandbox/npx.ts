// `npx -y package args…` in a sandbox without network: the package is installed first, outside the sandbox and
// visibly (`npm exec --yes --package=…`, npm's own cache and rules), then the sandbox runs the installed program
// directly, its install folder readable, npm itself not involved (npm wants to write its cache even when offline,
// and the cache must stay out of a server's reach). uvx is refused: its offline start is not built.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { McpkitError } from '../../jsonrpc/errors.js';
import { which } from './support.js';

/** An npx command line, understood. */
export interface NpxCommand {
  /** The registry packages to install (`name` or `name@version`). */
  packages: string[];
  /** The program to run (`--package` given), else the first package's own. */
  bin?: string;
  args: string[];
}

/** The program an npx command runs once installed: its file, and the folder holding its installation. */
export interface InstalledProgram {
  command: string;
  args: string[];
  folder: string;
}

const NPM_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(@[^\s/@]+)?$/;
const QUIET_FLAGS = ['-y', '--yes', '-q', '--quiet', '--prefer-offline', '--prefer-online'];

/** Whether `command` is npx (or uvx, refused), by its file name. */
export function launcherOf(command: string): 'npx' | 'uvx' | undefined {
  const name = basename(command).replace(/\.(cmd|exe)$/i, '');
  return name === 'npx' ? 'npx' : name === 'uvx' ? 'uvx' : undefined;
}

/** Reads `npx [options] package args…` (or `npx --package=p … command args…`); a string says what cannot be. */
export function parseNpx(args: readonly string[]): NpxCommand | string {
  const packages: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (QUIET_FLAGS.includes(a)) continue;
    if (a === '-p' || a === '--package') packages.push(args[++i] ?? '');
    else if (a.startsWith('--package=')) packages.push(a.slice('--package='.length));
    else if (a === '--') {
      i++;
      break;
    } else if (a.startsWith('-'))
      return `npx's option ${a} is not understood here: write the command as npx -y PACKAGE ARGS… (or --package=PACKAGE COMMAND ARGS…)`;
    else break;
  }
  const rest = args.slice(i);
  const first = rest[0];
  if (first === undefined) return 'npx is given no package to run';
  const out: NpxCommand =
    packages.length === 0
      ? { packages: [first], args: rest.slice(1) }
      : { packages, bin: first, args: rest.slice(1) };
  for (const p of out.packages)
    if (!NPM_NAME.test(p))
      return `"${p}" is not a registry package (name or name@version): only those are installed before a sandboxed start`;
  return out;
}

/**
 * Installs an npx command's packages outside the sandbox (`npm exec --yes --package=… -- node -e …`, with the
 * server's environment and working folder), then finds the program it would run. `onnotice` hears what happens.
 */
export async function installForSandbox(
  npx: NpxCommand,
  env: Readonly<Record<string, string>>,
  cwd: string,
  onnotice: (text: string) => void,
  signal?: AbortSignal,
): Promise<InstalledProgram> {
  const npm = which('npm', env.PATH ?? process.env.PATH ?? '');
  if (npm === undefined)
    throw new McpkitError(
      'SPAWN_FAILED',
      'npm is not on PATH: it installs the npx package before the sandboxed start',
    );
  const specs = npx.packages.map((p) => `--package=${p}`);
  onnotice(
    `installing ${npx.packages.join(', ')} with npm before the sandboxed start (outside the sandbox, with network)`,
  );
  const printPath = 'process.stdout.write(JSON.stringify(process.env.PATH))';
  const { code, stdout, stderr } = await run(
    npm,
    ['exec', '--yes', ...specs, '--', 'node', '-e', printPath],
    env,
    cwd,
    signal,
  );
  if (code !== 0)
    throw new McpkitError(
      'SPAWN_FAILED',
      `installing ${npx.packages.join(', ')} failed (npm exited with ${code}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`,
    );
  let searchPath: string;
  try {
    searchPath = JSON.parse(stdout) as string;
  } catch {
    throw new McpkitError(
      'SPAWN_FAILED',
      `npm exec printed no PATH (got ${JSON.stringify(stdout.slice(0, 200))})`,
    );
  }
  const name = packageName(npx.packages[0] as string);
  const bins = searchPath
    .split(delimiter)
    .find((d) => d.endsWith(join('node_modules', '.bin')) && existsSync(join(d, '..', name, 'package.json')));
  if (bins === undefined)
    throw new McpkitError('SPAWN_FAILED', `npm installed ${name} but it is not on the PATH npm exec gives`);
  const bin = npx.bin ?? binOf(join(bins, '..', name, 'package.json'), name);
  const command = join(bins, bin);
  if (!existsSync(command))
    throw new McpkitError('SPAWN_FAILED', `${name} has no program "${bin}" (looked in ${bins})`);
  onnotice(`installed: the sandbox runs ${command}`);
  return { command, args: npx.args, folder: dirname(dirname(bins)) };
}

/** A spec's package name (`@scope/name@1.2` gives `@scope/name`). */
function packageName(spec: string): string {
  const at = spec.indexOf('@', 1);
  return at < 0 ? spec : spec.slice(0, at);
}

/** The program npx runs of a package: its only bin, or the bin named like the package. */
function binOf(manifest: string, name: string): string {
  const own = name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name;
  const json = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> };
  if (typeof json.bin === 'string') return own;
  const names = Object.keys(json.bin ?? {});
  if (names.length === 1) return names[0] as string;
  if (names.includes(own)) return own;
  throw new McpkitError(
    'SPAWN_FAILED',
    `${name} has ${names.length === 0 ? 'no programs' : `several programs (${names.join(', ')})`}: give one with npx --package=${name} PROGRAM`,
  );
}

function run(
  command: string,
  args: string[],
  env: Readonly<Record<string, string>>,
  cwd: string,
  signal?: AbortSignal,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env,
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(signal ? { signal } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout = (stdout + c).slice(-1_000_000);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr = (stderr + c).slice(-8192);
    });
    child.once('error', (e) =>
      reject(new McpkitError('SPAWN_FAILED', `cannot run npm: ${e.message}`, { cause: e })),
    );
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
