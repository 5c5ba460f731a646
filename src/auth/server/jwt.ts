import { createRemoteJWKSet, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { AuthFailure, AuthInfo, TokenVerifier } from '../../server/handler/auth.js';
import { authInfoFromClaims } from './claims.js';
import { checkUrl, discover, type ReachOptions } from './discovery.js';
import { invalidToken, unavailable } from './failures.js';
import { cachingVerifier, TokenCache } from './token-cache.js';

/** The asymmetric JWS algorithms accepted by default (never `none`, never HMAC: the keys are public). */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

/** Options of {@link jwtVerifier}. */
export interface JwtVerifierOptions extends ReachOptions {
  /** The authorization server's issuer identifier: the `iss` every token must carry. */
  issuer: string;
  /** This server's canonical URI (e.g. `https://mcp.example.com/mcp`): the `aud` every token must name. */
  audience: string;
  /** The JWKS URL; default: the `jwks_uri` of the issuer's metadata (RFC 8414, then OpenID Connect discovery). */
  jwksUri?: string;
  /** Accepted algorithms (asymmetric only; `none` and `HS*` are refused). Default {@link DEFAULT_JWT_ALGORITHMS}. */
  algorithms?: readonly string[];
  /**
   * The JWT `typ` header every token must carry: RFC 9068 access tokens are `at+jwt` (so an ID token or another
   * JWT signed by the same keys is not taken for an access token). Default `at+jwt`; false accepts any.
   */
  requiredType?: string | false;
  /** Leeway (seconds) for `exp` and `nbf`. Default 10. */
  clockToleranceSec?: number;
  /** Most verified tokens kept (until they expire). Default 10 000; 0 disables the cache. */
  cacheSize?: number;
  /** Least time (ms) between two fetches of the key set (an unknown `kid` refetches it). Default 30 000. */
  jwksCooldownMs?: number;
}

/**
 * Verifies JWT access tokens (RFC 9068) with the issuer's published keys: signature with an allowed asymmetric
 * algorithm, `iss`, `aud` (this server), `exp` and `nbf` with a small leeway. Keys are fetched once and again
 * only for an unknown `kid`; verified tokens are cached until they expire. An unreachable or slow authorization
 * server gives an `unavailable` failure (503; why, to the server's `onerror`), never an exception.
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const issuer = new URL(options.issuer);
  checkUrl(issuer, 'issuer', options);
  const algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
  for (const alg of algorithms) {
    if (alg === 'none' || alg.startsWith('HS'))
      throw new TypeError(`algorithm ${alg} cannot verify access tokens with public keys`);
  }
  const timeoutMs = options.timeoutMs ?? 5000;
  const cache = new TokenCache(options.cacheSize ?? 10_000);
  const verifyOptions = {
    issuer: options.issuer,
    audience: options.audience,
    algorithms,
    clockTolerance: options.clockToleranceSec ?? 10,
    requiredClaims: ['exp'],
    ...(options.requiredType === false ? {} : { typ: options.requiredType ?? 'at+jwt' }),
  };
  let keys: Promise<JWTVerifyGetKey> | undefined;

  const keySet = (url: string): JWTVerifyGetKey => {
    const jwks = new URL(url);
    checkUrl(jwks, 'jwks_uri', options);
    return createRemoteJWKSet(jwks, {
      timeoutDuration: timeoutMs,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
    });
  };

  /** The key set, found from the issuer's metadata once; a failed discovery is retried by the next request. */
  const getKeys = (): Promise<JWTVerifyGetKey> => {
    if (keys) return keys;
    const found =
      options.jwksUri !== undefined
        ? Promise.resolve(keySet(options.jwksUri))
        : discover(issuer, options).then((as) => {
            if (typeof as.jwks_uri !== 'string') throw new TypeError('the issuer publishes no jwks_uri');
            return keySet(as.jwks_uri);
          });
    keys = found;
    found.catch(() => {
      if (keys === found) keys = undefined;
    });
    return found;
  };

  async function check(token: string): Promise<AuthInfo | AuthFailure> {
    let getKey: JWTVerifyGetKey;
    try {
      getKey = await getKeys();
    } catch (e) {
      return unavailable('The authorization server metadata could not be fetched', e);
    }
    try {
      const { payload } = await jwtVerify(token, getKey, verifyOptions);
      return authInfoFromClaims(payload);
    } catch (e) {
      if (e instanceof errors.JWKSMultipleMatchingKeys) return tryEach(e, token);
      return classify(e);
    }
  }

  /**
   * No `kid` and several keys for the algorithm (normal during a key rotation): jose's documented way, each
   * candidate key in turn; the first whose signature verifies decides.
   */
  async function tryEach(
    candidates: errors.JWKSMultipleMatchingKeys,
    token: string,
  ): Promise<AuthInfo | AuthFailure> {
    try {
      for await (const key of candidates) {
        try {
          const { payload } = await jwtVerify(token, key, verifyOptions);
          return authInfoFromClaims(payload);
        } catch (e) {
          if (e instanceof errors.JWSSignatureVerificationFailed) continue;
          return classify(e);
        }
      }
    } catch (e) {
      return classify(e);
    }
    return invalidToken("The access token's signature is invalid");
  }

  return cachingVerifier(cache, check, (token) =>
    JWT_SHAPE.test(token) ? undefined : invalidToken('The access token is not a JWT'),
  );
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** A fixed, token-free description for each way verification fails; key-set trouble is `unavailable`. */
function classify(e: unknown): AuthFailure {
  if (e instanceof errors.JWTExpired) return invalidToken('The access token expired');
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'nbf') return invalidToken('The access token is not valid yet');
    return invalidToken(`The access token's "${e.claim}" claim is not accepted`);
  }
  if (e instanceof errors.JWSSignatureVerificationFailed)
    return invalidToken("The access token's signature is invalid");
  if (e instanceof errors.JOSEAlgNotAllowed)
    return invalidToken("The access token's algorithm is not allowed");
  if (e instanceof errors.JWKSNoMatchingKey)
    return invalidToken('No key of the issuer matches the access token');
  if (e instanceof errors.JWKSTimeout)
    return unavailable('The authorization server keys could not be fetched in time', e);
  if (e instanceof errors.JWKSInvalid) return unavailable('The authorization server keys are unusable', e);
  if (
    e instanceof errors.JWSInvalid ||
    e instanceof errors.JWTInvalid ||
    e instanceof errors.JOSENotSupported
  )
    return invalidToken('The access token is malformed');
  // Anything else happened while fetching the keys (network error, non-200 answer): fail closed.
  return unavailable('The authorization server keys could not be fetched', e);
}
