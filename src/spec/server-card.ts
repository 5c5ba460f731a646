/** The JSON Schema URI every server card names (the experimental server card extension, SEP-2127, v1). */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** The media type of a server card. */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';

/** The media type of an AI Catalog (`/.well-known/ai-catalog.json`). */
export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';

/** Where a domain's AI Catalog is served. */
export const AI_CATALOG_PATH = '/.well-known/ai-catalog.json';

/** Where the earlier discovery draft put the catalog; the same catalog is served there too, for clients of that draft. */
export const MCP_CATALOG_PATH = '/.well-known/mcp/catalog.json';

/** The `_meta` key under which mcpkit's cards carry what the draft leaves out (capabilities, tools, auth). */
export const CARD_DEFINITION_META = 'mcpkit/definition';

/** One remote endpoint of a server card. */
export interface ServerCardRemote {
  type: 'streamable-http' | 'sse';
  url: string;
  supportedProtocolVersions?: string[];
}

/** What mcpkit puts under {@link CARD_DEFINITION_META}: generated from the definition, compared with the live server. */
export interface CardDefinition {
  capabilities: { [key: string]: unknown };
  /** Names of the tools any client may list (behind OAuth, those needing no scope). */
  tools: string[];
  /** Present when the endpoint wants a bearer token. */
  auth?: { protectedResourceMetadata: string; authorizationServers: string[]; scopes?: string[] };
}

/** A server card (the fields of the v1 draft that mcpkit fills). */
export interface ServerCard {
  $schema: string;
  name: string;
  version: string;
  description: string;
  title?: string;
  websiteUrl?: string;
  icons?: { src: string; mimeType?: string; sizes?: string[] }[];
  remotes?: ServerCardRemote[];
  _meta?: { [key: string]: unknown };
}

const CARD_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

/** Why `value` is not a server card of the v1 draft (its required fields), or undefined when it is one. */
export function serverCardProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is not a JSON object';
  const card = value as { [key: string]: unknown };
  if (card.$schema !== SERVER_CARD_SCHEMA) return `"$schema" is not ${SERVER_CARD_SCHEMA}`;
  if (
    typeof card.name !== 'string' ||
    card.name.length < 3 ||
    card.name.length > 200 ||
    !CARD_NAME.test(card.name)
  )
    return '"name" is not a reverse-DNS name with one "/" (like com.example/weather)';
  if (typeof card.version !== 'string' || card.version === '') return '"version" is missing';
  if (typeof card.description !== 'string' || card.description === '' || card.description.length > 100)
    return '"description" is missing or longer than 100 characters';
  if (card.remotes !== undefined && !Array.isArray(card.remotes)) return '"remotes" is not an array';
  return undefined;
}

/** A card name from a server's name: itself when it has the reverse-DNS form, else `local/<name>` made to fit. */
export function cardNameOf(name: string): string {
  if (CARD_NAME.test(name) && name.length <= 200) return name;
  const tail = name.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'server';
  return `local/${tail.slice(0, 190)}`;
}
