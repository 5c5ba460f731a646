import { McpkitError } from '../../jsonrpc/errors.js';
import { isLoopbackHost } from '../../transport/loopback.js';

/** True for a URL on a loopback host ({@link isLoopbackHost}). */
export function isLoopback(url: URL): boolean {
  return isLoopbackHost(url.hostname);
}

/**
 * Whether the OAuth client may call `url` for the MCP server `server`: HTTPS, or plain HTTP on a loopback
 * host only when the MCP server is itself on loopback (a remote server never gets the client to speak plain
 * HTTP, not even to this machine).
 */
export function isSecureFor(url: URL, server: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url) && isLoopback(server));
}

/** {@link isSecureFor}, or `AUTH_INSECURE_ENDPOINT`. */
export function requireSecure(url: URL, what: string, server: URL): URL {
  if (isSecureFor(url, server)) return url;
  throw new McpkitError(
    'AUTH_INSECURE_ENDPOINT',
    `Refused the ${what} ${url.origin}${url.pathname}: authorization endpoints must use HTTPS (plain HTTP only on loopback, for an MCP server on loopback)`,
  );
}

/**
 * Whether the `resource_metadata` URL a challenge names may be fetched: it may be on another origin (RFC 9728
 * allows it), but must be {@link isSecureFor} the server, and a remote server cannot point the client at a
 * loopback address (no requests to this machine's own services on a remote server's word).
 */
export function metadataUrlAllowed(url: URL, server: URL): boolean {
  return isSecureFor(url, server) && (isLoopback(server) || !isLoopback(url));
}

/** Parses a URL from untrusted metadata; undefined when it is not one. */
export function parseUrl(value: unknown, base?: URL): URL | undefined {
  if (typeof value !== 'string') return undefined;
  return URL.canParse(value, base?.href) ? new URL(value, base) : undefined;
}

/** The canonical URI of an MCP server (RFC 8707): no fragment, no query, no trailing slash after a path. */
export function canonicalResource(server: URL): URL {
  const url = new URL(server.href);
  url.hash = '';
  url.search = '';
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.slice(0, -1);
  return url;
}

/**
 * Whether protected-resource metadata naming `resource` may speak for `server`: same origin, and the
 * resource's path is the server's path or a path segment prefix of it (a PRM for the origin covers `/mcp`).
 */
export function resourceCovers(resource: URL, server: URL): boolean {
  if (resource.origin !== server.origin || resource.search !== '' || resource.hash !== '') return false;
  const want = trimSlash(server.pathname);
  const have = trimSlash(resource.pathname);
  return have === '' || want === have || want.startsWith(`${have}/`);
}

function trimSlash(path: string): string {
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

/** RFC 9728 well-known URIs of a server's protected-resource metadata: path-inserted first, then the root. */
export function resourceMetadataUrls(server: URL): URL[] {
  const root = new URL('/.well-known/oauth-protected-resource', server.origin);
  const path = trimSlash(server.pathname);
  if (path === '') return [root];
  return [new URL(`/.well-known/oauth-protected-resource${path}`, server.origin), root];
}

/**
 * The metadata URLs of an authorization server in the order MCP prescribes: RFC 8414 then OpenID Connect;
 * for an issuer with a path, both path-inserted, then OpenID Connect's path-appended form.
 */
export function authorizationServerMetadataUrls(issuer: URL): URL[] {
  const path = trimSlash(issuer.pathname);
  if (path === '') {
    return [
      new URL('/.well-known/oauth-authorization-server', issuer.origin),
      new URL('/.well-known/openid-configuration', issuer.origin),
    ];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`/.well-known/openid-configuration${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}
