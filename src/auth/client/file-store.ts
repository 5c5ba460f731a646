import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorMessage, McpkitError } from '../../jsonrpc/errors.js';
import type { StoredClient, StoredTokens, TokenStore } from './store.js';

interface FileShape {
  tokens: Record<string, StoredTokens>;
  clients: Record<string, StoredClient>;
}

/**
 * A {@link TokenStore} in one JSON file, for command-line and desktop apps: the file is only ever readable by
 * its owner (created 0600, its directory 0700 when created here) and replaced atomically (a temporary file in
 * the same directory, then a rename), so a crash never leaves half a file. Writes are serialized.
 *
 * @example
 * const store = new FileTokenStore(join(homedir(), '.config', 'my-app', 'oauth.json'));
 */
export class FileTokenStore implements TokenStore {
  readonly #path: string;
  #data: Promise<FileShape> | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
  }

  async loadTokens(resource: string): Promise<StoredTokens | undefined> {
    return own((await this.#read()).tokens, resource);
  }

  saveTokens(resource: string, tokens: StoredTokens | undefined): Promise<void> {
    return this.#update((data) => put(data.tokens, resource, tokens));
  }

  async loadClient(issuer: string): Promise<StoredClient | undefined> {
    return own((await this.#read()).clients, issuer);
  }

  saveClient(issuer: string, client: StoredClient | undefined): Promise<void> {
    return this.#update((data) => put(data.clients, issuer, client));
  }

  #read(): Promise<FileShape> {
    if (this.#data !== undefined) return this.#data;
    const data = readFile(this.#path, 'utf8').then(parse, (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return { tokens: {}, clients: {} };
      throw new McpkitError('AUTH_STORE_FAILED', `Reading the token file failed: ${errorMessage(e)}`);
    });
    this.#data = data;
    // A failed read (a file being replaced, a passing I/O error) is tried again by the next call.
    data.catch(() => {
      if (this.#data === data) this.#data = undefined;
    });
    return data;
  }

  #update(change: (data: FileShape) => void): Promise<void> {
    const next = this.#writing.then(async () => {
      const data = await this.#read();
      change(data);
      await this.#write(data);
    });
    // The chain goes on after a failed write; the caller of that write gets its error.
    this.#writing = next.catch(() => undefined);
    return next;
  }

  async #write(data: FileShape): Promise<void> {
    const dir = dirname(this.#path);
    const temp = `${this.#path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = await open(temp, 'wx', 0o600);
      try {
        await file.writeFile(`${JSON.stringify(data, null, 2)}\n`, 'utf8');
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, this.#path);
    } catch (e) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw new McpkitError('AUTH_STORE_FAILED', `Writing the token file failed: ${errorMessage(e)}`);
    }
  }
}

function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function put<T>(record: Record<string, T>, key: string, value: T | undefined): void {
  if (value === undefined) delete record[key];
  else record[key] = value;
}

/** Reads the file; entries of the wrong shape are dropped (a hand-edited file never crashes the client). */
function parse(text: string): FileShape {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new McpkitError('AUTH_STORE_FAILED', 'The token file is not JSON');
  }
  const data: FileShape = { tokens: Object.create(null), clients: Object.create(null) };
  if (!isRecord(value)) return data;
  for (const [key, entry] of Object.entries(isRecord(value.tokens) ? value.tokens : {})) {
    const tokens = isRecord(entry) ? toTokens(entry) : undefined;
    if (tokens !== undefined) data.tokens[key] = tokens;
  }
  for (const [key, entry] of Object.entries(isRecord(value.clients) ? value.clients : {})) {
    const client = isRecord(entry) ? toClient(entry) : undefined;
    if (client !== undefined) data.clients[key] = client;
  }
  return data;
}

function toTokens(e: Record<string, unknown>): StoredTokens | undefined {
  if (typeof e.accessToken !== 'string' || typeof e.issuer !== 'string') return undefined;
  return {
    accessToken: e.accessToken,
    tokenType: typeof e.tokenType === 'string' ? e.tokenType : 'Bearer',
    issuer: e.issuer,
    ...(typeof e.refreshToken === 'string' ? { refreshToken: e.refreshToken } : {}),
    ...(typeof e.expiresAt === 'number' ? { expiresAt: e.expiresAt } : {}),
    ...(typeof e.scope === 'string' ? { scope: e.scope } : {}),
  };
}

function toClient(e: Record<string, unknown>): StoredClient | undefined {
  if (typeof e.clientId !== 'string') return undefined;
  return {
    clientId: e.clientId,
    ...(typeof e.clientSecret === 'string' ? { clientSecret: e.clientSecret } : {}),
    ...(typeof e.tokenEndpointAuthMethod === 'string'
      ? { tokenEndpointAuthMethod: e.tokenEndpointAuthMethod }
      : {}),
    ...(typeof e.secretExpiresAt === 'number' ? { secretExpiresAt: e.secretExpiresAt } : {}),
    ...(typeof e.redirectUri === 'string' ? { redirectUri: e.redirectUri } : {}),
    ...(typeof e.issuer === 'string' ? { issuer: e.issuer } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
