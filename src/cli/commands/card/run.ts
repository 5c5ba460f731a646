// What `mcpkit card` does once it runs (loaded only then).
import { compareServerCard, fetchServerCard } from '../../../client/server-card.js';
import { McpkitError } from '../../../jsonrpc/errors.js';
import { serverCommand } from '../../shared/execute.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { note, out, outJson } from '../../shared/output.js';
import { withConnection } from '../../shared/session.js';
import type { CardFlags } from './flags.js';

/** Fetches and prints the card of the URL's server, then lists where the live server disagrees with it. */
export async function card(words: readonly string[], flags: CardFlags): Promise<number> {
  const [url, ...extra] = words;
  if (serverCommand.words !== undefined || url === undefined || extra.length > 0 || !/^https?:\/\//.test(url))
    throw new CliError(ExitCode.usage, 'card needs one http(s) URL: mcpkit card <url>');
  let fetched: Awaited<ReturnType<typeof fetchServerCard>>;
  try {
    fetched = await fetchServerCard(url);
  } catch (e) {
    if (e instanceof McpkitError) throw e;
    throw new CliError(ExitCode.unreachable, `Could not fetch the card of ${url}: ${(e as Error).message}`);
  }
  const warnings = await withConnection(url, flags, async ({ client, timeout }) => {
    const caps = client.serverCapabilities;
    const tools = caps?.tools ? (await client.listTools({ timeout })).map((t) => t.name) : [];
    return compareServerCard(fetched.card, {
      info: client.serverInfo,
      protocolVersion: client.protocolVersion,
      capabilities: caps,
      tools,
    });
  });
  if (flags.format === 'json') outJson({ url: fetched.url, card: fetched.card, warnings });
  else {
    out(JSON.stringify(fetched.card, null, 2));
    for (const w of warnings) note(`warning: ${w}`);
  }
  return warnings.length > 0 && flags.strict ? ExitCode.usage : ExitCode.ok;
}
