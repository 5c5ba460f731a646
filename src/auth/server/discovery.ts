import {
  type AuthorizationServer,
  allowInsecureRequests,
  discoveryRequest,
  processDiscoveryResponse,
} from 'oauth4webapi';
import { isLoopback } from '../client/urls.js';

/** Options shared by verifiers that reach the authorization server. */
export interface ReachOptions {
  /** Time limit (ms) of each request to the authorization server. Default 5000. */
  timeoutMs?: number;
  /**
   * Allow plain `http:` authorization-server URLs off loopback (never do this in production). `http:` on
   * 127.0.0.1, ::1 or localhost is always allowed, for development and tests.
   */
  allowHttp?: boolean;
}

/** Whether requests to `url` may use plain HTTP under `options`. */
export function insecureAllowed(url: URL, options: ReachOptions): boolean {
  if (url.protocol !== 'http:') return false;
  if (options.allowHttp === true) return true;
  return isLoopback(url);
}

/** Refuses an `http:` URL that {@link insecureAllowed} does not allow (a configuration error, at creation). */
export function checkUrl(url: URL, what: string, options: ReachOptions): void {
  if (url.protocol === 'https:' || insecureAllowed(url, options)) return;
  throw new TypeError(`${what} must be an https: URL (http: only on loopback, or with allowHttp)`);
}

/**
 * The authorization server's metadata: RFC 8414 (`/.well-known/oauth-authorization-server`, path-inserted), then
 * OpenID Connect discovery; the document's `issuer` must equal `issuer` exactly (oauth4webapi checks it).
 */
export async function discover(issuer: URL, options: ReachOptions): Promise<AuthorizationServer> {
  const timeoutMs = options.timeoutMs ?? 5000;
  let lastError: unknown;
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    try {
      const response = await discoveryRequest(issuer, {
        algorithm,
        signal: AbortSignal.timeout(timeoutMs),
        [allowInsecureRequests]: insecureAllowed(issuer, options),
      });
      return await processDiscoveryResponse(issuer, response);
    } catch (e) {
      lastError = e;
    }
  }
  throw lastError;
}
