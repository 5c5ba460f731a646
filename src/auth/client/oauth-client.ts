import type * as oauth from 'oauth4webapi';
import { McpkitError } from '../../jsonrpc/errors.js';
import type { FetchLike } from '../../transport/fetch.js';
import type { AuthChallenge, HttpAuthorizer } from '../../transport/http-client/auth-hook.js';
import { bearerChallenge } from './challenge.js';
import { type Discovery, discover } from './discovery.js';
import { authorizationCode, clientCredentials, enterprise, refresh } from './grants.js';
import type { AuthHttp } from './http.js';
import type { OAuthClientOptions } from './options.js';
import { type ResolvedClient, resolveClient } from './registration.js';
import { MemoryTokenStore, type StoredTokens, type TokenStore } from './store.js';
import { canonicalResource, parseUrl } from './urls.js';

const DEFAULT_LEEWAY_SECONDS = 60;
const DEFAULT_TIMEOUT_MS = 30_000;
/** Step-ups for one scope set, across all requests: a server that keeps refusing does not prompt forever. */
const MAX_STEP_UPS = 3;
/** Scope sets tracked at most (a hostile server cannot grow the map without bound). */
const MAX_STEP_UP_KEYS = 64;

/**
 * An OAuth 2.1 client for one MCP server, given to an HTTP client transport as its `auth`: every request
 * carries the current access token (refreshed shortly before it expires); a 401 discovers the server's
 * authorization server and gets a token (refresh, else the configured grant), a 403 `insufficient_scope`
 * asks again with the union of the scopes (the transport retries a request at most three times).
 * Concurrent 401s share one flow. Tokens and secrets never appear in its errors.
 *
 * @example
 * const auth = new OAuthClient({
 *   grant: { type: 'authorization_code', redirectUri: receiver.redirectUri, authorize: (url) => receiver.authorize(url, open) },
 * });
 * await client.connect(new HttpClientTransport('https://mcp.example.com/mcp', { auth }));
 */
export class OAuthClient implements HttpAuthorizer {
  readonly #options: OAuthClientOptions;
  readonly #store: TokenStore;
  readonly #fetch: FetchLike;
  readonly #leewayMs: number;
  readonly #timeoutMs: number;
  /** The MCP server: the canonical form of the first URL a request went to (its tokens' key). */
  #server: URL | undefined;
  #key: string | undefined;
  #loaded: Promise<void> | undefined;
  #tokens: StoredTokens | undefined;
  /** `Bearer <access token>`, built once per token. */
  #bearer: string | undefined;
  #discovery: Discovery | undefined;
  #client: ResolvedClient | undefined;
  /** The scopes of the last authorization: a step-up asks for these and the challenge's. */
  #scope = '';
  #flight: Promise<void> | undefined;
  /** Step-ups run per challenged scope set (sorted, space-separated). */
  readonly #stepUps = new Map<string, number>();

