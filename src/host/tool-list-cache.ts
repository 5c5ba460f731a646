import { createHash } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, McpkitError } from '../jsonrpc/errors.js';
import type { Tool } from '../spec/types.js';
import type { ServerConfig } from './config/types.js';
import { writeFileAtomic } from './config/write.js';
import { canonicalJson } from './tool-digest.js';

/**
 * Where the host keeps each server's last known tool list, so that searches are answered (and a lazy server's tools
 * known) without starting it. Keyed by {@link toolListKey}: a server whose config changes has another key, so an old
 * list is never taken for a new server.
 */
export interface ToolListCache {
  /** The list kept for `key`, or undefined (none, or not readable: the server is then started to know it). */
  load(key: string): Promise<Tool[] | undefined>;
  save(key: string, tools: readonly Tool[]): Promise<void>;
}

/**
 * The key of a server's list: its name and a digest of everything its config says about reaching it (command,
 * arguments, environment, folder; or URL and headers), so any change of those invalidates the list. Secrets in the
 * environment or headers are only digested, never written out.
 */
export function toolListKey(config: ServerConfig): string {
  const digest = createHash('sha256')
    .update(canonicalJson({ name: config.name, transport: config.transport }))
    .digest('hex')
    .slice(0, 32);
  const readable = config.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 40);
  return `${readable}-${digest}`;
}

/** Tool lists in memory, for the host's lifetime (tests, and apps that keep their own). */
export class MemoryToolListCache implements ToolListCache {
  readonly #lists = new Map<string, Tool[]>();

  load(key: string): Promise<Tool[] | undefined> {
    const list = this.#lists.get(key);
    return Promise.resolve(list === undefined ? undefined : structuredClone(list));
  }

  save(key: string, tools: readonly Tool[]): Promise<void> {
    this.#lists.set(key, structuredClone([...tools]));
    return Promise.resolve();
  }
}

/** The largest list file read (a larger one is ignored and the server started to know its tools). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Tool lists as files, one per server key (`<key>.json`, 0600, in a 0700 folder, replaced atomically): the CLI's is
 * the `tool-lists` folder of mcpkit's cache folder. A file that is missing, too large or not a list of tools counts as
 * no list.
 */
export class FileToolListCache implements ToolListCache {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  async load(key: string): Promise<Tool[] | undefined> {
    let text: string;
    try {
      const file = await open(this.#path(key), 'r');
      try {
        const { size } = await file.stat();
        if (size > MAX_FILE_BYTES) return undefined;
        text = await file.readFile('utf8');
      } finally {
        await file.close();
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new McpkitError(
        'CONFIG_INVALID',
        `Reading the tool list ${this.#path(key)} failed: ${errorMessage(e)}`,
      );
    }
    try {
      return toolsOf(JSON.parse(text));
    } catch {
      return undefined;
    }
  }

  async save(key: string, tools: readonly Tool[]): Promise<void> {
    const body = { version: 1, savedAt: new Date().toISOString(), tools };
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.#path(key), `${JSON.stringify(body)}\n`, { mode: 0o600, exactMode: true });
    } catch (e) {
      throw new McpkitError(
        'CONFIG_INVALID',
        `Writing the tool list ${this.#path(key)} failed: ${errorMessage(e)}`,
      );
    }
  }

  #path(key: string): string {
    return join(this.dir, `${key.replace(/[^a-zA-Z0-9_-]/g, '_')}.json`);
  }
}

/** The tools of a stored file, each with a string name and an object input schema; undefined when it is not that. */
function toolsOf(value: unknown): Tool[] | undefined {
  if (!isRecord(value) || value.version !== 1 || !Array.isArray(value.tools)) return undefined;
  const tools: Tool[] = [];
  for (const tool of value.tools) {
    if (!isRecord(tool) || typeof tool.name !== 'string' || !isRecord(tool.inputSchema)) return undefined;
    if (tool.description !== undefined && typeof tool.description !== 'string') return undefined;
    if (tool.title !== undefined && typeof tool.title !== 'string') return undefined;
    tools.push(tool as Tool);
  }
  return tools;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A host's use of its cache: each server's list read once at start, and saved again only when the server lists
 * something else (a digest of the whole list compared), in the background; failures reported, never thrown.
 */
export class KnownToolLists {
  readonly #cache: ToolListCache;
  readonly #onproblem: (server: string, message: string) => void;
  /** The digest of each server's list as last read or saved. */
  readonly #saved = new Map<string, string>();

  constructor(cache: ToolListCache, onproblem: (server: string, message: string) => void) {
    this.#cache = cache;
    this.#onproblem = onproblem;
  }

  /** The list kept for `config`'s server, or undefined (none, or unreadable: reported). */
  async read(config: ServerConfig): Promise<Tool[] | undefined> {
    try {
      const tools = await this.#cache.load(toolListKey(config));
      if (tools !== undefined) this.#saved.set(config.name, listDigest(tools));
      return tools;
    } catch (e) {
      this.#onproblem(config.name, `reading its cached tool list failed: ${errorMessage(e)}`);
      return undefined;
    }
  }

  /** Keeps the list `config`'s server just gave, when it differs from the one kept. */
  save(config: ServerConfig, tools: readonly Tool[]): void {
    const digest = listDigest(tools);
    if (this.#saved.get(config.name) === digest) return;
    this.#saved.set(config.name, digest);
    this.#cache.save(toolListKey(config), tools).catch((e: unknown) => {
      this.#saved.delete(config.name);
      this.#onproblem(config.name, `saving its tool list failed: ${errorMessage(e)}`);
    });
  }
}

function listDigest(tools: readonly Tool[]): string {
  return createHash('sha256').update(canonicalJson(tools)).digest('hex');
}
