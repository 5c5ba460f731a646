import { encodeBase64url } from '../../../framing/base64url.js';
import { ErrorCode, McpkitError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import { type AuthFailure, type AuthInfo, principalOf, type TokenVerifier } from '../../handler/auth.js';
import { httpError } from './errors.js';
import type { HttpReply, HttpRequestLike } from './http.js';

/**
 * The `auth` option of the HTTP endpoints: this server as an OAuth 2.1 resource server. Verifiers come from
 * `mcpkit/auth` (`jwtVerifier`, `introspectionVerifier`, `customVerifier`) or are the author's own.
 */
export interface ResourceAuthOptions {
  /**
   * Checks bearer tokens (must not throw; a thrown error is answered 503 anyway). Why a token could not be checked
   * (an `unavailable` failure's `cause`, or what the verifier threw) goes to the server's `onerror`, never to the client.
   */
  verifier: TokenVerifier;
  /** This endpoint's canonical URI (e.g. `https://mcp.example.com/mcp`): the audience tokens must be issued for. */
  resource: string;
  /** Issuers of the authorization servers clients should get tokens from (Protected Resource Metadata). */
  authorizationServers: readonly string[];
  /** `scopes_supported` of the metadata: the basic set a client asks for when a challenge names none. */
  scopesSupported?: readonly string[];
  /** Scopes every request needs (403 `insufficient_scope` without them). Default none. */
  requiredScopes?: readonly string[];
  /** `resource_name` of the metadata. */
  resourceName?: string;
  /** `resource_documentation` of the metadata. */
  resourceDocumentation?: string;
}

/** The well-known prefix of RFC 9728 Protected Resource Metadata. */
export const PRM_PREFIX = '/.well-known/oauth-protected-resource';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const BEARER_PREFIX = /^Bearer /i;

/**
 * The resource server's gate in front of an HTTP endpoint: it serves the Protected Resource Metadata, checks the
 * bearer token of every request (verified tokens are cached by the verifier), and writes the RFC 6750 challenges:
 * 401 with `resource_metadata` and `scope`, 403 `insufficient_scope` naming the scopes needed, 400 for a malformed
 * Authorization header, 503 when the authorization server cannot be reached (fail closed; the cause to `onerror`).
 * Tokens never appear in what it answers. Everything that does not depend on the request is built once here.
 */
export class AuthGate {
  /** The path-inserted metadata URL (named in every challenge). */
  readonly metadataUrl: string;
  /** The paths the metadata is served at: path-inserted, then root. */
  readonly metadataPaths: readonly string[];
  readonly #verifier: TokenVerifier;
  readonly #cached: ((token: string) => AuthInfo | undefined) | undefined;
  readonly #required: readonly string[];
  /** Verified principals that name no subject and no client, each with its per-token principal. */
  readonly #owned = new WeakMap<AuthInfo, AuthInfo>();
  readonly #metadata: HttpReply;
  readonly #unauthorized: HttpReply;
  readonly #challengeBase: string;
  readonly #onerror: ((error: Error) => void) | undefined;
  /** Failures already reported: concurrent requests with one token share one verification and its outcome. */
  readonly #reported = new WeakSet<AuthFailure>();

  /** `onerror`: where the causes of the 503s go (the endpoint passes the server's). */
  constructor(options: ResourceAuthOptions, onerror?: (error: Error) => void) {
    this.#onerror = onerror;
    const url = new URL(options.resource);
    if (url.hash !== '' || (url.protocol !== 'https:' && url.protocol !== 'http:'))
      throw new TypeError('auth.resource must be an http(s) URI without a fragment');
    if (options.authorizationServers.length === 0)
      throw new TypeError('auth.authorizationServers must name at least one authorization server');
    this.#verifier = options.verifier;
    const verifier = options.verifier;
    this.#cached = verifier.cached === undefined ? undefined : (token) => verifier.cached?.(token);
    this.#required = options.requiredScopes ?? [];
    const inserted = url.pathname === '/' ? PRM_PREFIX : `${PRM_PREFIX}${url.pathname}`;
    this.metadataPaths = inserted === PRM_PREFIX ? [PRM_PREFIX] : [inserted, PRM_PREFIX];
    this.metadataUrl = `${url.origin}${inserted}`;
    const document: Record<string, unknown> = {
      resource: options.resource,
      authorization_servers: [...options.authorizationServers],
      bearer_methods_supported: ['header'],
    };
    if (options.scopesSupported) document.scopes_supported = [...options.scopesSupported];
    if (options.resourceName !== undefined) document.resource_name = options.resourceName;
    if (options.resourceDocumentation !== undefined)
      document.resource_documentation = options.resourceDocumentation;
    this.#metadata = {
      status: 200,
      headers: {
        'content-type': 'application/json',
        'cache-control': 'max-age=3600',
        'access-control-allow-origin': '*',
      },
      body: JSON.stringify(document),
    };
    this.#challengeBase = `Bearer resource_metadata="${this.metadataUrl}"`;
    const challengeScopes = this.#required.length > 0 ? this.#required : (options.scopesSupported ?? []);
    const scope = challengeScopes.length > 0 ? `, scope="${quoted(challengeScopes.join(' '))}"` : '';
    this.#unauthorized = httpError(
      401,
      'Unauthorized: a bearer token is required',
      ErrorCode.InvalidRequest,
      null,
      {
        'www-authenticate': `${this.#challengeBase}${scope}`,
      },
    );
  }

  /** The metadata reply for a request to one of {@link metadataPaths} (GET, HEAD; OPTIONS for CORS). */
  metadata(req: HttpRequestLike): HttpReply {
    if (req.method === 'GET' || req.method === 'HEAD') return this.#metadata;
    if (req.method === 'OPTIONS') {
      return {
        status: 204,
        headers: {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET, HEAD, OPTIONS',
          'access-control-allow-headers': 'mcp-protocol-version',
        },
      };
    }
    return httpError(405, `Method Not Allowed: ${req.method}`, ErrorCode.InvalidRequest, null, {
      allow: 'GET, HEAD, OPTIONS',
    });
  }

  /** Whether `path` is one of the metadata paths. */
  isMetadataPath(path: string): boolean {
    return path.startsWith(PRM_PREFIX) && this.metadataPaths.includes(path);
  }

  /**
   * Undefined when the request carries a valid token (then `req.authInfo` is its principal, which what the endpoint
   * builds from the request carries to every handler), else the reply refusing it. A token the verifier already
   * trusts is answered synchronously (the common case: no promise, no header parsing); others are verified.
   */
  authenticate(req: HttpRequestLike): HttpReply | undefined | Promise<HttpReply | undefined> {
    const header = req.header('authorization');
    if (header === undefined) return this.#unauthorized;
    // "Bearer " and a token seen before: it passed the syntax check below when it was first verified.
    if (this.#cached !== undefined && header.length > 7 && BEARER_PREFIX.test(header)) {
      const cached = this.#cached(header.slice(7));
      const known = cached === undefined || hasOwner(cached) ? cached : this.#owned.get(cached);
      if (known !== undefined) {
        if (this.#required.length > 0) {
          const refused = this.insufficientScope(known, this.#required);
          if (refused) return refused;
        }
        req.authInfo = known;
        return undefined;
      }
    }
    return this.#verify(req, header);
  }

  async #verify(req: HttpRequestLike, header: string): Promise<HttpReply | undefined> {
    const match = BEARER.exec(header);
    if (match === null)
      return this.#refuse(400, 'invalid_request', 'The Authorization header must be one Bearer token');
    let outcome: Awaited<ReturnType<TokenVerifier['verify']>>;
    try {
      outcome = await this.#verifier.verify(match[1] as string);
    } catch (e) {
      outcome = { error: 'unavailable', description: 'The access token could not be checked', cause: e };
    }
    if ('error' in outcome) {
      if (outcome.error === 'unavailable') {
        this.#report(outcome);
        return httpError(503, `Service Unavailable: ${outcome.description}`, ErrorCode.InternalError, null, {
          'retry-after': '5',
        });
      }
      return this.#refuse(401, 'invalid_token', outcome.description);
    }
    if (this.#required.length > 0) {
      const refused = this.insufficientScope(outcome, this.#required);
      if (refused) return refused;
    }
    req.authInfo = hasOwner(outcome) ? outcome : await this.#ownedBy(outcome, match[1] as string);
    return undefined;
  }

  /** Tells `onerror` why a token could not be checked (once per failure; the client is told only that it could not). */
  #report(failure: AuthFailure): void {
    if (this.#onerror === undefined || this.#reported.has(failure)) return;
    this.#reported.add(failure);
    this.#onerror(
      new McpkitError(
        'AUTH_VERIFIER_FAILED',
        `The access token could not be checked: ${failure.description}`,
        failure.cause === undefined ? undefined : { cause: failure.cause },
      ),
    );
  }

  /**
   * A verified token that names no subject and no client still has an owner, never "unauthenticated": a hash of
   * the token (kept per principal object, so a cached one is not hashed again).
   */
  async #ownedBy(auth: AuthInfo, token: string): Promise<AuthInfo> {
    const known = this.#owned.get(auth);
    if (known !== undefined) return known;
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
    const owned: AuthInfo = { ...auth, principal: `token:${encodeBase64url(new Uint8Array(digest))}` };
    this.#owned.set(auth, owned);
    return owned;
  }

  /**
   * 403 `insufficient_scope` when `auth` lacks some of `needed`; the challenge names every scope the operation
   * needs together with those already granted (the client asks for all of them at once).
   */
  insufficientScope(auth: AuthInfo, needed: readonly string[]): HttpReply | undefined {
    const missing = needed.filter((s) => !auth.scopes.includes(s));
    if (missing.length === 0) return undefined;
    const scopes = [...new Set([...this.#required, ...auth.scopes, ...needed])].join(' ');
    return httpError(
      403,
      `Forbidden: insufficient scope (needs ${missing.join(' ')})`,
      ErrorCode.InvalidRequest,
      null,
      {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${quoted(scopes)}", resource_metadata="${this.metadataUrl}", error_description="${quoted(`Needs the scope ${missing.join(' ')}`)}"`,
      },
    );
  }

  /**
   * 403 when the authenticated request lacks the scopes one of `messages` needs (`needed` tells, per message, from
   * what it names); undefined when it may go on.
   */
  refuseScopes(
    req: HttpRequestLike,
    messages: readonly JsonRpcMessage[],
    needed: (message: JsonRpcMessage) => readonly string[],
  ): HttpReply | undefined {
    // Set by authenticate() above, the only way a request reaches this check.
    const auth = req.authInfo as AuthInfo;
    for (const message of messages) {
      const scopes = needed(message);
      if (scopes.length === 0) continue;
      const refused = this.insufficientScope(auth, scopes);
      if (refused) return refused;
    }
    return undefined;
  }

  #refuse(status: number, error: string, description: string): HttpReply {
    return httpError(
      status,
      `${status === 400 ? 'Bad Request' : 'Unauthorized'}: ${description}`,
      ErrorCode.InvalidRequest,
      null,
      {
        'www-authenticate': `${this.#challengeBase}, error="${error}", error_description="${quoted(description)}"`,
      },
    );
  }
}

/** A value fit for a quoted-string of an RFC 6750 challenge (no `"` or `\`, visible ASCII and space). */
function quoted(value: string): string {
  return value.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
}

function hasOwner(auth: AuthInfo): boolean {
  return principalOf(auth) !== undefined;
}
