import type { AuthFailure, AuthInfo, TokenVerifier } from '../../server/handler/auth.js';
import { invalidToken, unavailable } from './failures.js';
import { cachingVerifier, TokenCache } from './token-cache.js';

/** What a custom check returns: the principal, or undefined (or a failure) when the token is not accepted. */
export type VerifyFunction = (
  token: string,
) => Promise<AuthInfo | AuthFailure | undefined> | AuthInfo | AuthFailure | undefined;

/** Options of {@link customVerifier}. */
export interface CustomVerifierOptions {
  /** Most accepted tokens kept until their `expiresAt` (tokens without one are checked every time). Default 10 000. */
  cacheSize?: number;
}

/**
 * A verifier from the author's own function. An exception it throws becomes an `unavailable` failure (503, fail
 * closed; the exception goes to the server's `onerror`), never a crash; `undefined` means an invalid token (401).
 */
export function customVerifier(check: VerifyFunction, options: CustomVerifierOptions = {}): TokenVerifier {
  const cache = new TokenCache(options.cacheSize ?? 10_000);
  const run = async (token: string): Promise<AuthInfo | AuthFailure> => {
    try {
      return (await check(token)) ?? invalidToken('The access token is not valid');
    } catch (e) {
      return unavailable('The access token could not be checked', e);
    }
  };
  return cachingVerifier(cache, run);
}
