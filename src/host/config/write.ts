import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** How {@link writeFileAtomic} treats the file it replaces. */
export interface AtomicWriteOptions {
  /** Copy the current file to `<file>.bak` first (when it exists). */
  backup?: boolean;
  /** The mode of a new file (an existing file keeps its own, unless `exactMode`). Default 0o644. */
  mode?: number;
  /** Give the file `mode` even when it exists (a file only its owner may change, whatever it was before). */
  exactMode?: boolean;
}

/**
 * Writes `text` to `file` so that a reader sees either the old content or the new, never half of it: the text goes
 * to a temporary file in the same folder, is flushed to disk, and is renamed over the file. Missing folders are
 * created. Resolves with the backup's path when one was made.
 */
export async function writeFileAtomic(
  file: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<string | undefined> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  let mode = options.mode ?? 0o644;
  let backup: string | undefined;
  try {
    const current = (await stat(file)).mode & 0o777;
    if (options.exactMode !== true) mode = current;
    if (options.backup) {
      backup = `${file}.bak`;
      await copyFile(file, backup);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(text, 'utf8');
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
  return backup;
}
