import { McpkitError } from '../jsonrpc/errors.js';
import {
  CARD_DEFINITION_META,
  type CardDefinition,
  SERVER_CARD_MEDIA_TYPE,
  type ServerCard,
  serverCardProblem,
} from '../spec/server-card.js';
import type { Implementation, ServerCapabilities } from '../spec/types.js';

/** Largest card accepted (bytes). */
const MAX_CARD_BYTES = 1024 * 1024;

/**
 * Fetches the server card of a Streamable HTTP endpoint from `<endpoint>/server-card` (the draft's reserved place),
 * asking for `application/mcp-server-card+json`. A card that is not there (any status but 200), not JSON, too large
 * or missing the draft's required fields is McpkitError CARD_INVALID saying which.
 */
export async function fetchServerCard(
  endpoint: string | URL,
  options: { fetch?: typeof fetch; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<{ url: string; card: ServerCard; contentType: string | undefined }> {
  const url = `${String(endpoint).replace(/\/$/, '')}/server-card`;
  const init: RequestInit = {
    headers: { accept: SERVER_CARD_MEDIA_TYPE, ...options.headers },
    redirect: 'error',
  };
  if (options.signal) init.signal = options.signal;
  const response = await (options.fetch ?? fetch)(url, init);
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new McpkitError(
      'CARD_INVALID',
      `The server does not describe itself: GET ${url} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
    );
  }
  const text = await response.text();
  if (text.length > MAX_CARD_BYTES)
    throw new McpkitError('CARD_INVALID', `The card at ${url} is over ${MAX_CARD_BYTES} bytes`);
  let card: unknown;
  try {
    card = JSON.parse(text);
  } catch {
    throw new McpkitError('CARD_INVALID', `The card at ${url} is not JSON`);
  }
  const problem = serverCardProblem(card);
  if (problem) throw new McpkitError('CARD_INVALID', `The card at ${url} is not a server card: ${problem}`);
  return { url, card: card as ServerCard, contentType: response.headers.get('content-type') ?? undefined };
}

/** What a live server answered, to hold a card against. */
export interface LiveServer {
  info: Implementation | undefined;
  protocolVersion: string | undefined;
  capabilities: ServerCapabilities | undefined;
  /** The names of the tools it lists. */
  tools: readonly string[];
}

/**
 * Where a card disagrees with the live server, one sentence each: version, title, the negotiated revision not among
 * the card's, and (for mcpkit's cards, from their `_meta`) the capabilities' kinds and the tools. Empty: none.
 */
export function compareServerCard(card: ServerCard, live: LiveServer): string[] {
  const out: string[] = [];
  if (live.info && card.version !== live.info.version)
    out.push(`version: the card says ${card.version}, the server ${live.info.version}`);
  if (live.info?.title !== undefined && card.title !== undefined && card.title !== live.info.title)
    out.push(`title: the card says "${card.title}", the server "${live.info.title}"`);
  const versions = card.remotes?.find((r) => r.type === 'streamable-http')?.supportedProtocolVersions;
  if (versions && live.protocolVersion && !versions.includes(live.protocolVersion))
    out.push(`protocol: the server speaks ${live.protocolVersion}, which the card does not list`);
  const definition = card._meta?.[CARD_DEFINITION_META] as CardDefinition | undefined;
  if (definition && typeof definition === 'object') {
    const said = Object.keys(definition.capabilities ?? {}).sort();
    const has = Object.keys(live.capabilities ?? {}).sort();
    for (const k of said)
      if (!has.includes(k)) out.push(`capabilities: the card declares "${k}", the server does not`);
    for (const k of has)
      if (!said.includes(k)) out.push(`capabilities: the server declares "${k}", the card does not`);
    const tools = new Set(definition.tools ?? []);
    for (const t of tools)
      if (!live.tools.includes(t)) out.push(`tools: the card lists "${t}", the server does not`);
    for (const t of live.tools)
      if (!tools.has(t)) out.push(`tools: the server lists "${t}", the card does not`);
  }
  return out;
}
