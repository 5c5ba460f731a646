import { MODERN_REVISIONS } from '../../../spec/modern.js';
import {
  AI_CATALOG_MEDIA_TYPE,
  AI_CATALOG_PATH,
  type CardDefinition,
  MCP_CATALOG_PATH,
  SERVER_CARD_MEDIA_TYPE,
  type ServerCardRemote,
} from '../../../spec/server-card.js';
import { STATEFUL_REVISIONS } from '../../../spec/versions.js';
import { buildServerCard, type ServerCardOptions } from '../../card.js';
import { scopesOf } from '../../handler/auth.js';
import type { McpServer } from '../../server.js';
import { PRM_PREFIX, type ResourceAuthOptions } from '../core/auth-gate.js';
import { httpError } from '../core/errors.js';
import type { HttpReply, HttpRequestLike } from '../core/http.js';
import { checkRequestOrigin, type SecurityOptions } from '../core/security.js';

/** Where a server is served, for its card. */
export interface CardPlace {
  /** The path the endpoint is served at here (the card is at `<path>/server-card`). */
  path: string;
  /** The Streamable HTTP endpoint's public URL. */
  url: string;
  /** The legacy HTTP+SSE endpoint's URL, when served. */
  sseUrl?: string | undefined;
  auth?: CardDefinition['auth'];
  /**
   * Set for a server bound to loopback: its Host and Origin checks apply to the card too, and no CORS header is sent,
   * so a web page of another site cannot read which servers run on this machine (nor through DNS rebinding).
   */
  local?: SecurityOptions;
}

/** The card's routes: `handle` answers the requests of `paths`. */
export interface CardHandler {
  handle(req: HttpRequestLike): Promise<HttpReply>;
  /** `<endpoint path>/server-card`, `/.well-known/ai-catalog.json` and `/.well-known/mcp/catalog.json`. */
  readonly paths: readonly string[];
}

/** The card of a server behind a web-standard fetch handler (`toFetchHandler`'s `card`). */
export interface FetchCardOptions extends ServerCardOptions {
  server: McpServer;
  /** The path the endpoint is served at. Default '/mcp'. */
  path?: string;
  /** The endpoint's `auth`, when it has one: the card says where its metadata is and which scopes it knows. */
  auth?: ResourceAuthOptions;
}

/**
 * The card route of a fetch handler: the card handler for `options`, its URL (unless `options.url` says it) the
 * origin the request reached and the endpoint's path, made again only when a request names another origin.
 */
export function fetchCardRoute(
  options: FetchCardOptions,
): (req: HttpRequestLike, origin: string) => CardHandler | undefined {
  const path = options.path ?? '/mcp';
  const cardPath = `${path.replace(/\/$/, '')}/server-card`;
  let made: { origin: string; handler: CardHandler } | undefined;
  return (req, origin) => {
    if (req.path !== cardPath && req.path !== AI_CATALOG_PATH && req.path !== MCP_CATALOG_PATH)
      return undefined;
    if (made?.origin !== origin) {
      const place: CardPlace = {
        path,
        url: options.auth?.resource ?? `${origin}${path}`,
        ...cardAuth(options.auth),
      };
      made = { origin, handler: createCardHandler(options.server, place, options) };
    }
    return made.handler;
  };
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
};

/**
 * Serves a server's card at `<endpoint path>/server-card` (`application/mcp-server-card+json`) and an AI Catalog
 * naming it at `/.well-known/ai-catalog.json` (the experimental server card extension's discovery draft; also at
 * `/.well-known/mcp/catalog.json`, where its earlier draft put it): both
 * generated per request from the server's definition (what is registered now), public (CORS `*`, before any auth
 * gate; on loopback, the endpoint's Host and Origin checks instead of CORS), with an ETag answered 304 on `If-None-Match` and `Cache-Control: public, max-age=3600`.
 */
export function createCardHandler(
  server: McpServer,
  place: CardPlace,
  options: ServerCardOptions = {},
): CardHandler {
  const url = options.url ?? place.url;
  const cardPath = `${place.path.replace(/\/$/, '')}/server-card`;
  const publicCard = `${url.replace(/\/$/, '')}/server-card`;
  const remotes: ServerCardRemote[] = [{ type: 'streamable-http', url }];
  if (place.sseUrl !== undefined) remotes.push({ type: 'sse', url: place.sseUrl });
  const card = () => {
    const tools: string[] = [];
    // Behind an auth gate a tool needing a scope is hidden from those without it: the public card does not name it.
    for (const entry of server.tools.enabled())
      if (!place.auth || scopesOf(entry.def).length === 0) tools.push(entry.key);
    return buildServerCard(
      {
        info: server.info,
        capabilities: server.capabilities,
        tools,
        versions: [...STATEFUL_REVISIONS, ...MODERN_REVISIONS],
        remotes,
        ...(place.auth ? { auth: place.auth } : {}),
      },
      options,
    );
  };
  const catalog = () => {
    const name = card().name;
    return {
      specVersion: '1.0',
      entries: [
        {
          identifier: `urn:air:${new URL(url).hostname}:mcp:${name.slice(name.indexOf('/') + 1)}`,
          type: SERVER_CARD_MEDIA_TYPE,
          url: publicCard,
        },
      ],
    };
  };
  return {
    paths: [cardPath, AI_CATALOG_PATH, MCP_CATALOG_PATH],
    async handle(req: HttpRequestLike): Promise<HttpReply> {
      const local = place.local;
      const refused = local && checkRequestOrigin(req, local);
      if (refused) return httpError(refused.status, refused.message);
      const cors = local ? {} : CORS;
      if (req.method === 'OPTIONS') return { status: 204, headers: { ...cors } };
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return httpError(405, `Method Not Allowed: ${req.method}`, undefined, null, {
          allow: 'GET, HEAD, OPTIONS',
        });
      const isCard = req.path === cardPath;
      const body = JSON.stringify(isCard ? card() : catalog(), null, 2);
      const etag = `"${await shortDigest(body)}"`;
      const headers: Record<string, string> = {
        ...cors,
        'content-type': isCard ? SERVER_CARD_MEDIA_TYPE : AI_CATALOG_MEDIA_TYPE,
        'cache-control': 'public, max-age=3600',
        etag,
      };
      if (req.header('if-none-match') === etag) return { status: 304, headers };
      return req.method === 'HEAD' ? { status: 200, headers } : { status: 200, headers, body };
    },
  };
}

async function shortDigest(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let hex = '';
  for (const b of hash.subarray(0, 12)) hex += b.toString(16).padStart(2, '0');
  return hex;
}

/** What a card says of an endpoint's OAuth: where its metadata is, which servers issue tokens, which scopes. */
export function cardAuth(auth: ResourceAuthOptions | undefined): { auth?: CardDefinition['auth'] } {
  if (!auth) return {};
  const url = new URL(auth.resource);
  const metadata = `${url.origin}${url.pathname === '/' ? PRM_PREFIX : `${PRM_PREFIX}${url.pathname}`}`;
  const out: CardDefinition['auth'] = {
    protectedResourceMetadata: metadata,
    authorizationServers: [...auth.authorizationServers],
  };
  if (auth.scopesSupported) out.scopes = [...auth.scopesSupported];
  return { auth: out };
}