  constructor(options: OAuthClientOptions) {
    this.#options = options;
    this.#store = options.store ?? new MemoryTokenStore();
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#leewayMs = (options.refreshLeewaySeconds ?? DEFAULT_LEEWAY_SECONDS) * 1000;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** The scopes of the current access token (granted, or requested when the server did not say). */
  get scope(): string | undefined {
    return this.#tokens?.scope;
  }

  /** The `Authorization` header for a request: the current access token, refreshed first when it is about to expire. */
  async authorization(url: URL): Promise<string | undefined> {
    await this.#load(url);
    // Bound to the first server it saw: another origin never gets this server's token.
    if (!this.#bound(url)) return undefined;
    if (this.#flight) await this.#flight.catch(() => undefined);
    const tokens = this.#tokens;
    if (tokens === undefined) return undefined;
    if (
      tokens.expiresAt !== undefined &&
      tokens.expiresAt - this.#leewayMs <= Date.now() &&
      tokens.refreshToken
    ) {
      // Best effort: a failed refresh sends the old token, whose 401 then runs the whole flow.
      await this.#once(() => this.#refresh(undefined)).catch(() => undefined);
    }
    return this.#header();
  }

  /** A 401 gets a new token (refresh first); a 403 `insufficient_scope` re-authorizes with more scopes. */
  async unauthorized(challenge: AuthChallenge, signal: AbortSignal | undefined): Promise<boolean> {
    await this.#load(challenge.url);
    if (!this.#bound(challenge.url)) return false;
    const bearer = await bearerChallenge(challenge.headers, challenge.status);
    if (challenge.status === 403 && bearer.error !== 'insufficient_scope') return false;
    if (this.#flight) {
      // Another request is already getting a token: retry with whatever it gets.
      await this.#share(this.#flight, signal);
      return true;
    }
    // A token newer than the refused one is already here (another request renewed it).
    if (
      challenge.status === 401 &&
      challenge.sentAuthorization !== this.#header() &&
      this.#tokens !== undefined
    ) {
      return true;
    }
    if (challenge.status === 403 && !this.#countStepUp(bearer.scope)) return false;
    const metadataUrl = parseUrl(bearer.resourceMetadata, challenge.url);
    const flight = this.#once(async () => {
      if (challenge.status === 401 && this.#tokens?.refreshToken !== undefined) {
        if (
          await this.#refresh(metadataUrl).then(
            () => true,
            () => false,
          )
        )
          return;
      }
      await this.#authorize(metadataUrl, bearer.scope);
    });
    await this.#share(flight, signal);
    return true;
  }

  /** Forgets the tokens of this server (here and in the store). */
  async clear(): Promise<void> {
    this.#setTokens(undefined);
    if (this.#key !== undefined) await this.#store.saveTokens(this.#key, undefined);
  }

  #bound(url: URL): boolean {
    return url.origin === this.#server?.origin;
  }

  /** Counts a step-up for the challenged scopes; false once that set has had {@link MAX_STEP_UPS}. */
  #countStepUp(scope: string | undefined): boolean {
    const key = [...new Set((scope ?? '').split(' ').filter((s) => s !== ''))].sort().join(' ');
    const done = this.#stepUps.get(key) ?? 0;
    if (done >= MAX_STEP_UPS) return false;
    if (!this.#stepUps.has(key) && this.#stepUps.size >= MAX_STEP_UP_KEYS) this.#stepUps.clear();
    this.#stepUps.set(key, done + 1);
    return true;
  }

  #header(): string | undefined {
    const tokens = this.#tokens;
    if (tokens === undefined) return undefined;
    this.#bearer ??= `Bearer ${tokens.accessToken}`;
    return this.#bearer;
  }

  #setTokens(tokens: StoredTokens | undefined): void {
    this.#tokens = tokens;
    this.#bearer = undefined;
  }

