import type { AuthFailure, AuthInfo, TokenVerifier } from '../../server/handler/auth.js';
import { invalidToken, MAX_TOKEN_LENGTH } from './failures.js';

/**
 * Verified tokens kept until they expire, so an ordinary request costs a map lookup instead of a signature check
 * or a round trip to the authorization server. Bounded: the oldest entry goes when it is full. Concurrent checks
 * of the same new token share one verification.
 */
export class TokenCache {
  readonly #entries = new Map<string, { auth: AuthInfo; until: number }>();
  readonly #pending = new Map<string, Promise<AuthInfo | AuthFailure>>();
  readonly #max: number;
  readonly #maxAgeMs: number;

  /** `maxAgeMs`: longest an entry is trusted even when the token lives longer (Infinity: until expiry). */
  constructor(max: number, maxAgeMs = Number.POSITIVE_INFINITY) {
    this.#max = Math.max(0, max);
    this.#maxAgeMs = maxAgeMs;
  }

  /** The cached principal of `token`, when it is still valid at `now` (ms). */
  get(token: string, now: number): AuthInfo | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    if (entry.until > now) return entry.auth;
    this.#entries.delete(token);
    return undefined;
  }

  /** Keeps `auth` for `token` until its expiry (or the cache's longest age), when it has one. */
  set(token: string, auth: AuthInfo, now: number): void {
    if (this.#max === 0) return;
    const expiry = auth.expiresAt === undefined ? Number.POSITIVE_INFINITY : auth.expiresAt * 1000;
    const until = Math.min(expiry, now + this.#maxAgeMs);
    if (!(until > now) || until === Number.POSITIVE_INFINITY) return;
    if (this.#entries.size >= this.#max && !this.#entries.has(token)) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(token, { auth, until });
  }

  /**
   * Runs `check` once for concurrent requests with the same token: every waiter gets its outcome, a failure
   * too (a rejected token is never checked twice); only a success is kept afterwards.
   */
  shared(token: string, check: () => Promise<AuthInfo | AuthFailure>): Promise<AuthInfo | AuthFailure> {
    const running = this.#pending.get(token);
    if (running) return running;
    const started = check().then((outcome) => {
      if (!('error' in outcome)) this.set(token, outcome, Date.now());
      return outcome;
    });
    const settled = started.finally(() => this.#pending.delete(token));
    this.#pending.set(token, settled);
    return settled;
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * The `TokenVerifier` every verifier here is: a token `cache` still trusts is answered at once (synchronously
 * through `cached`); an oversized token, or one `precheck` refuses, is refused unchecked; any other is run through
 * `check` once for concurrent requests, and kept when accepted.
 */
export function cachingVerifier(
  cache: TokenCache,
  check: (token: string) => Promise<AuthInfo | AuthFailure>,
  precheck?: (token: string) => AuthFailure | undefined,
): TokenVerifier {
  return {
    cached: (token) => cache.get(token, Date.now()),
    async verify(token) {
      const hit = cache.get(token, Date.now());
      if (hit) return hit;
      if (token.length > MAX_TOKEN_LENGTH) return invalidToken('The access token is too long');
      return precheck?.(token) ?? cache.shared(token, () => check(token));
    },
  };
}
