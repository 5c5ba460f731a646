// What the safe preset hides and what it shows of its own accord: the home folders, temporary folders, /run (where
// sockets such as Docker's and D-Bus's live; connecting to a socket works even on a read-only mount) and removable
// media are empty in the sandbox; the server's own program (its package folder) and working folder are readable.
import { closeSync, existsSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, resolve, sep } from 'node:path';
import { inside } from './policy.js';
import { which } from './support.js';

/** Folders that are empty (a fresh tmpfs) in the sandbox unless granted by name. */
export function hiddenFolders(home: string = homedir()): string[] {
  const list = ['/home', '/root', '/tmp', '/var/tmp', '/run', '/mnt', '/media', resolve(home)];
  // A home folder of `/` (some service accounts) is not hidden: that would hide the system.
  return [...new Set(list.filter((p) => p !== sep && existsSync(p)))];
}

/** Files readable by root that the sandbox never shows (bound to /dev/null), and folders it empties. */
export const SECRET_FILES: readonly string[] = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
];
/** Folders of the system holding keys, emptied in the sandbox. */
export const SECRET_FOLDERS: readonly string[] = ['/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d'];

/** Whether `path` is in a hidden folder (so it needs a grant to be seen). */
export function isHidden(path: string, hidden: readonly string[]): boolean {
  return hidden.some((h) => inside(path, h));
}

/**
 * What a server needs to read to start at all: its program's package folder ({@link packageRoot}) and the
 * installation holding it or its interpreter (`…/bin/x`: the folder above `bin`), links followed, and the package
 * folder of each argument naming an existing file (a script). Only paths in hidden folders are returned, never the
 * home folder itself or `/`.
 */
export function programReads(
  command: string,
  args: readonly string[],
  cwd: string,
  path: string,
  hidden: readonly string[],
  home: string = homedir(),
): string[] {
  const out = new Set<string>();
  const add = (p: string | undefined) => {
    // Never a hidden folder as a whole, the home folder or a folder holding it.
    if (p === undefined || hidden.includes(p) || inside(resolve(home), p) || !isHidden(p, hidden)) return;
    out.add(p);
  };
  const found = isAbsolute(command) || command.includes('/') ? resolve(cwd, command) : which(command, path);
  if (found !== undefined) {
    const real = realOf(found);
    add(installationOf(real));
    add(packageRoot(real));
    for (const interpreter of shebangOf(real)) {
      const at = isAbsolute(interpreter) ? interpreter : which(interpreter, path);
      if (at !== undefined) add(installationOf(realOf(at)));
    }
  }
  for (const arg of args) {
    if (arg.startsWith('-')) continue;
    const file = resolve(cwd, arg);
    if (isFile(file)) add(packageRoot(realOf(file)));
  }
  return [...out];
}

/** The folder above a program's `bin` folder (its installation: a Node version, a virtual environment), if it is in one. */
function installationOf(file: string): string | undefined {
  const folder = dirname(file);
  return basename(folder) === 'bin' ? dirname(folder) : undefined;
}

/**
 * The package folder of a file: the folder holding its outermost `node_modules` (the project, or npx's install
 * folder, so its dependencies come too), else the nearest folder with a package manifest, else the file's folder.
 */
export function packageRoot(file: string): string {
  const modules = file.indexOf(`${sep}node_modules${sep}`);
  if (modules > 0) return file.slice(0, modules);
  const start = dirname(file);
  for (let dir = start, i = 0; i < 40; i++) {
    for (const marker of ['package.json', 'pyproject.toml', 'setup.py', 'Cargo.toml', 'go.mod'])
      if (existsSync(resolve(dir, marker))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return start;
}

/** The interpreters of a script's `#!` line (`#!/usr/bin/env node` gives `/usr/bin/env` and `node`). */
function shebangOf(file: string): string[] {
  const head = Buffer.alloc(256);
  let length: number;
  try {
    const fd = openSync(file, 'r');
    try {
      length = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not readable here: it will not run in the sandbox either, and says so itself.
    return [];
  }
  const text = head.toString('latin1', 0, length);
  if (!text.startsWith('#!')) return [];
  const [first, ...rest] = (text.slice(2).split('\n')[0] ?? '').trim().split(/\s+/);
  if (first === undefined || first === '') return [];
  const named = first.endsWith('/env') ? rest.find((w) => !w.startsWith('-')) : undefined;
  return named === undefined ? [first] : [first, named];
}

function realOf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    // A dangling link: the path as given is all there is to grant.
    return file;
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    // Not a file (an option's value, a name): nothing to grant.
    return false;
  }
}
