import * as oauth from 'oauth4webapi';
import { McpkitError } from '../../jsonrpc/errors.js';
import type { Discovery } from './discovery.js';
import { type AuthHttp, oauthOptions, step } from './http.js';
import type { AuthorizationCodeGrant, EnterpriseGrant } from './options.js';
import type { ResolvedClient } from './registration.js';
import { parseUrl, requireReachable, requireSecure } from './urls.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

/**
 * The authorization code flow with PKCE S256 (refused when the server's metadata does not offer S256),
 * `state`, RFC 8707 `resource` in both requests, and the RFC 9207 `iss` check of the response.
 */
export async function authorizationCode(
  found: Discovery,
  who: ResolvedClient,
  grant: AuthorizationCodeGrant,
  scope: string,
  http: AuthHttp,
): Promise<oauth.TokenEndpointResponse> {
  const as = found.authorizationServer;
  // Metadata that does not list S256 means no PKCE: MCP requires refusing. Only the 2025-03-26 default
  // endpoints (no metadata at all) are used without that promise.
  if (found.mode !== 'legacy-defaults' && !as.code_challenge_methods_supported?.includes('S256')) {
    throw new McpkitError(
      'AUTH_UNSUPPORTED',
      `${as.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported), which MCP requires: refused`,
    );
  }
  const endpoint = parseUrl(as.authorization_endpoint);
  if (endpoint === undefined) {
    throw new McpkitError('AUTH_DISCOVERY_FAILED', `${as.issuer} names no valid authorization endpoint`);
  }
  // The browser opens it, not this client, but it came from discovery like the rest: the same rule.
  requireReachable(endpoint, 'authorization endpoint', http);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(endpoint.href);
  const query = url.searchParams;
  query.set('response_type', 'code');
  query.set('client_id', who.client.client_id);
  query.set('redirect_uri', grant.redirectUri);
  query.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  query.set('code_challenge_method', 'S256');
  query.set('state', state);
  query.set('resource', found.resource.href);
  if (scope !== '') query.set('scope', scope);
  let returned: URL | URLSearchParams | string;
  try {
    returned = await grant.authorize(url, http.signal);
  } catch (e) {
    if (e instanceof McpkitError) throw e;
    throw new McpkitError(
      'AUTH_AUTHORIZATION_FAILED',
      `The user's authorization did not complete: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const params = callbackParams(returned);
  // state, then iss (RFC 9207: compared as strings, required when the server advertises it), then error.
  const checked = await step(
    'AUTH_AUTHORIZATION_FAILED',
    `The authorization response from ${as.issuer}`,
    async () => oauth.validateAuthResponse(as, who.client, params, state),
  );
  const response = await step('AUTH_TOKEN_FAILED', `The token request to ${as.issuer}`, () =>
    oauth.authorizationCodeGrantRequest(as, who.client, who.auth, checked, grant.redirectUri, verifier, {
      additionalParameters: { resource: found.resource.href },
      ...oauthOptions(http, as.token_endpoint, 'token endpoint'),
    }),
  );
  return step('AUTH_TOKEN_FAILED', `The token response of ${as.issuer}`, () =>
    oauth.processAuthorizationCodeResponse(as, who.client, response),
  );
}

function callbackParams(returned: URL | URLSearchParams | string): URLSearchParams {
  if (returned instanceof URLSearchParams) return returned;
  if (returned instanceof URL) return returned.searchParams;
  if (URL.canParse(returned)) return new URL(returned).searchParams;
  return new URLSearchParams(returned.startsWith('?') ? returned.slice(1) : returned);
}

/**
 * A refresh token grant (with `resource`). Resolves `invalid_grant` when the authorization server refuses the
 * refresh token itself (expired, revoked): only then are the tokens worth forgetting; any other failure
 * (network, 5xx, time limit) throws and the tokens are kept.
 */
export async function refresh(
  found: Discovery,
  who: ResolvedClient,
  refreshToken: string,
  http: AuthHttp,
): Promise<oauth.TokenEndpointResponse | 'invalid_grant'> {
  const as = found.authorizationServer;
  const response = await step('AUTH_TOKEN_FAILED', `The refresh request to ${as.issuer}`, () =>
    oauth.refreshTokenGrantRequest(as, who.client, who.auth, refreshToken, {
      additionalParameters: { resource: found.resource.href },
      ...oauthOptions(http, as.token_endpoint, 'token endpoint'),
    }),
  );
  return step('AUTH_TOKEN_FAILED', `The refresh response of ${as.issuer}`, async () => {
    try {
      return await oauth.processRefreshTokenResponse(as, who.client, response);
    } catch (e) {
      if (e instanceof oauth.ResponseBodyError && e.error === 'invalid_grant') return 'invalid_grant';
      throw e;
    }
  });
}

/** The client-credentials grant (with `resource`, and `scope` when there is one). */
export async function clientCredentials(
  found: Discovery,
  who: ResolvedClient,
  scope: string,
  http: AuthHttp,
): Promise<oauth.TokenEndpointResponse> {
  const as = found.authorizationServer;
  const parameters: Record<string, string> = { resource: found.resource.href };
  if (scope !== '') parameters.scope = scope;
  const response = await step('AUTH_TOKEN_FAILED', `The client-credentials request to ${as.issuer}`, () =>
    oauth.clientCredentialsGrantRequest(
      as,
      who.client,
      who.auth,
      parameters,
      oauthOptions(http, as.token_endpoint, 'token endpoint'),
    ),
  );
  return step('AUTH_TOKEN_FAILED', `The client-credentials response of ${as.issuer}`, () =>
    oauth.processClientCredentialsResponse(as, who.client, response),
  );
}

/**
 * The enterprise-managed flow: the ID token is exchanged at the IdP for an ID-JAG whose audience is the
 * MCP server's authorization server (RFC 8693), then the ID-JAG is a JWT bearer grant there (RFC 7523).
 */
export async function enterprise(
  found: Discovery,
  who: ResolvedClient,
  grant: EnterpriseGrant,
  scope: string,
  http: AuthHttp,
): Promise<oauth.TokenEndpointResponse> {
  const as = found.authorizationServer;
  const idp = grant.idp;
  const tokenEndpoint = parseUrl(idp.tokenEndpoint);
  if (tokenEndpoint === undefined)
    throw new McpkitError('AUTH_TOKEN_FAILED', 'The IdP token endpoint is not a URL');
  requireSecure(tokenEndpoint, 'IdP token endpoint', http.server);
  // The app configured the IdP (often on its own network), no server named it: only the scheme rule applies.
  const idpHttp: AuthHttp = { ...http, allowPrivateNetwork: true };
  const idpServer: oauth.AuthorizationServer = {
    issuer: idp.issuer ?? tokenEndpoint.origin,
    token_endpoint: tokenEndpoint.href,
  };
  const idpClient: oauth.Client = { client_id: idp.clientId };
  const idpAuth = idp.clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(idp.clientSecret);
  const idToken = typeof idp.idToken === 'string' ? idp.idToken : await idp.idToken();
  const exchange: Record<string, string> = {
    requested_token_type: ID_JAG,
    subject_token: idToken,
    subject_token_type: ID_TOKEN,
    audience: as.issuer,
    resource: found.resource.href,
  };
  if (scope !== '') exchange.scope = scope;
  const exchanged = await step(
    'AUTH_TOKEN_FAILED',
    `The token exchange at the IdP ${idpServer.issuer}`,
    async () =>
      oauth.processGenericTokenEndpointResponse(
        idpServer,
        idpClient,
        await oauth.genericTokenEndpointRequest(
          idpServer,
          idpClient,
          idpAuth,
          TOKEN_EXCHANGE,
          exchange,
          oauthOptions(idpHttp, tokenEndpoint, 'IdP token endpoint'),
        ),
        // An ID-JAG is no access token: its token_type is N_A.
        { recognizedTokenTypes: { n_a: () => undefined } },
      ),
  );
  if (exchanged.issued_token_type !== ID_JAG) {
    throw new McpkitError(
      'AUTH_TOKEN_FAILED',
      `The IdP ${idpServer.issuer} did not issue an ID-JAG (issued_token_type ${JSON.stringify(exchanged.issued_token_type)})`,
    );
  }
  const bearer: Record<string, string> = { assertion: exchanged.access_token, resource: found.resource.href };
  if (scope !== '') bearer.scope = scope;
  return step('AUTH_TOKEN_FAILED', `The JWT bearer grant at ${as.issuer}`, async () =>
    oauth.processGenericTokenEndpointResponse(
      as,
      who.client,
      await oauth.genericTokenEndpointRequest(
        as,
        who.client,
        who.auth,
        JWT_BEARER,
        bearer,
        oauthOptions(http, as.token_endpoint, 'token endpoint'),
      ),
    ),
  );
}
