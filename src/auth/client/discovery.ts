import * as oauth from 'oauth4webapi';
import { McpkitError } from '../../jsonrpc/errors.js';
import { type AuthHttp, getMetadata, step } from './http.js';
import {
  authorizationServerMetadataUrls,
  canonicalResource,
  parseUrl,
  reachable,
  requireReachable,
  resourceCovers,
  resourceMetadataUrls,
} from './urls.js';

/** What discovery found for one MCP server: the authorization server to use and the resource to name. */
export interface Discovery {
  /** The `resource` parameter of authorization and token requests (RFC 8707). */
  readonly resource: URL;
  /** The protected-resource metadata (RFC 9728); undefined for a 2025-03-26 server that has none. */
  readonly resourceMetadata: oauth.ResourceServer | undefined;
  /** The authorization server's metadata, its `issuer` checked against where it was found. */
  readonly authorizationServer: oauth.AuthorizationServer;
  /**
   * How the authorization server was found: `metadata` through protected-resource metadata, or the
   * 2025-03-26 fallbacks: `legacy-metadata` (metadata at the server's origin) and `legacy-defaults`
   * (`/authorize`, `/token`, `/register` at the origin).
   */
  readonly mode: 'metadata' | 'legacy-metadata' | 'legacy-defaults';
}

/**
 * Discovers how to get a token for `server`: protected-resource metadata (the challenge's
 * `resource_metadata`, then the path-inserted and root well-known URIs), then the authorization server's
 * metadata in MCP's order; without protected-resource metadata, the 2025-03-26 fallbacks.
 */
export async function discover(
  server: URL,
  resourceMetadataUrl: URL | undefined,
  http: AuthHttp,
): Promise<Discovery> {
  const prm = await fetchResourceMetadata(server, resourceMetadataUrl, http);
  if (prm === undefined) return legacy(server, http);
  const resource = new URL(prm.resource);
  const issuer = parseUrl(prm.authorization_servers?.[0]);
  if (issuer === undefined) {
    throw new McpkitError(
      'AUTH_DISCOVERY_FAILED',
      `The protected-resource metadata of ${server.href} names no valid authorization server`,
    );
  }
  const as = await fetchAuthorizationServer(requireReachable(issuer, 'authorization server', http), http);
  if (as === undefined) {
    throw new McpkitError(
      'AUTH_DISCOVERY_FAILED',
      `No metadata found for the authorization server ${issuer.href} (tried ${authorizationServerMetadataUrls(
        issuer,
      )
        .map((u) => u.pathname)
        .join(', ')})`,
    );
  }
  return { resource, resourceMetadata: prm, authorizationServer: as, mode: 'metadata' };
}

async function fetchResourceMetadata(
  server: URL,
  fromChallenge: URL | undefined,
  http: AuthHttp,
): Promise<oauth.ResourceServer | undefined> {
  const candidates = resourceMetadataUrls(server);
  // A challenge's URL that may not be fetched for this server (the rule of `reachable`) is ignored: the
  // well-known URIs on the server's own origin remain.
  if (fromChallenge !== undefined && reachable(fromChallenge, http)) candidates.unshift(fromChallenge);
  for (const url of candidates) {
    const response = await getMetadata(http, url, 'protected-resource metadata');
    if (response === undefined) continue;
    // The document names its resource; MCP accepts it when it covers this server (same origin, a path prefix).
    const claimed = parseUrl(await peek(response, 'resource'));
    if (claimed === undefined) {
      throw new McpkitError(
        'AUTH_DISCOVERY_FAILED',
        `The protected-resource metadata at ${url.href} names no valid resource`,
      );
    }
    if (!resourceCovers(claimed, server)) {
      throw new McpkitError(
        'AUTH_RESOURCE_MISMATCH',
        `The protected-resource metadata at ${url.href} is for ${claimed.href}, not for ${server.href}: refused`,
      );
    }
    return step('AUTH_DISCOVERY_FAILED', `Reading the protected-resource metadata at ${url.href}`, () =>
      oauth.processResourceDiscoveryResponse(claimed, response),
    );
  }
  return undefined;
}

/** Tries the metadata URLs of `issuer` in order; the first document found must name exactly that issuer. */
export async function fetchAuthorizationServer(
  issuer: URL,
  http: AuthHttp,
): Promise<oauth.AuthorizationServer | undefined> {
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const response = await getMetadata(http, url, 'authorization server metadata');
    if (response === undefined) continue;
    const as = await step(
      'AUTH_DISCOVERY_FAILED',
      `Reading the authorization server metadata at ${url.href}`,
      () => oauth.processDiscoveryResponse(issuer, response),
    );
    return checkEndpoints(as, http);
  }
  return undefined;
}

/** 2025-03-26: metadata at the server's origin (its issuer is not checked against the origin), else defaults. */
async function legacy(server: URL, http: AuthHttp): Promise<Discovery> {
  const origin = new URL(server.origin);
  const resource = canonicalResource(server);
  const url = new URL('/.well-known/oauth-authorization-server', origin);
  const response = await getMetadata(http, url, 'authorization server metadata');
  if (response !== undefined) {
    const issuer = parseUrl(await peek(response, 'issuer'));
    // That revision defines no issuer check; the document must at least belong to this origin.
    if (issuer === undefined || issuer.origin !== origin.origin) {
      throw new McpkitError(
        'AUTH_DISCOVERY_FAILED',
        `The authorization server metadata at ${url.href} names ${issuer === undefined ? 'no valid issuer' : `the issuer ${issuer.origin}, another origin`}`,
      );
    }
    const as = await step(
      'AUTH_DISCOVERY_FAILED',
      `Reading the authorization server metadata at ${url.href}`,
      () => oauth.processDiscoveryResponse(issuer, response),
    );
    return {
      resource,
      resourceMetadata: undefined,
      authorizationServer: checkEndpoints(as, http),
      mode: 'legacy-metadata',
    };
  }
  const as: oauth.AuthorizationServer = {
    issuer: origin.href,
    authorization_endpoint: new URL('/authorize', origin).href,
    token_endpoint: new URL('/token', origin).href,
    registration_endpoint: new URL('/register', origin).href,
  };
  return {
    resource,
    resourceMetadata: undefined,
    authorizationServer: checkEndpoints(as, http),
    mode: 'legacy-defaults',
  };
}

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const;

/**
 * Every endpoint the client may call (or open in the browser) meets the rule of {@link requireReachable}
 * before any is used: a token endpoint on 169.254.169.254 fails discovery, naming it.
 */
function checkEndpoints(as: oauth.AuthorizationServer, http: AuthHttp): oauth.AuthorizationServer {
  for (const name of ENDPOINTS) {
    const value = as[name];
    if (value === undefined) continue;
    const url = parseUrl(value);
    if (url === undefined)
      throw new McpkitError('AUTH_DISCOVERY_FAILED', `The authorization server's ${name} is not a URL`);
    requireReachable(url, `${name.replace('_', ' ')} of ${as.issuer}`, http);
  }
  return as;
}

/** Reads one string member of a JSON response without consuming it (the response is read again after). */
async function peek(response: Response, member: string): Promise<string | undefined> {
  let value: unknown;
  try {
    value = await response.clone().json();
  } catch {
    return undefined; // not JSON: oauth4webapi's own reading reports it
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const found = (value as Record<string, unknown>)[member];
  return typeof found === 'string' ? found : undefined;
}
