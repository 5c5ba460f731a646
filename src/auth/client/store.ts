/** Tokens for one MCP server (keyed by its resource URI), as a {@link TokenStore} keeps them. */
export interface StoredTokens {
  readonly accessToken: string;
  /** Usually `Bearer`. */
  readonly tokenType: string;
  readonly refreshToken?: string;
  /** When the access token expires, in ms since the epoch. */
  readonly expiresAt?: number;
  /** The scopes granted (or, when the server did not say, requested). */
  readonly scope?: string;
  /** The issuer of the authorization server that issued them: they are never sent after another one's. */
  readonly issuer: string;
}

/** Client credentials an authorization server issued (dynamic registration), kept per issuer. */
export interface StoredClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly tokenEndpointAuthMethod?: string;
  /** When the secret expires, in ms since the epoch (absent: it does not). */
  readonly secretExpiresAt?: number;
  /** The redirect URI it was registered with: a client registered for another one is registered again. */
  readonly redirectUri?: string;
  /** For pre-registered credentials without an issuer: the authorization server they were first used with (pinned). */
  readonly issuer?: string;
}

/**
 * Where an OAuth client keeps tokens (keyed by the MCP server's resource URI) and registrations (keyed by
 * the authorization server's issuer, never shared between issuers). Saving undefined deletes.
 */
export interface TokenStore {
  loadTokens(resource: string): Promise<StoredTokens | undefined>;
  saveTokens(resource: string, tokens: StoredTokens | undefined): Promise<void>;
  loadClient(issuer: string): Promise<StoredClient | undefined>;
  saveClient(issuer: string, client: StoredClient | undefined): Promise<void>;
}

/** The default {@link TokenStore}: in memory, gone with the process. */
export class MemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, StoredTokens>();
  readonly #clients = new Map<string, StoredClient>();

  async loadTokens(resource: string): Promise<StoredTokens | undefined> {
    return this.#tokens.get(resource);
  }

  async saveTokens(resource: string, tokens: StoredTokens | undefined): Promise<void> {
    if (tokens === undefined) this.#tokens.delete(resource);
    else this.#tokens.set(resource, tokens);
  }

  async loadClient(issuer: string): Promise<StoredClient | undefined> {
    return this.#clients.get(issuer);
  }

  async saveClient(issuer: string, client: StoredClient | undefined): Promise<void> {
    if (client === undefined) this.#clients.delete(issuer);
    else this.#clients.set(issuer, client);
  }
}
