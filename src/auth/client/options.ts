import type { PrivateKey } from 'oauth4webapi';
import type { JsonValue } from '../../jsonrpc/types.js';
import type { FetchLike } from '../../transport/fetch.js';
import type { TokenStore } from './store.js';
import type { AllowPrivateNetwork } from './urls.js';

/**
 * A fetch that resolves the URL's host name itself and connects only to an address `admit` accepts (`admit` throws to
 * refuse one): what lets the OAuth client judge the addresses a name resolves to as it connects, not only those
 * written in URLs (a name that resolves to 127.0.0.1, or a DNS answer that changes between a check and the
 * connection). `checkedFetch()` of `mcpkit/node` is one. It follows no redirects (the client follows those it checks).
 */
export type CheckedFetch = (
  url: URL,
  init: RequestInit,
  admit: (address: string) => void,
) => Promise<Response>;

/** How the client authenticates at a token endpoint. */
export type TokenEndpointAuthMethod =
  | 'none'
  | 'client_secret_basic'
  | 'client_secret_post'
  | 'private_key_jwt';

/** Credentials an authorization server issued to this client beforehand (pre-registration). */
export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret?: string;
  /** For `private_key_jwt`: a private `CryptoKey`, or a PKCS#8 PEM (then `signingAlgorithm` says how to use it). */
  readonly privateKey?: PrivateKey['key'] | string;
  /** The JWS algorithm of `privateKey` (e.g. `ES256`, `RS256`). Default `ES256`. */
  readonly signingAlgorithm?: string;
  /** The key id (`kid`) to put in the assertion's header, if the server needs one. */
  readonly keyId?: string;
  /** How to authenticate; by default inferred from what is given and what the server supports. */
  readonly tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /**
   * The issuer these credentials belong to. When set, they are only ever sent to that authorization
   * server (another one is an error); when absent, to the first server the MCP server names, which is then
   * pinned in the token store (another one later is an error). Without it, a secret or private key is never
   * sent in the 2025-03-26 fallback (no protected-resource metadata: the issuer is assumed to be the MCP
   * server's own origin).
   */
  readonly issuer?: string;
}

/**
 * The user-agent leg of the authorization code flow, which only the app can do: send the user to
 * `authorizationUrl` (a browser, a system web view) and resolve with the URL the authorization server
 * redirected back to (or just its query), which carries `code`, `state` and maybe `iss`.
 */
export type AuthorizeUser = (
  authorizationUrl: URL,
  signal: AbortSignal | undefined,
) => Promise<URL | URLSearchParams | string>;

/** A user signs in: authorization code with PKCE. */
export interface AuthorizationCodeGrant {
  readonly type: 'authorization_code';
  /** Where the authorization server sends the user back (a loopback URL or an HTTPS one). */
  readonly redirectUri: string;
  readonly authorize: AuthorizeUser;
}

/** Machine to machine: the client-credentials extension (a secret, or a private key for `private_key_jwt`). */
export interface ClientCredentialsGrant {
  readonly type: 'client_credentials';
}

/**
 * The enterprise-managed extension: the user's ID token from the enterprise IdP is exchanged there for an
 * ID-JAG (RFC 8693 token exchange), which the MCP server's authorization server takes as a JWT bearer grant.
 */
export interface EnterpriseGrant {
  readonly type: 'enterprise';
  readonly idp: {
    /** The IdP's token endpoint (the token exchange goes there). */
    readonly tokenEndpoint: string;
    /** The IdP's issuer, if known (for messages and checks); default the token endpoint's origin. */
    readonly issuer?: string;
    /** This app's client id at the IdP. */
    readonly clientId: string;
    /** This app's secret at the IdP, if it is a confidential client there. */
    readonly clientSecret?: string;
    /** The user's ID token, or how to get a current one. */
    readonly idToken: string | (() => Promise<string>);
  };
}

/** How the client gets tokens. */
export type OAuthGrant = AuthorizationCodeGrant | ClientCredentialsGrant | EnterpriseGrant;

/** Options of {@link OAuthClient}. */
export interface OAuthClientOptions {
  readonly grant: OAuthGrant;
  /**
   * Pre-registered credentials: one set, or a function giving the set for an issuer (undefined: none, so
   * the client registers). Used first; a set bound to another `issuer` is refused.
   */
  readonly credentials?: ClientCredentials | ((issuer: string) => ClientCredentials | undefined);
  /**
   * The HTTPS URL of this client's Client ID Metadata Document, used as its `client_id` with authorization
   * servers that advertise `client_id_metadata_document_supported`.
   */
  readonly clientMetadataUrl?: string;
  /** Metadata for dynamic registration (`client_name`, `logo_uri`, …); redirect URIs and grants are filled in. */
  readonly clientMetadata?: Readonly<Record<string, JsonValue>>;
  /** Where tokens and registrations live. Default: a {@link MemoryTokenStore} of this client's own. */
  readonly store?: TokenStore;
  /** Scopes to ask for on top of those the server challenges with. */
  readonly scope?: string;
  /** Whether to add `offline_access` when the authorization server offers it (user sign-in only). Default true. */
  readonly offlineAccess?: boolean;
  /** Time limit of each request to an authorization server (ms; the user's sign-in is not limited). Default 30 000. */
  readonly timeoutMs?: number;
  /** Refresh this long before the access token expires, in seconds. Default 60. */
  readonly refreshLeewaySeconds?: number;
  /** The fetch for every OAuth request (discovery, registration, tokens). Default the global one. */
  readonly fetch?: FetchLike;
  /**
   * A fetch that checks every address a host name resolves to as it connects ({@link CheckedFetch}; on Node,
   * `checkedFetch()` of `mcpkit/node`); used instead of `fetch` when given. Without it, the rule below is applied to
   * the hosts written in URLs only.
   */
  readonly checkedFetch?: CheckedFetch;
  /**
   * The URLs the OAuth client learns from discovery (the challenge's `resource_metadata`, `authorization_servers`,
   * the authorization server's endpoints) must use HTTPS and may not reach a loopback, private, link-local,
   * unique-local, unspecified, multicast, CGNAT or reserved address, in any notation, unless the MCP server is on
   * an address of the same range itself (or they are on its own origin). `true` allows them all; a predicate allows
   * those it accepts (given the URL, the range and the address: the URL's host, or what its name resolved to).
   * Default: none.
   */
  readonly allowPrivateNetwork?: AllowPrivateNetwork;
}
