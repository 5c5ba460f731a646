import * as oauth from 'oauth4webapi';

/** The parts of a `WWW-Authenticate: Bearer …` challenge (RFC 6750, RFC 9728) the client acts on. */
export interface BearerChallenge {
  readonly error: string | undefined;
  readonly scope: string | undefined;
  readonly resourceMetadata: string | undefined;
}

const NONE: BearerChallenge = { error: undefined, scope: undefined, resourceMetadata: undefined };
const PLACEHOLDER = new URL('https://challenge.invalid/');

/**
 * Reads the Bearer challenge of a 401/403 answer with oauth4webapi's own `WWW-Authenticate` parser (it
 * is reached through `protectedResourceRequest`, handed the answer already received: nothing is sent).
 */
export async function bearerChallenge(headers: Headers, status: number): Promise<BearerChallenge> {
  if (!headers.has('www-authenticate')) return NONE;
  const answered = new Response(null, { status, headers });
  let challenges: oauth.WWWAuthenticateChallenge[] = [];
  try {
    await oauth.protectedResourceRequest('-', 'GET', PLACEHOLDER, undefined, undefined, {
      [oauth.customFetch]: async () => answered,
    });
  } catch (e) {
    if (e instanceof oauth.WWWAuthenticateChallengeError) challenges = e.cause;
    // Anything else: a header oauth4webapi cannot parse, which is no usable challenge.
  }
  const bearer = challenges.find((c) => c.scheme === 'bearer');
  if (bearer === undefined) return NONE;
  const { error, scope, resource_metadata: resourceMetadata } = bearer.parameters;
  return { error, scope, resourceMetadata };
}
