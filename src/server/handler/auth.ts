/**
 * What a resource server knows about the caller of a request once its access token is verified, and the
 * interface token verifiers implement. The HTTP endpoints' auth gate (`server/http/core/auth-gate.ts`) and the
 * verifiers of `mcpkit/auth` use these; handlers read the result as `ctx.authInfo`.
 */

/** The verified principal behind a request (never the token itself: tokens are not passed on). */
export interface AuthInfo {
  /** The token's subject (`sub`): the user, or the client for client-credentials tokens. */
  readonly subject?: string | undefined;
  /** The OAuth client the token was issued to (`client_id`, else `azp`). */
  readonly clientId?: string | undefined;
  /** The granted scopes. */
  readonly scopes: readonly string[];
  /** Expiry, in seconds since the epoch (`exp`). */
  readonly expiresAt?: number | undefined;
  /** The authorization server that issued the token (`iss`). */
  readonly issuer?: string | undefined;
  /** Every claim of the token (JWT payload or introspection answer). */
  readonly claims?: Readonly<Record<string, unknown>> | undefined;
  /**
   * The owner of sessions, tasks and `requestState` when set (see `principalOf`); the auth gate sets it to a
   * hash of the token for a verified token that names no subject and no client.
   */
  readonly principal?: string | undefined;
}

/**
 * Why a token was not accepted: `invalid_token` (401: missing, malformed, expired, wrong audience or issuer, bad
 * signature) or `unavailable` (503: the authorization server's keys or introspection endpoint could not be
 * reached in time; fail closed). The description is safe to send: it never contains the token.
 */
export interface AuthFailure {
  readonly error: 'invalid_token' | 'unavailable';
  readonly description: string;
  /**
   * What made an `unavailable` failure (a network error, an answer that was not understood, what a custom check
   * threw): reported to the server's `onerror` by the HTTP endpoint's gate, never sent to the client.
   */
  readonly cause?: unknown;
}

/** Checks a bearer token. Must not throw: a failure is an {@link AuthFailure}. */
export interface TokenVerifier {
  verify(token: string): Promise<AuthInfo | AuthFailure>;
  /**
   * The principal of a token this verifier checked before and still trusts, without waiting (optional): the gate
   * answers an ordinary request from it synchronously, with no promise and no parsing of the header.
   */
  cached?(token: string): AuthInfo | undefined;
}

/** Whether a verification outcome is a failure. */
export function isAuthFailure(outcome: AuthInfo | AuthFailure): outcome is AuthFailure {
  return 'error' in outcome;
}

/**
 * The principal a session, task or `requestState` belongs to, namespaced by the issuer: `<issuer>|sub:<subject>`
 * for a subject (`sub` is read too, for authentication objects of other shapes handed in by host middleware),
 * else `<issuer>|client:<client id>`, so a client-credentials token of client "X" never shares a principal with
 * the user "X". An explicit `principal` comes first (the auth gate gives a verified token that names neither a
 * per-token one). Undefined only for a request without authentication.
 */
export function principalOf(authInfo: unknown): string | undefined {
  if (typeof authInfo !== 'object' || authInfo === null) return undefined;
  const a = authInfo as {
    principal?: unknown;
    subject?: unknown;
    sub?: unknown;
    clientId?: unknown;
    issuer?: unknown;
  };
  if (typeof a.principal === 'string') return a.principal;
  const issuer = typeof a.issuer === 'string' ? a.issuer : '';
  const subject = typeof a.subject === 'string' ? a.subject : typeof a.sub === 'string' ? a.sub : undefined;
  if (subject !== undefined) return `${issuer}|sub:${subject}`;
  if (typeof a.clientId === 'string') return `${issuer}|client:${a.clientId}`;
  return undefined;
}

/** The scopes of `required` that `authInfo` lacks (empty when it has them all). */
export function missingScopes(authInfo: AuthInfo | undefined, required: readonly string[]): string[] {
  if (required.length === 0) return [];
  const granted = authInfo?.scopes ?? [];
  return required.filter((s) => !granted.includes(s));
}

/** Something registered with `requiredScopes` (a tool, resource, template or prompt definition). */
export interface Scoped {
  readonly config: { readonly requiredScopes?: readonly string[] | undefined };
}

const NONE: readonly string[] = Object.freeze([]);

/** The scopes a definition needs (none when it names none). */
export function scopesOf(def: Scoped | undefined): readonly string[] {
  return def?.config.requiredScopes ?? NONE;
}

/** Whether `granted` holds every scope of `required`. */
export function grants(granted: readonly string[], required: readonly string[]): boolean {
  for (const s of required) if (!granted.includes(s)) return false;
  return true;
}
