import type { FetchLike } from '../fetch.js';

/** A 401 or 403 answer handed to an {@link HttpAuthorizer}: what it needs to decide whether to retry. */
export interface AuthChallenge {
  /** 401 (no or bad credentials) or 403 (e.g. `insufficient_scope`). */
  readonly status: 401 | 403;
  /** The response's headers (`WWW-Authenticate` among them); its body is not kept. */
  readonly headers: Headers;
  /** The URL the request went to. */
  readonly url: URL;
  /** The `Authorization` header the refused request carried, if any. */
  readonly sentAuthorization: string | undefined;
}

/**
 * What an HTTP client transport asks about authorization, and nothing more (`mcpkit/auth`'s `OAuthClient`
 * implements it; so can an app's own scheme). Costs nothing when a transport has none.
 */
export interface HttpAuthorizer {
  /** The `Authorization` header value for a request to `url`, or undefined to send none. */
  authorization(url: URL): string | undefined | Promise<string | undefined>;
  /**
   * A request was answered 401 or 403: resolves true when new credentials are in place and the request
   * should be sent again, false to hand the answer to the transport as it is.
   */
  unauthorized(challenge: AuthChallenge, signal: AbortSignal | undefined): Promise<boolean>;
}

/** How many times one request is sent again after a 401/403 (a step-up needs at most three flows). */
export const MAX_AUTH_RETRIES = 3;

/**
 * Wraps a transport's fetch so every request carries the authorizer's `Authorization` header, and a 401 or
 * 403 is offered to the authorizer before the transport sees it (then the same request is sent again, at
 * most {@link MAX_AUTH_RETRIES} times). Bodies of transport requests are strings, so a retry can resend them.
 * While the authorizer has no credentials, an `Authorization` header the transport was configured with (a
 * config file's or `--header`'s) is sent as given.
 */
export function authorizedFetch(fetch: FetchLike, auth: HttpAuthorizer): FetchLike {
  return async (url, init) => {
    // Transports build a fresh Headers per request: it can take the header in place.
    const headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    const configured = headers.get('authorization') ?? undefined;
    for (let attempt = 0; ; attempt++) {
      const authorization = (await auth.authorization(url)) ?? configured;
      if (authorization === undefined) headers.delete('authorization');
      else headers.set('authorization', authorization);
      const response = await fetch(url, { ...init, headers });
      if ((response.status !== 401 && response.status !== 403) || attempt >= MAX_AUTH_RETRIES)
        return response;
      const challenge: AuthChallenge = {
        status: response.status === 401 ? 401 : 403,
        headers: response.headers,
        url,
        sentAuthorization: authorization,
      };
      let retry: boolean;
      try {
        retry = await auth.unauthorized(challenge, init.signal ?? undefined);
      } catch (e) {
        await response.body?.cancel().catch(() => undefined);
        throw e;
      }
      if (!retry) return response;
      // Release the refused answer's connection before going again.
      await response.body?.cancel().catch(() => undefined);
    }
  };
}
