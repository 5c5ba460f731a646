// `mcpkit/auth`: OAuth 2.1 for MCP. The resource-server side: token verifiers for the `auth` option of the HTTP
// endpoints (`serve()`, `createStreamableHttpHandler`, `createSseLegacyHandler`). Runtime-neutral (fetch, Web Crypto).

export { authInfoFromClaims } from './auth/server/claims.js';
export { type CustomVerifierOptions, customVerifier, type VerifyFunction } from './auth/server/custom.js';
export type { ReachOptions } from './auth/server/discovery.js';
export {
  type IntrospectionVerifierOptions,
  introspectionVerifier,
} from './auth/server/introspection.js';
export { DEFAULT_JWT_ALGORITHMS, type JwtVerifierOptions, jwtVerifier } from './auth/server/jwt.js';
export type { AuthFailure, AuthInfo, TokenVerifier } from './server/auth.js';
export type { ResourceAuthOptions } from './transport/auth-gate.js';
