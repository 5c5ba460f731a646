import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { McpkitError } from '../../jsonrpc/errors.js';
import { MAX_SKILL_BYTES, MAX_SKILL_FILES } from '../../spec/skills.js';
import type { SkillDefinition } from './define.js';

/** Options of {@link loadSkillFolder}. */
export interface SkillFolderOptions {
  /** Where the skill lives in the server's skill namespace (ends with its name). Default: the name alone. */
  path?: string;
}

/**
 * Reads a skill folder (a `SKILL.md` at its root, any files beside and below it) into a {@link SkillDefinition}
 * for `McpServer.skill()`. Names starting with a dot are left out. A symbolic link is followed only to a file
 * inside the folder: one pointing out of it (or to a folder) is an INVALID_DEFINITION, as is a folder over the
 * extension's limits (512 files, 16 MiB).
 */
export async function loadSkillFolder(
  dir: string,
  options: SkillFolderOptions = {},
): Promise<SkillDefinition> {
  let root: string;
  try {
    root = await realpath(dir);
  } catch (e) {
    throw new McpkitError('NOT_FOUND', `Skill folder ${dir}: ${(e as Error).message}`);
  }
  const files: { [path: string]: Uint8Array } = {};
  const budget = { files: 0, bytes: 0 };
  await walk(root, root, files, budget);
  if (files['SKILL.md'] === undefined) throw invalid(dir, 'has no SKILL.md at its root');
  const def: SkillDefinition = { files };
  if (options.path !== undefined) def.path = options.path;
  return def;
}

async function walk(
  root: string,
  dir: string,
  files: { [path: string]: Uint8Array },
  budget: { files: number; bytes: number },
): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    const rel = relative(root, full).split(sep).join('/');
    let file = full;
    if (entry.isSymbolicLink()) {
      const target = await realpath(full).catch(() => undefined);
      if (target === undefined || !inside(root, target))
        throw invalid(root, `the link "${rel}" points outside the skill's folder`);
      if (!(await stat(target)).isFile()) throw invalid(root, `the link "${rel}" does not point to a file`);
      file = target;
    } else if (entry.isDirectory()) {
      await walk(root, full, files, budget);
      continue;
    } else if (!entry.isFile()) continue;
    // Checked again just before reading: the file may have been swapped for a link since it was listed.
    if ((await lstat(file)).isSymbolicLink()) throw invalid(root, `"${rel}" changed while it was read`);
    const bytes = new Uint8Array(await readFile(file));
    budget.files++;
    budget.bytes += bytes.byteLength;
    if (budget.files > MAX_SKILL_FILES) throw invalid(root, `has more than ${MAX_SKILL_FILES} files`);
    if (budget.bytes > MAX_SKILL_BYTES)
      throw invalid(root, `has more than ${MAX_SKILL_BYTES} bytes of files`);
    files[rel] = bytes;
  }
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel);
}

function invalid(dir: string, why: string): McpkitError {
  return new McpkitError('INVALID_DEFINITION', `Skill folder ${dir} ${why}`);
}
