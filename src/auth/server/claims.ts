import type { AuthInfo } from '../../server/handler/auth.js';

/** The principal described by a token's claims (a JWT payload or an introspection answer). */
export function authInfoFromClaims(claims: Readonly<Record<string, unknown>>): AuthInfo {
  const clientId = str(claims.client_id) ?? str(claims.azp);
  return {
    subject: str(claims.sub),
    clientId,
    scopes: scopesOf(claims),
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
    issuer: str(claims.iss),
    claims,
  };
}

/** Scopes from `scope` (space-separated, RFC 9068 and 7662) or `scp` (array or string, other servers). */
export function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter((s) => s !== '');
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

/** Whether the `aud` claim (a string or an array) names `audience`. */
export function hasAudience(aud: unknown, audience: string): boolean {
  return aud === audience || (Array.isArray(aud) && aud.includes(audience));
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
