// Whether this machine can run the sandbox: Linux, Debian's bubblewrap (`bwrap`) and util-linux's `prlimit` on the
// host's PATH. Anywhere else a sandboxed server is refused with a message saying why; it never starts unsandboxed.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { McpkitError } from '../../jsonrpc/errors.js';

/** The programs the sandbox runs. */
export interface SandboxTools {
  bwrap: string;
  prlimit: string;
  /** The shell that places the sandbox in its control groups before it starts (`/bin/sh`). */
  sh: string;
}

/** Where {@link sandboxTools} looks (tests and other platforms name their own). */
export interface SupportOptions {
  platform?: NodeJS.Platform;
  /** The PATH searched; default this process's. */
  path?: string;
}

/**
 * The sandbox's programs on this machine, or a `SANDBOX_UNAVAILABLE` error naming what is missing (the package to
 * install) or the platform that has no sandbox.
 */
export function sandboxTools(options: SupportOptions = {}): SandboxTools {
  const platform = options.platform ?? process.platform;
  if (platform !== 'linux') {
    const native =
      platform === 'darwin'
        ? " (macOS's sandbox-exec is not supported)"
        : platform === 'win32'
          ? ' (Windows has no supported sandbox)'
          : '';
    throw new McpkitError(
      'SANDBOX_UNAVAILABLE',
      `the sandbox is not available on ${platform}${native}: mcpkit sandboxes servers on Linux with bubblewrap; a server configured sandboxed is not started unsandboxed (set "sandbox": false to run it with your full rights)`,
    );
  }
  const path = options.path ?? process.env.PATH ?? '';
  const bwrap = which('bwrap', path);
  if (bwrap === undefined)
    throw new McpkitError(
      'SANDBOX_UNAVAILABLE',
      'bwrap is not installed (not found on PATH): install the bubblewrap package (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)',
    );
  const prlimit = which('prlimit', path);
  if (prlimit === undefined)
    throw new McpkitError(
      'SANDBOX_UNAVAILABLE',
      'prlimit is not installed (not found on PATH): install the util-linux package, which sets the sandbox’s limits',
    );
  const sh = which('sh', path) ?? '/bin/sh';
  return { bwrap, prlimit, sh };
}

/** The executable `name` on `path`, the first found. */
export function which(name: string, path: string): string | undefined {
  if (name.includes('/')) return executable(name) ? name : undefined;
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const full = join(dir, name);
    if (executable(full)) return full;
  }
  return undefined;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    // Not there, or not executable: either way not this one.
    return false;
  }
}
