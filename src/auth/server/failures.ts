import type { AuthFailure } from '../../server/handler/auth.js';

/** A 401 `invalid_token` failure with a description that never quotes the token. */
export function invalidToken(description: string): AuthFailure {
  return { error: 'invalid_token', description };
}

/**
 * A 503 failure: the authorization server could not be reached or answered nonsense (fail closed). `cause`, the error
 * behind it, goes to the server's `onerror`; the client sees `description` only.
 */
export function unavailable(description: string, cause?: unknown): AuthFailure {
  return cause === undefined
    ? { error: 'unavailable', description }
    : { error: 'unavailable', description, cause };
}

/** Longest token accepted; longer ones are refused before any parsing. */
export const MAX_TOKEN_LENGTH = 8192;
