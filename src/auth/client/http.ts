import * as oauth from 'oauth4webapi';
import { errorMessage, McpkitError, type McpkitErrorCode } from '../../jsonrpc/errors.js';
import { type FetchLike, readText } from '../../transport/fetch.js';
import type { CheckedFetch } from './options.js';
import { isSecureFor, type ReachRule, requireAddress, requireReachable } from './urls.js';

/** How the OAuth client reaches the network: the app's fetch, the rule every URL meets, the caller's abort signal. */
export interface AuthHttp extends ReachRule {
  readonly fetch: FetchLike;
  /** When set, every request goes through it, each address a host name resolves to checked before connecting. */
  readonly checkedFetch?: CheckedFetch | undefined;
  /** Time limit of each request (ms), beside the caller's signal. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/** Redirects a metadata fetch follows, each on the same origin (another origin is refused). */
const MAX_REDIRECTS = 3;
/** Longest body of any OAuth answer (metadata, registration, token), in characters. */
const MAX_BODY_CHARS = 1024 * 1024;

/**
 * Reads an OAuth answer's body within {@link MAX_BODY_CHARS} into a fresh Response (a hostile server cannot
 * make the client buffer without bound; parsing, twice for metadata, then costs at most that).
 */
async function bounded(response: Response): Promise<Response> {
  if (response.body === null) return response;
  const text = await readText(response.body, MAX_BODY_CHARS);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  const empty = response.status === 204 || response.status === 205 || response.status === 304;
  return new Response(empty ? null : text, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/**
 * The options every oauth4webapi request gets: its requests through {@link send} (`what` names the endpoint in a
 * refusal), the signal, and plain HTTP allowed only for a loopback endpoint (oauth4webapi refuses it elsewhere).
 */
export function oauthOptions(http: AuthHttp, endpoint: URL | string | undefined, what: string) {
  const url = typeof endpoint === 'string' && URL.canParse(endpoint) ? new URL(endpoint) : endpoint;
  return {
    [oauth.customFetch]: async (input: string, init: oauth.CustomFetchOptions<string, unknown>) =>
      bounded(await send(http, new URL(input), init as RequestInit, what)),
    [oauth.allowInsecureRequests]: url instanceof URL && isSecureFor(url, http.server),
    signal: requestSignal(http),
  };
}

/**
 * Every request of the OAuth client: the URL must meet the rule ({@link requireReachable}: HTTPS, and no
 * private, loopback or link-local address unless the server is on one or the app allows it); with a
 * `checkedFetch`, so must every address its host name resolves to, checked as it connects (a name that resolves
 * to 127.0.0.1 is refused then, not only a URL that says 127.0.0.1).
 */
export function send(http: AuthHttp, url: URL, init: RequestInit, what: string): Promise<Response> {
  requireReachable(url, what, http);
  if (http.checkedFetch === undefined) return http.fetch(url, init);
  return http.checkedFetch(url, init, (address) => requireAddress(url, address, what, http));
}

/** The signal of one request: the caller's, and the per-request time limit. */
function requestSignal(http: AuthHttp): AbortSignal {
  const limit = AbortSignal.timeout(http.timeoutMs);
  return http.signal === undefined ? limit : AbortSignal.any([http.signal, limit]);
}

/**
 * GETs a metadata document: resolves the 200 response, or undefined when the server has none there (any
 * other status). Follows a few same-origin redirects; a redirect to another origin is an error.
 */
export async function getMetadata(http: AuthHttp, start: URL, what: string): Promise<Response | undefined> {
  let url = requireReachable(start, what, http);
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await send(
        http,
        url,
        {
          method: 'GET',
          headers: { accept: 'application/json' },
          redirect: 'manual',
          signal: requestSignal(http),
        },
        what,
      );
    } catch (e) {
      // The rule's own refusal (the URL or an address it resolved to) keeps its code.
      if (e instanceof McpkitError && e.code.startsWith('AUTH_')) throw e;
      throw new McpkitError(
        'AUTH_DISCOVERY_FAILED',
        `Fetching the ${what} at ${url.href} failed: ${errorMessage(e)}`,
      );
    }
    if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
      await response.body?.cancel().catch(() => undefined);
      const next = URL.canParse(response.headers.get('location') ?? '', url.href)
        ? new URL(response.headers.get('location') ?? '', url)
        : undefined;
      if (next === undefined || next.origin !== url.origin || hop >= MAX_REDIRECTS) {
        throw new McpkitError(
          'AUTH_DISCOVERY_FAILED',
          `The ${what} at ${url.href} redirected ${next === undefined ? 'nowhere valid' : `to ${next.origin}`}: only a few redirects on the same origin are followed`,
        );
      }
      url = next;
      continue;
    }
    if (response.status === 200) return readBody(response, url, what);
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
}

async function readBody(response: Response, url: URL, what: string): Promise<Response> {
  try {
    return await bounded(response);
  } catch (e) {
    throw new McpkitError(
      'AUTH_DISCOVERY_FAILED',
      `Reading the ${what} at ${url.href} failed: ${errorMessage(e)}`,
    );
  }
}

/**
 * Runs one OAuth step and turns whatever it throws into an {@link McpkitError} with `code`. The message
 * keeps the server's `error`/`error_description` and oauth4webapi's reason, never the response body (a
 * token response could carry tokens), and no cause is attached for the same reason.
 */
export async function step<T>(code: McpkitErrorCode, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof McpkitError && e.code.startsWith('AUTH_')) throw e;
    throw new McpkitError(code, `${what} failed: ${describeOAuthError(e)}`);
  }
}

/** What a server says about an error, cut short (it is untrusted text). */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function describeOAuthError(e: unknown): string {
  if (e instanceof oauth.ResponseBodyError) {
    return `${clip(e.error)}${e.error_description ? ` (${clip(e.error_description)})` : ''} [HTTP ${e.status}]`;
  }
  if (e instanceof oauth.AuthorizationResponseError) {
    return `${clip(e.error)}${e.error_description ? ` (${clip(e.error_description)})` : ''}`;
  }
  if (e instanceof oauth.WWWAuthenticateChallengeError)
    return `HTTP ${e.status} with an authentication challenge`;
  if (e instanceof oauth.OperationProcessingError) {
    const status = e.cause instanceof Response ? ` [HTTP ${e.cause.status}]` : '';
    return `${e.message}${status}`;
  }
  return errorMessage(e);
}
