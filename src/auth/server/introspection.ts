import {
  type AuthorizationServer,
  allowInsecureRequests,
  ClientSecretBasic,
  ClientSecretPost,
  introspectionRequest,
  processIntrospectionResponse,
} from 'oauth4webapi';
import type { AuthFailure, AuthInfo, TokenVerifier } from '../../server/handler/auth.js';
import { authInfoFromClaims, hasAudience } from './claims.js';
import { checkUrl, discover, insecureAllowed, type ReachOptions } from './discovery.js';
import { invalidToken, unavailable } from './failures.js';
import { cachingVerifier, TokenCache } from './token-cache.js';

/** Options of {@link introspectionVerifier}. */
export interface IntrospectionVerifierOptions extends ReachOptions {
  /**
   * The authorization server's issuer: its metadata names the introspection endpoint (unless `endpoint` is given),
   * and an answer's `iss`, when present, must equal it.
   */
  issuer?: string;
  /** The introspection endpoint (RFC 7662); default: `introspection_endpoint` of the issuer's metadata. */
  endpoint?: string;
  /** This server's canonical URI: the answer's `aud` must name it. */
  audience: string;
  /** Accept answers without `aud` (some servers omit it). Default false: fail closed. */
  allowMissingAudience?: boolean;
  /** This resource server's client credentials at the introspection endpoint. */
  clientId: string;
  clientSecret: string;
  /** How the credentials are sent. Default `client_secret_basic`. */
  clientAuth?: 'client_secret_basic' | 'client_secret_post';
  /** Longest time (ms) an active answer is trusted before asking again (revocation shows after this). Default 60 000. */
  cacheTtlMs?: number;
  /** Most answers kept. Default 10 000; 0 disables the cache. */
  cacheSize?: number;
}

/**
 * Verifies opaque access tokens through RFC 7662 token introspection, authenticating as this resource server's
 * client. Active answers are cached within their lifetime (bounded by `cacheTtlMs`); an endpoint that is down,
 * slow or answers with an error gives an `unavailable` failure (503; why, to the server's `onerror`), never an
 * exception.
 */
export function introspectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  if (options.issuer === undefined && options.endpoint === undefined)
    throw new TypeError('introspectionVerifier needs an issuer or an endpoint');
  const issuerUrl = options.issuer === undefined ? undefined : new URL(options.issuer);
  if (issuerUrl) checkUrl(issuerUrl, 'issuer', options);
  const endpointUrl = options.endpoint === undefined ? undefined : new URL(options.endpoint);
  if (endpointUrl) checkUrl(endpointUrl, 'introspection endpoint', options);
  const timeoutMs = options.timeoutMs ?? 5000;
  const cache = new TokenCache(options.cacheSize ?? 10_000, options.cacheTtlMs ?? 60_000);
  const client = { client_id: options.clientId };
  const auth =
    options.clientAuth === 'client_secret_post'
      ? ClientSecretPost(options.clientSecret)
      : ClientSecretBasic(options.clientSecret);
  let server: Promise<AuthorizationServer> | undefined;

  const getServer = (): Promise<AuthorizationServer> => {
    if (server) return server;
    const found: Promise<AuthorizationServer> = endpointUrl
      ? Promise.resolve({
          issuer: options.issuer ?? endpointUrl.origin,
          introspection_endpoint: endpointUrl.href,
        })
      : discover(issuerUrl as URL, options).then((as) => {
          if (typeof as.introspection_endpoint !== 'string')
            throw new TypeError('the issuer publishes no introspection_endpoint');
          checkUrl(new URL(as.introspection_endpoint), 'introspection_endpoint', options);
          return as;
        });
    server = found;
    found.catch(() => {
      if (server === found) server = undefined;
    });
    return found;
  };

  async function check(token: string): Promise<AuthInfo | AuthFailure> {
    let answer: Record<string, unknown>;
    try {
      const as = await getServer();
      const endpoint = new URL(as.introspection_endpoint as string);
      const response = await introspectionRequest(as, client, auth, token, {
        signal: AbortSignal.timeout(timeoutMs),
        [allowInsecureRequests]: insecureAllowed(endpoint, options),
      });
      answer = { ...(await processIntrospectionResponse(as, client, response)) };
    } catch (e) {
      return unavailable('The token introspection endpoint could not be reached or refused this server', e);
    }
    if (answer.active !== true) return invalidToken('The access token is not active');
    if (options.issuer !== undefined && answer.iss !== undefined && answer.iss !== options.issuer)
      return invalidToken('The access token was issued by another authorization server');
    if (
      answer.aud === undefined
        ? options.allowMissingAudience !== true
        : !hasAudience(answer.aud, options.audience)
    )
      return invalidToken('The access token was not issued for this server');
    const now = Date.now() / 1000;
    if (typeof answer.exp === 'number' && answer.exp <= now) return invalidToken('The access token expired');
    if (typeof answer.nbf === 'number' && answer.nbf > now + 10)
      return invalidToken('The access token is not valid yet');
    return authInfoFromClaims(answer);
  }

  return cachingVerifier(cache, check);
}
