// `mcpkit/auth`: OAuth 2.1 for MCP. The resource-server side: token verifiers for the `auth` option of the HTTP
// endpoints (`serve()`, `createStreamableHttpHandler`, `createSseLegacyHandler`). Runtime-neutral (fetch, Web Crypto).

// The client side: an OAuthClient for the `auth` option of the HTTP client transports (its Node-only helpers,
// FileTokenStore and LoopbackReceiver, are in mcpkit/node).
export type { AddressRange } from './auth/client/address-range.js';
export { OAuthClient } from './auth/client/oauth-client.js';
export type {
  AuthorizationCodeGrant,
  AuthorizeUser,
  CheckedFetch,
  ClientCredentials,
  ClientCredentialsGrant,
  EnterpriseGrant,
  OAuthClientOptions,
  OAuthGrant,
  TokenEndpointAuthMethod,
} from './auth/client/options.js';
export {
  MemoryTokenStore,
  type StoredClient,
  type StoredTokens,
  type TokenStore,
} from './auth/client/store.js';
export type { AllowPrivateNetwork } from './auth/client/urls.js';
export { authInfoFromClaims } from './auth/server/claims.js';
export { type CustomVerifierOptions, customVerifier, type VerifyFunction } from './auth/server/custom.js';
export type { ReachOptions } from './auth/server/discovery.js';
export {
  type IntrospectionVerifierOptions,
  introspectionVerifier,
} from './auth/server/introspection.js';
export { DEFAULT_JWT_ALGORITHMS, type JwtVerifierOptions, jwtVerifier } from './auth/server/jwt.js';
export type { AuthFailure, AuthInfo, TokenVerifier } from './server/handler/auth.js';
export type { ResourceAuthOptions } from './server/http/core/auth-gate.js';
