import { importPKCS8 } from 'jose';
import * as oauth from 'oauth4webapi';
import { McpkitError } from '../../jsonrpc/errors.js';
import { type AuthHttp, oauthOptions, step } from './http.js';
import type { ClientCredentials, OAuthClientOptions, TokenEndpointAuthMethod } from './options.js';
import type { StoredClient, TokenStore } from './store.js';
import { isLoopback, parseUrl } from './urls.js';

/** The client as oauth4webapi needs it for one authorization server: who it is and how it authenticates. */
export interface ResolvedClient {
  readonly client: oauth.Client;
  readonly auth: oauth.ClientAuth;
  /** How the identity was obtained. */
  readonly source: 'pre-registered' | 'metadata-document' | 'stored' | 'registered';
}

/**
 * Finds this client's identity at `as`, in MCP's order: pre-registered credentials, then the Client ID
 * Metadata Document when the server supports it (user sign-in only), then a registration stored for this
 * issuer, then dynamic registration (which is stored, keyed by the issuer).
 */
export async function resolveClient(
  as: oauth.AuthorizationServer,
  options: OAuthClientOptions,
  store: TokenStore,
  http: AuthHttp,
  fallback = false,
): Promise<ResolvedClient> {
  const given =
    typeof options.credentials === 'function' ? options.credentials(as.issuer) : options.credentials;
  if (given !== undefined) {
    await checkIssuer(given, as.issuer, store, fallback);
    return { ...(await fromCredentials(given, as)), source: 'pre-registered' };
  }
  const grant = options.grant;
  if (grant.type !== 'authorization_code') {
    throw new McpkitError(
      'AUTH_REGISTRATION_FAILED',
      `The ${grant.type === 'enterprise' ? 'enterprise-managed' : 'client-credentials'} grant needs pre-registered credentials for ${as.issuer}`,
    );
  }
  if (options.clientMetadataUrl !== undefined && as.client_id_metadata_document_supported === true) {
    return {
      client: { client_id: options.clientMetadataUrl },
      auth: oauth.None(),
      source: 'metadata-document',
    };
  }
  const stored = await store.loadClient(as.issuer);
  if (stored !== undefined && usable(stored, grant.redirectUri)) {
    return { ...(await fromCredentials(toCredentials(stored), as)), source: 'stored' };
  }
  if (as.registration_endpoint === undefined) {
    throw new McpkitError(
      'AUTH_REGISTRATION_FAILED',
      `${as.issuer} offers no dynamic registration and no Client ID Metadata Document support, and no credentials were given for it`,
    );
  }
  const registered = await register(as, options, grant.redirectUri, http);
  await store.saveClient(as.issuer, registered);
  return { ...(await fromCredentials(toCredentials(registered), as)), source: 'registered' };
}

/** The store key under which the issuer that pre-registered credentials were first used with is pinned. */
export function pinKey(clientId: string): string {
  return `pre-registered:${clientId}`;
}

/**
 * Pre-registered credentials go to one authorization server only: the `issuer` given with them, else the
 * first one they were used with (pinned in the store; any other one afterwards is refused). A secret or a
 * private key is never sent in the 2025-03-26 fallback (the issuer is then the MCP server's own origin)
 * unless `issuer` names it explicitly.
 */
async function checkIssuer(
  given: ClientCredentials,
  issuer: string,
  store: TokenStore,
  fallback: boolean,
): Promise<void> {
  const refuse = (why: string) => {
    throw new McpkitError(
      'AUTH_REGISTRATION_FAILED',
      `The pre-registered client ${JSON.stringify(given.clientId)} ${why}: credentials are never sent to another authorization server`,
    );
  };
  if (given.issuer !== undefined) {
    if (given.issuer !== issuer) refuse(`belongs to ${given.issuer}, not to ${issuer}`);
    return;
  }
  const key = pinKey(given.clientId);
  const pinned = (await store.loadClient(key))?.issuer;
  if (pinned !== undefined) {
    if (pinned !== issuer) refuse(`was first used with ${pinned}, not with ${issuer}`);
    return;
  }
  if (fallback && (given.clientSecret !== undefined || given.privateKey !== undefined)) {
    refuse(
      `has a secret or key but no issuer, and ${issuer} was only assumed from the MCP server's origin (2025-03-26 fallback): set the credentials' issuer to use it there`,
    );
  }
  await store.saveClient(key, { clientId: given.clientId, issuer });
}

function usable(stored: StoredClient, redirectUri: string): boolean {
  if (stored.redirectUri !== undefined && stored.redirectUri !== redirectUri) return false;
  return stored.secretExpiresAt === undefined || stored.secretExpiresAt > Date.now() + 60_000;
}

function toCredentials(stored: StoredClient): ClientCredentials {
  return {
    clientId: stored.clientId,
    ...(stored.clientSecret === undefined ? {} : { clientSecret: stored.clientSecret }),
    ...(isMethod(stored.tokenEndpointAuthMethod)
      ? { tokenEndpointAuthMethod: stored.tokenEndpointAuthMethod }
      : {}),
  };
}

