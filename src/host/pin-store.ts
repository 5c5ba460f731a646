import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorMessage, McpkitError } from '../jsonrpc/errors.js';
import { writeFileAtomic } from './config/write.js';
import type { PinnedDefinition } from './tool-digest.js';

/** A tool's definition as the person first saw or last approved it, and its digest. */
export interface PinnedTool {
  /** `sha256:` and the hex SHA-256 of the definition's canonical JSON. */
  digest: string;
  definition: PinnedDefinition;
  /** When it was pinned (ISO 8601). */
  pinnedAt: string;
}

/**
 * Where a host keeps its tool pins, by server key (the server's name and a digest of its command or URL, see
 * `serverPinKey`) and tool name. Read when a server is first listed; written when a pin is made or replaced.
 */
export interface ToolPinStore {
  /** The pins of one server, by tool name (none: an empty record). */
  load(server: string): Promise<Record<string, PinnedTool>>;
  /** Records the pin of one tool (undefined: forgets it). */
  save(server: string, tool: string, pin: PinnedTool | undefined): Promise<void>;
}

/** Pins kept in memory: for as long as the host runs (the default of a host given no store). */
export class MemoryPinStore implements ToolPinStore {
  readonly #servers = new Map<string, Map<string, PinnedTool>>();

  async load(server: string): Promise<Record<string, PinnedTool>> {
    return Object.fromEntries(this.#servers.get(server) ?? []);
  }

  async save(server: string, tool: string, pin: PinnedTool | undefined): Promise<void> {
    let tools = this.#servers.get(server);
    if (!tools) {
      tools = new Map();
      this.#servers.set(server, tools);
    }
    if (pin === undefined) tools.delete(tool);
    else tools.set(tool, pin);
  }
}

interface PinFile {
  version: 1;
  servers: Record<string, Record<string, PinnedTool>>;
}

/** The writes in progress per file, so the stores of one file in this process write one after another. */
const writing = new Map<string, Promise<void>>();

/**
 * Pins in one JSON file (the CLI's is `tool-pins.json` in the user's config folder): created 0600 in a 0700 folder,
 * replaced atomically. Every write reads the file afresh and changes one tool, so hosts sharing the file keep each
 * other's pins; the writes to one file from this process are serialized (between processes, the last write of the
 * same moment wins).
 */
export class FilePinStore implements ToolPinStore {
  readonly #path: string;

  constructor(path: string) {
    this.#path = path;
  }

  async load(server: string): Promise<Record<string, PinnedTool>> {
    const data = await this.#read();
    return Object.hasOwn(data.servers, server) ? { ...data.servers[server] } : {};
  }

  save(server: string, tool: string, pin: PinnedTool | undefined): Promise<void> {
    const path = this.#path;
    const next = (writing.get(path) ?? Promise.resolve()).then(async () => {
      const data = await this.#read();
      const tools = Object.hasOwn(data.servers, server)
        ? (data.servers[server] as Record<string, PinnedTool>)
        : {};
      if (pin === undefined) delete tools[tool];
      else tools[tool] = pin;
      if (Object.keys(tools).length === 0) delete data.servers[server];
      else data.servers[server] = tools;
      try {
        await mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
        await writeFileAtomic(this.#path, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
      } catch (e) {
        throw new McpkitError(
          'CONFIG_INVALID',
          `Writing the tool pins ${this.#path} failed: ${errorMessage(e)}`,
        );
      }
    });
    // The chain goes on after a failed write; the caller of that write gets its error.
    const settled = next.catch(() => undefined);
    writing.set(path, settled);
    void settled.then(() => {
      if (writing.get(path) === settled) writing.delete(path);
    });
    return next;
  }

  async #read(): Promise<PinFile> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: Object.create(null) };
      throw new McpkitError(
        'CONFIG_INVALID',
        `Reading the tool pins ${this.#path} failed: ${errorMessage(e)}`,
      );
    }
    return parsePins(text, this.#path);
  }
}

/** The file's pins; entries of the wrong shape are dropped (a hand-edited file never crashes the host). */
function parsePins(text: string, path: string): PinFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new McpkitError('CONFIG_INVALID', `The tool pins ${path} are not JSON`);
  }
  const out: PinFile = { version: 1, servers: Object.create(null) };
  const servers = isRecord(value) && isRecord(value.servers) ? value.servers : {};
  for (const [server, tools] of Object.entries(servers)) {
    if (!isRecord(tools)) continue;
    const kept: Record<string, PinnedTool> = Object.create(null);
    for (const [tool, pin] of Object.entries(tools)) {
      const definition = isRecord(pin) ? definitionOf(pin.definition, tool) : undefined;
      if (definition && isRecord(pin) && typeof pin.digest === 'string' && typeof pin.pinnedAt === 'string')
        kept[tool] = { digest: pin.digest, definition, pinnedAt: pin.pinnedAt };
    }
    out.servers[server] = kept;
  }
  return out;
}

/** A stored definition of the tool `name`, its text fields strings; undefined when it is not one. */
function definitionOf(raw: unknown, name: string): PinnedDefinition | undefined {
  if (!isRecord(raw) || raw.name !== name) return undefined;
  const out: PinnedDefinition = { name };
  for (const field of ['title', 'description'] as const) {
    const value = raw[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') return undefined;
    out[field] = value;
  }
  for (const field of ['inputSchema', 'outputSchema', 'annotations'] as const)
    if (raw[field] !== undefined) out[field] = raw[field];
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
