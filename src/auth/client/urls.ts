import { McpkitError } from '../../jsonrpc/errors.js';
import { isLoopbackHost } from '../../transport/loopback.js';
import { type AddressRange, hostRange } from './address-range.js';

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

/** What an app allows beyond `addressRefusal`'s rule: every special-purpose address (true), or those a predicate accepts. */
export type AllowPrivateNetwork = boolean | ((url: URL, range: AddressRange, address: string) => boolean);

/** The inputs of the rule for URLs learned from discovery: the MCP server, and what the app allows. */
export interface ReachRule {
  /** The MCP server the OAuth client works for. */
  readonly server: URL;
  /** The app's own allowance ({@link AllowPrivateNetwork}); default none. */
  readonly allowPrivateNetwork?: AllowPrivateNetwork | undefined;
}

/**
 * The one rule for every URL the OAuth client learns from discovery, applied to the URL's host and again to each
 * address a name resolves to when connecting: the range that forbids `address` ({@link hostRange}: loopback,
 * private, link-local, unique-local, unspecified, multicast, CGNAT, reserved, in any notation), or undefined when
 * it may be reached: a public address, a URL on the MCP server's own origin (the person chose that server), an
 * address in the same range as the server's own host (a server on loopback may name a loopback authorization
 * server), or one the app allows. A remote server's discovery never aims this client at this machine or its network.
 */
export function addressRefusal(url: URL, address: string, rule: ReachRule): AddressRange | undefined {
  if (url.origin === rule.server.origin) return undefined;
  const range = hostRange(address);
  if (range === undefined || range === hostRange(rule.server.hostname)) return undefined;
  const allow = rule.allowPrivateNetwork;
  if (allow === true || (typeof allow === 'function' && allow(url, range, address))) return undefined;
  return range;
}

/** Whether `url` may be called at all: {@link isSecureFor} the server, and its host not refused by `addressRefusal`. */
export function reachable(url: URL, rule: ReachRule): boolean {
  return isSecureFor(url, rule.server) && addressRefusal(url, url.hostname, rule) === undefined;
}

/** {@link requireSecure}, then `addressRefusal` on the URL's host, or `AUTH_PRIVATE_NETWORK`. */
export function requireReachable(url: URL, what: string, rule: ReachRule): URL {
  requireSecure(url, what, rule.server);
  requireAddress(url, url.hostname, what, rule);
  return url;
}

/** `addressRefusal` for one address (the URL's host, or what it resolved to), or `AUTH_PRIVATE_NETWORK`. */
export function requireAddress(url: URL, address: string, what: string, rule: ReachRule): void {
  const range = addressRefusal(url, address, rule);
  if (range === undefined) return;
  const where =
    address === url.hostname
      ? `it is on ${article(range)} ${range} address`
      : `${url.hostname} resolves to ${address}, ${article(range)} ${range} address`;
  throw new McpkitError(
    'AUTH_PRIVATE_NETWORK',
    `Refused the ${what} ${url.origin}${url.pathname}: ${where}; the MCP server ${rule.server.origin} is not on one, and its discovery may not send this client to such an address (the app can allow it: allowPrivateNetwork)`,
  );
}

function article(range: AddressRange): string {
  return range === 'unspecified' || range === 'unique-local' ? 'an' : 'a';
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
