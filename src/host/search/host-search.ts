import type { ServerConnection } from '../connection.js';
import type { HostTool, Registry } from '../registry.js';
import type { ToolMatch, ToolSearchAnswer, ToolSearchOptions } from './facade.js';
import type { ToolIndex } from './tool-index.js';

/** The most notes one answer carries about servers whose tools were not searched. */
const MAX_NOTES = 10;

/**
 * A search of the host's tools: servers whose tools the registry does not know yet (a lazy server with no cached list,
 * one still starting) are started or waited for, at most `waitMs` together; then the index of the registry's tools
 * (running servers' and cached lists) is searched. Servers that could not be searched are named in the notes.
 */
export async function searchHostTools(
  query: string,
  options: ToolSearchOptions,
  connections: ReadonlyMap<string, ServerConnection>,
  registry: Registry,
  index: ToolIndex,
  waitMs: number,
): Promise<ToolSearchAnswer> {
  const notes: string[] = [];
  const wanted = options.servers === undefined ? undefined : new Set(options.servers);
  if (wanted)
    for (const name of wanted) if (!connections.has(name)) notes.push(`There is no server named ${name}.`);
  const concerned = [...connections.values()].filter((c) => !wanted || wanted.has(c.config.name));
  const unknown = concerned.filter((c) => {
    const state = c.status.state;
    const pending = state === 'idle' || state === 'starting' || state === 'restarting';
    return pending && registry.listed(c.config.name) === undefined;
  });
  if (unknown.length > 0) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(unknown.map((c) => c.ensure())),
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }
  for (const c of concerned) {
    const { state, reason } = c.status;
    if (state === 'ready' || state === 'disabled' || registry.listed(c.config.name) !== undefined) continue;
    if (notes.length === MAX_NOTES) {
      notes.push('(more servers could not be searched)');
      break;
    }
    notes.push(
      state === 'starting' || state === 'restarting'
        ? `The server ${c.config.name} is still starting: its tools were not searched (search again shortly).`
        : `The server ${c.config.name} is ${state}${reason ? ` (${reason})` : ''}: its tools were not searched.`,
    );
  }
  const filter = options.filter;
  const limit = Math.max(1, options.limit ?? 5);
  const ranked = await index.search(query, {
    // A filter the ranker cannot apply is applied to a few more of its best.
    limit: filter ? limit * 4 : limit,
    ...(wanted ? { servers: wanted } : {}),
  });
  const tools: ToolMatch[] = [];
  for (const { name } of ranked) {
    const tool = registry.tool(name);
    if (!tool || (wanted && !wanted.has(tool.server)) || (filter && !filter(tool))) continue;
    tools.push(matchOf(tool));
    if (tools.length === limit) break;
  }
  return { tools, notes };
}

function matchOf(t: HostTool): ToolMatch {
  const d = t.definition;
  return {
    name: t.name,
    server: t.server,
    ...(d.title === undefined ? {} : { title: d.title }),
    ...(d.description === undefined ? {} : { description: d.description }),
    inputSchema: d.inputSchema,
    ...(t.cached ? { cached: true } : {}),
  };
}
