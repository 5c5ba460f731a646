import type { Tool } from '../../spec/types.js';

/** A tool as a ranker sees it: the model's (qualified) name for it, its server, and its definition as listed. */
export interface SearchableTool {
  /** The qualified name (what `call_tool` takes). */
  name: string;
  server: string;
  /** The definition as its server lists it (its own name, title, description, input schema). */
  tool: Tool;
}

/** What one search asks for. */
export interface RankOptions {
  /** The most tools answered. */
  limit: number;
  /** Only tools of these servers, when given. */
  servers?: ReadonlySet<string>;
}

/** One tool found, with the ranker's score (higher is better; comparable within one answer only). */
export interface RankedTool {
  name: string;
  score: number;
}

/**
 * A ranker of tools for a request in natural language. mcpkit's own is {@link LexicalRanker} (no dependency, well under
 * a millisecond for thousands of tools); an app can plug in another (embeddings, a hosted reranker) through the host's
 * `toolSearch.ranker` option. `index` is called with every searchable tool when the set changes, before the next
 * `search`; either may be asynchronous.
 */
export interface ToolRanker {
  index(tools: readonly SearchableTool[]): void | Promise<void>;
  search(query: string, options: RankOptions): readonly RankedTool[] | Promise<readonly RankedTool[]>;
}

/** The fields of a tool a ranker reads, as text: what an embedding ranker would embed. */
export interface ToolFields {
  /** The server's own name of the tool. */
  name: string;
  title: string;
  description: string;
  /** The names of its arguments (top-level properties of its input schema). */
  argumentNames: string;
  /** The descriptions of its arguments. */
  argumentDescriptions: string;
  server: string;
}

/** The most arguments read of one schema (a schema with thousands of properties costs no more than this). */
const MAX_ARGUMENTS = 64;

/** The text fields of a searchable tool (the input schema's top-level properties only). */
export function toolFields(entry: SearchableTool): ToolFields {
  const { tool } = entry;
  const names: string[] = [];
  const descriptions: string[] = [];
  const properties = tool.inputSchema?.properties;
  if (properties !== null && typeof properties === 'object' && !Array.isArray(properties)) {
    for (const [name, schema] of Object.entries(properties).slice(0, MAX_ARGUMENTS)) {
      names.push(name);
      const described =
        schema !== null && typeof schema === 'object' ? (schema as { description?: unknown }) : {};
      if (typeof described.description === 'string') descriptions.push(described.description);
    }
  }
  return {
    name: tool.name,
    title: typeof tool.title === 'string' ? tool.title : (tool.annotations?.title ?? ''),
    description: typeof tool.description === 'string' ? tool.description : '',
    argumentNames: names.join(' '),
    argumentDescriptions: descriptions.join(' '),
    server: entry.server,
  };
}

/** A tool as one text (name, title, description, arguments): for rankers that embed a document. */
export function toolDocument(entry: SearchableTool): string {
  const f = toolFields(entry);
  return [f.name, f.title, f.description, f.argumentNames, f.argumentDescriptions]
    .filter((s) => s !== '')
    .join('\n');
}
