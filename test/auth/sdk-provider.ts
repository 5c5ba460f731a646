// The official SDK 1.x client's OAuthClientProvider for the tests that run its own OAuth flow, its "browser" the
// oidc-provider fixture's automatic login and consent.
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OidcFixture } from '../fixtures/oidc.js';

/** An OAuthClientProvider whose "browser" is the fixture's automatic login and consent. */
export class FixtureProvider {
  readonly redirectUrl = 'http://127.0.0.1:8976/callback';
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'official sdk test client',
    redirect_uris: ['http://127.0.0.1:8976/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';
  /** The code of the last authorization (or its `error`), and the scope it asked for. */
  code: string | undefined;
  error: string | undefined;
  scopesAsked: string[] = [];
  authorizations = 0;

  /** `refresh`: keep refresh tokens (SDK 1.x then answers a step-up challenge by refreshing, same scopes). */
  constructor(
    readonly as: OidcFixture,
    readonly refresh = true,
  ) {}

  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    const { refresh_token: _dropped, ...rest } = tokens;
    this.#tokens = this.refresh ? tokens : rest;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizations++;
    this.scopesAsked.push(url.searchParams.get('scope') ?? '');
    const back = await this.as.authorize(url);
    this.code = back.searchParams.get('code') ?? undefined;
    this.error = back.searchParams.get('error') ?? undefined;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}
