// Which project files the person trusted, by path and by the digest of their bytes, in one small file of the user's
// config folder (0600, replaced atomically): a file that changes is a file to ask about again.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isJsonObject } from '../../jsonrpc/types.js';
import { configDir } from './config-dir.js';
import { ConfigError } from './config-error.js';
import { parseConfigText } from './jsonc.js';
import type { ProjectFile, TrustProjectCallback } from './project.js';
import { writeFileAtomic } from './write.js';

/** A project file's standing: trusted as it is, trusted before it `changed`, or never trusted. */
export type ProjectTrustState = 'trusted' | 'changed' | 'untrusted';

/** Asks the person about a project file (`changed`: a different content of it was trusted before). */
export type AskProjectTrust = (file: ProjectFile, changed: boolean) => boolean | Promise<boolean>;

interface TrustRecord {
  sha256: string;
  trustedAt: string;
}

/** The trust file of this user: `trusted-projects.json` in mcpkit's config folder. */
export function trustedProjectsFile(): string {
  return join(configDir(), 'trusted-projects.json');
}

/**
 * The project files the person trusted, kept in a JSON file (`{ "version": 1, "files": { path: { sha256, trustedAt } } }`,
 * mode 0600). One digest per path: trusting a new content of a file replaces the old one.
 *
 * @example
 * const trust = new ProjectTrust();
 * const config = await loadConfig(knownConfigLocations({ workspaceFolder }).filter(exists), {
 *   workspaceFolder,
 *   trustProject: trust.decider(async (file) => confirm(`Trust ${file.path}?`)),
 * });
 */
export class ProjectTrust {
  /** Where the decisions are kept. */
  readonly file: string;

  constructor(file: string = trustedProjectsFile()) {
    this.file = file;
  }

  /** Whether `path` is trusted with the content whose SHA-256 is `digest`. */
  async state(path: string, digest: string): Promise<ProjectTrustState> {
    const record = (await this.#read())[resolve(path)];
    if (record === undefined) return 'untrusted';
    return record.sha256 === digest ? 'trusted' : 'changed';
  }

  /** Records that the person trusts `path` with the content whose SHA-256 is `digest`. */
  async trust(path: string, digest: string): Promise<void> {
    const files = await this.#read();
    files[resolve(path)] = { sha256: digest, trustedAt: new Date().toISOString() };
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, files }, null, 2)}\n`, {
      mode: 0o600,
      exactMode: true,
    });
  }

  /**
   * A {@link TrustProjectCallback} for `loadConfig`: a file trusted as it is loads; any other is put to `ask`
   * (none: it is skipped), and a yes is recorded.
   */
  decider(ask?: AskProjectTrust): TrustProjectCallback {
    return async (file) => {
      const state = await this.state(file.path, file.digest);
      if (state === 'trusted') return true;
      if (ask === undefined || !(await ask(file, state === 'changed'))) return false;
      await this.trust(file.path, file.digest);
      return true;
    };
  }

  async #read(): Promise<{ [path: string]: TrustRecord }> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new ConfigError({ file: this.file }, `cannot read: ${(e as Error).message}`, { cause: e });
    }
    const root = parseConfigText(text, this.file, false);
    const files = isJsonObject(root) ? root.files : undefined;
    if (!isJsonObject(files))
      throw new ConfigError({ file: this.file }, 'not a trusted-projects file: fix or delete it');
    const out: { [path: string]: TrustRecord } = {};
    for (const [path, record] of Object.entries(files))
      if (isJsonObject(record) && typeof record.sha256 === 'string')
        out[path] = { sha256: record.sha256, trustedAt: String(record.trustedAt ?? '') };
    return out;
  }
}
