import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readFile, readlink, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { McpkitError } from '../../jsonrpc/errors.js';

/** How {@link writeFileAtomic} treats the file it replaces. */
export interface AtomicWriteOptions {
  /** Copy the current file to `<file>.bak` first (when it exists), with the file's mode. */
  backup?: boolean;
  /** The mode of a new file (an existing file keeps its own, unless `exactMode`). Default 0o644. */
  mode?: number;
  /** Give the file `mode` even when it exists (a file only its owner may change, whatever it was before). */
  exactMode?: boolean;
}

/**
 * The file a write to `file` lands in: `file` itself, or the file its symbolic links lead to (so a link stays a
 * link). A link leading nowhere, and anything but a regular file, is refused (`CONFIG_INVALID`).
 */
export async function writeTarget(file: string): Promise<string> {
  const info = await lstat(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (info === undefined) return file;
  let target = file;
  if (info.isSymbolicLink()) {
    try {
      target = await realpath(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ELOOP') throw e;
      throw new McpkitError(
        'CONFIG_INVALID',
        `${file} is a symbolic link to ${await readlink(file)}, which leads to no file: remove the link or create its target`,
        { cause: e },
      );
    }
  }
  if (!(await stat(target)).isFile())
    throw new McpkitError('CONFIG_INVALID', `${target} is not a regular file`);
  return target;
}

/**
 * Writes `text` to `file` so that a reader sees either the old content or the new, never half of it: the text goes
 * to a temporary file in the same folder, is flushed to disk, and is renamed over the file. Missing folders are
 * created. A symbolic link is written at its target (the link stays); the backup (`<file>.bak`) and the temporary
 * file never follow a link planted at their names. Resolves with the backup's path when one was made.
 */
export async function writeFileAtomic(
  file: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<string | undefined> {
  const target = await writeTarget(file);
  await mkdir(dirname(target), { recursive: true });
  let mode = options.mode ?? 0o644;
  let previous: Buffer | undefined;
  let previousMode = mode;
  try {
    previousMode = (await stat(target)).mode & 0o777;
    if (options.exactMode !== true) mode = previousMode;
    if (options.backup) previous = await readFile(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  let backup: string | undefined;
  if (previous !== undefined) {
    backup = `${file}.bak`;
    await replaceFile(backup, previous, previousMode);
  }
  await replaceFile(target, text, mode);
  return backup;
}

/**
 * Puts `data` at `file`: written to a new file of a random name beside it (created exclusively, so never through a
 * link), flushed, given `mode` (whatever the umask), then renamed over `file` (which replaces a link, never follows it).
 */
async function replaceFile(file: string, data: string | Uint8Array, mode: number): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode);
    await handle.sync();
  } catch (e) {
    await handle.close();
    await rm(temp, { force: true });
    throw e;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
}