  #load(url: URL): Promise<void> {
    if (this.#loaded === undefined) {
      this.#server = canonicalResource(url);
      this.#key = this.#server.href;
      const key = this.#key;
      const loaded = this.#store.loadTokens(key).then((tokens) => {
        if (this.#tokens === undefined) this.#setTokens(tokens);
        if (tokens?.scope !== undefined) this.#scope = tokens.scope;
      });
      this.#loaded = loaded;
      // A store that failed once is asked again by the next request.
      loaded.catch(() => {
        if (this.#loaded === loaded) this.#loaded = undefined;
      });
    }
    return this.#loaded;
  }

  /**
   * Runs `run` unless a flow is already running, and returns the one running. The flow belongs to no single
   * request: it takes no request's signal, so a request that gives up (an era probe's short timeout, a
   * cancelled call) never cancels a sign-in a person is in the middle of, and the next request joins it
   * instead of starting a second one. It is bounded by the HTTP timeout and the grant's own (the loopback
   * receiver's).
   */
  #once(run: () => Promise<void>): Promise<void> {
    if (this.#flight) return this.#flight;
    this.#flight = run().finally(() => {
      this.#flight = undefined;
    });
    return this.#flight;
  }

  /** Waits for the shared `flight`, or until this request's `signal` aborts (the flight goes on for others). */
  #share(flight: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
    if (signal === undefined) return flight;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      flight.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  #http(): AuthHttp {
    return {
      fetch: this.#fetch,
      checkedFetch: this.#options.checkedFetch,
      allowPrivateNetwork: this.#options.allowPrivateNetwork,
      server: this.#serverUrl(),
      timeoutMs: this.#timeoutMs,
    };
  }

  #serverUrl(): URL {
    const server = this.#server;
    if (server === undefined)
      throw new McpkitError('NOT_CONNECTED', 'The OAuth client has not seen a request yet');
    return server;
  }

  async #discover(metadataUrl: URL | undefined): Promise<Discovery> {
    const found = await discover(this.#serverUrl(), metadataUrl, this.#http());
    // Another authorization server: its client identity is another one too (SEP-2352).
    if (this.#discovery?.authorizationServer.issuer !== found.authorizationServer.issuer)
      this.#client = undefined;
    this.#discovery = found;
    return found;
  }

  async #resolve(found: Discovery): Promise<ResolvedClient> {
    this.#client ??= await resolveClient(
      found.authorizationServer,
      this.#options,
      this.#store,
      this.#http(),
      found.mode !== 'metadata',
    );
    return this.#client;
  }

  async #refresh(metadataUrl: URL | undefined): Promise<void> {
    const tokens = this.#tokens;
    if (tokens?.refreshToken === undefined) throw new McpkitError('AUTH_TOKEN_FAILED', 'No refresh token');
    const found =
      this.#discovery !== undefined && metadataUrl === undefined
        ? this.#discovery
        : await this.#discover(metadataUrl);
    // A refresh token is only ever sent to the server that issued it.
    if (found.authorizationServer.issuer !== tokens.issuer) {
      throw new McpkitError('AUTH_TOKEN_FAILED', 'The tokens were issued by another authorization server');
    }
    const who = await this.#resolve(found);
    const response = await refresh(found, who, tokens.refreshToken, this.#http());
    if (response === 'invalid_grant') {
      // The refresh token itself was refused: forget the tokens. Any other failure keeps them.
      if (this.#tokens === tokens) await this.clear();
      throw new McpkitError(
        'AUTH_TOKEN_FAILED',
        `${found.authorizationServer.issuer} refused the refresh token (invalid_grant)`,
      );
    }
    await this.#keep(found, response, tokens.scope ?? '', tokens.refreshToken);
  }

  async #authorize(metadataUrl: URL | undefined, challenged: string | undefined): Promise<void> {
    const found = await this.#discover(metadataUrl);
    const scope = this.#selectScope(found, challenged);
    const who = await this.#resolve(found);
    const http = this.#http();
    const grant = this.#options.grant;
    const response =
      grant.type === 'authorization_code'
        ? await authorizationCode(found, who, grant, scope, http)
        : grant.type === 'client_credentials'
          ? await clientCredentials(found, who, scope, http)
          : await enterprise(found, who, grant, scope, http);
    this.#scope = scope;
    await this.#keep(found, response, scope, undefined);
  }

  /**
   * MCP's scope selection: the challenge's scopes, else the resource's `scopes_supported`, else none; the
   * union with those asked before (a step-up keeps them) and the app's own; `offline_access` for a user
   * sign-in when the authorization server offers it.
   */
  #selectScope(found: Discovery, challenged: string | undefined): string {
    const scopes = new Set<string>();
    const add = (list: string | readonly string[] | undefined) => {
      for (const s of typeof list === 'string' ? list.split(' ') : (list ?? [])) if (s !== '') scopes.add(s);
    };
    add(this.#scope);
    if (challenged !== undefined && challenged.trim() !== '') add(challenged);
    else if (scopes.size === 0) add(found.resourceMetadata?.scopes_supported);
    add(this.#options.scope);
    if (
      this.#options.grant.type === 'authorization_code' &&
      this.#options.offlineAccess !== false &&
      scopes.size > 0 &&
      found.authorizationServer.scopes_supported?.includes('offline_access')
    ) {
      scopes.add('offline_access');
    }
    return [...scopes].join(' ');
  }

  async #keep(
    found: Discovery,
    response: oauth.TokenEndpointResponse,
    requested: string,
    previousRefresh: string | undefined,
  ): Promise<void> {
    if (response.token_type !== 'bearer') {
      throw new McpkitError(
        'AUTH_TOKEN_FAILED',
        `The token endpoint issued a ${JSON.stringify(response.token_type)} token; only Bearer tokens are supported`,
      );
    }
    const refreshToken = response.refresh_token ?? previousRefresh;
    const scope = response.scope ?? requested;
    const tokens: StoredTokens = {
      accessToken: response.access_token,
      tokenType: 'Bearer',
      issuer: found.authorizationServer.issuer,
      ...(refreshToken === undefined ? {} : { refreshToken }),
      ...(response.expires_in === undefined ? {} : { expiresAt: Date.now() + response.expires_in * 1000 }),
      ...(scope === '' ? {} : { scope }),
    };
    this.#setTokens(tokens);
    if (this.#key !== undefined) await this.#store.saveTokens(this.#key, tokens);
  }
}
