import {
  CARD_DEFINITION_META,
  type CardDefinition,
  cardNameOf,
  SERVER_CARD_SCHEMA,
  type ServerCard,
  type ServerCardRemote,
} from '../spec/server-card.js';
import type { Implementation, ServerCapabilities } from '../spec/types.js';

/** What a card says beyond the server's definition (the draft's identity fields the definition lacks). */
export interface ServerCardOptions {
  /** Reverse-DNS name with one `/` (`com.example/weather`). Default: the server's name if it has that form, else `local/<name>`. */
  name?: string;
  /** At most 100 characters. Default: the server's `description`, else its title or name and "MCP server". */
  description?: string;
  /** The endpoint's public URL when a proxy stands in front (default: the auth resource, else the listening URL). */
  url?: string;
}

/** What a card is generated from: the server's definition and where and how it is served. */
export interface CardSource {
  info: Implementation;
  capabilities: ServerCapabilities;
  /** The names of the tools listed without any scope. */
  tools: readonly string[];
  /** The protocol revisions the server negotiates. */
  versions: readonly string[];
  remotes: readonly ServerCardRemote[];
  auth?: CardDefinition['auth'];
}

/** The server card of a definition: identity from its `Implementation`, remotes and auth from how it is served. */
export function buildServerCard(source: CardSource, options: ServerCardOptions = {}): ServerCard {
  const info = source.info as Implementation & {
    description?: string;
    websiteUrl?: string;
    icons?: ServerCard['icons'];
  };
  const description = options.description ?? info.description ?? `${info.title ?? info.name} (MCP server)`;
  const definition: CardDefinition = {
    capabilities: source.capabilities as { [key: string]: unknown },
    tools: [...source.tools].sort(),
  };
  if (source.auth) definition.auth = source.auth;
  const card: ServerCard = {
    $schema: SERVER_CARD_SCHEMA,
    name: options.name ?? cardNameOf(info.name),
    version: info.version,
    description: description.length > 100 ? `${description.slice(0, 99)}…` : description,
  };
  if (info.title !== undefined) card.title = info.title;
  if (info.websiteUrl !== undefined) card.websiteUrl = info.websiteUrl;
  if (info.icons !== undefined) card.icons = info.icons;
  card.remotes = source.remotes.map((r) =>
    r.type === 'streamable-http' ? { ...r, supportedProtocolVersions: [...source.versions] } : { ...r },
  );
  card._meta = { [CARD_DEFINITION_META]: definition };
  return card;
}