/** RFC 7591 registration of a public or confidential client with the grants MCP uses. */
async function register(
  as: oauth.AuthorizationServer,
  options: OAuthClientOptions,
  redirectUri: string,
  http: AuthHttp,
): Promise<StoredClient> {
  const redirect = parseUrl(redirectUri);
  const metadata = {
    client_name: 'mcpkit',
    ...options.clientMetadata,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: registrationAuthMethod(as),
    // SEP-837: native for command-line and desktop apps (loopback redirects), web otherwise.
    application_type: redirect !== undefined && isLoopback(redirect) ? 'native' : 'web',
  };
  const client = await step('AUTH_REGISTRATION_FAILED', `Registering with ${as.issuer}`, async () =>
    oauth.processDynamicClientRegistrationResponse(
      await lenientExpiry(
        await oauth.dynamicClientRegistrationRequest(
          as,
          metadata,
          oauthOptions(http, as.registration_endpoint, 'registration endpoint'),
        ),
      ),
    ),
  );
  const secret = typeof client.client_secret === 'string' ? client.client_secret : undefined;
  const method =
    typeof client.token_endpoint_auth_method === 'string' ? client.token_endpoint_auth_method : undefined;
  const expires = typeof client.client_secret_expires_at === 'number' ? client.client_secret_expires_at : 0;
  return {
    clientId: client.client_id,
    ...(secret === undefined ? {} : { clientSecret: secret }),
    ...(method === undefined ? {} : { tokenEndpointAuthMethod: method }),
    ...(expires > 0 ? { secretExpiresAt: expires * 1000 } : {}),
    redirectUri,
  };
}

/** The method to register with: a public client when the server allows one, else a secret it accepts. */
function registrationAuthMethod(as: oauth.AuthorizationServer): TokenEndpointAuthMethod {
  const supported = as.token_endpoint_auth_methods_supported;
  if (supported === undefined) return 'client_secret_basic'; // RFC 8414's default
  if (supported.includes('none')) return 'none';
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

function isMethod(value: string | undefined): value is TokenEndpointAuthMethod {
  return (
    value === 'none' ||
    value === 'client_secret_basic' ||
    value === 'client_secret_post' ||
    value === 'private_key_jwt'
  );
}

/** Builds oauth4webapi's client and its authentication from credentials and what the server supports. */
async function fromCredentials(
  credentials: ClientCredentials,
  as: oauth.AuthorizationServer,
): Promise<Omit<ResolvedClient, 'source'>> {
  const method = credentials.tokenEndpointAuthMethod ?? inferMethod(credentials, as);
  const client: oauth.Client = { client_id: credentials.clientId, token_endpoint_auth_method: method };
  switch (method) {
    case 'none':
      return { client, auth: oauth.None() };
    case 'client_secret_basic':
    case 'client_secret_post': {
      const secret = credentials.clientSecret;
      if (secret === undefined) {
        throw new McpkitError(
          'AUTH_REGISTRATION_FAILED',
          `${method} needs a client secret, and none was given`,
        );
      }
      return {
        client,
        auth: method === 'client_secret_basic' ? clientSecretBasic(secret) : oauth.ClientSecretPost(secret),
      };
    }
    case 'private_key_jwt': {
      const key = credentials.privateKey;
      if (key === undefined) {
        throw new McpkitError(
          'AUTH_REGISTRATION_FAILED',
          'private_key_jwt needs a private key, and none was given',
        );
      }
      const algorithm = credentials.signingAlgorithm ?? 'ES256';
      const cryptoKey =
        typeof key === 'string'
          ? await step('AUTH_REGISTRATION_FAILED', `Reading the ${algorithm} private key (PKCS#8 PEM)`, () =>
              importPKCS8(key, algorithm),
            )
          : key;
      const privateKey: oauth.PrivateKey =
        credentials.keyId === undefined ? { key: cryptoKey } : { key: cryptoKey, kid: credentials.keyId };
      return { client, auth: oauth.PrivateKeyJwt(privateKey) };
    }
  }
}

function inferMethod(credentials: ClientCredentials, as: oauth.AuthorizationServer): TokenEndpointAuthMethod {
  if (credentials.privateKey !== undefined) return 'private_key_jwt';
  if (credentials.clientSecret === undefined) return 'none';
  const supported = as.token_endpoint_auth_methods_supported;
  if (
    supported !== undefined &&
    !supported.includes('client_secret_basic') &&
    supported.includes('client_secret_post')
  ) {
    return 'client_secret_post';
  }
  return 'client_secret_basic';
}

/**
 * RFC 7591 requires `client_secret_expires_at` beside a secret, but many servers leave it out; read that as 0
 * ("never expires", the value it would have) instead of refusing the registration.
 */
async function lenientExpiry(response: Response): Promise<Response> {
  if (response.status !== 201) return response;
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return response; // not JSON: oauth4webapi reports it
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return response;
  const record = body as Record<string, unknown>;
  if (typeof record.client_secret !== 'string' || record.client_secret_expires_at !== undefined)
    return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify({ ...record, client_secret_expires_at: 0 }), { status: 201, headers });
}

/**
 * `client_secret_basic` (RFC 6749 §2.3.1): id and secret form-urlencoded, then Base64. oauth4webapi's own
 * also escapes `-`, `.`, `_` and `*`, which form encoding leaves alone and many servers do not decode.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    const encoded = `${formEncode(client.client_id)}:${formEncode(secret)}`;
    headers.set('authorization', `Basic ${btoa(encoded)}`);
  };
}

function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}
