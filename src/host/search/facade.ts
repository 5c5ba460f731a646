import { errorMessage } from '../../jsonrpc/errors.js';
import { compileJsonSchema } from '../../schema/json-schema.js';
import type { CallToolResult, JsonSchema, Tool } from '../../spec/types.js';
import { type ActivityLog, shorten } from '../activity-log.js';
import type { HostTool } from '../registry.js';
import type { HostCallOptions } from '../routing.js';

/** The name of the tool search's search tool (a stable contract: the gateway's `--tool-search` serves it). */
export const SEARCH_TOOLS = 'search_tools';
/** The name of the tool search's call tool. */
export const CALL_TOOL = 'call_tool';

/** The longest query searched, in characters (a longer one is refused, saying so). */
export const MAX_QUERY_CHARS = 1000;
/** Matches answered when the request names no limit. */
export const DEFAULT_SEARCH_LIMIT = 5;
/** The most matches one search answers. */
export const MAX_SEARCH_LIMIT = 25;

/** A tool a search found: what the model needs to call it. */
export interface ToolMatch {
  /** The qualified name (what `call_tool` and `host.callTool` take). */
  name: string;
  server: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  /** Known from the tool-list cache: its server is not running yet (a call starts it). */
  cached?: boolean;
}

/** What a search answers: the best matches, best first, and what the person or model should know about the rest. */
export interface ToolSearchAnswer {
  tools: ToolMatch[];
  /** Servers whose tools could not be searched (starting, failed, unknown), one line each. */
  notes: string[];
}

/** Options of one search ({@link Host.searchTools}). */
export interface ToolSearchOptions {
  /** Only tools of these servers. */
  servers?: readonly string[];
  /** The most matches. Default 5. */
  limit?: number;
  /** Only tools this accepts (a chat's tool filter). */
  filter?: (tool: HostTool) => boolean;
}

/** What the tool search needs of its host. */
export interface ToolSearchHost {
  readonly log: ActivityLog;
  searchTools(query: string, options: ToolSearchOptions): Promise<ToolSearchAnswer>;
  /** A call routed exactly like a direct one, with `check` run on the running server's definition first. */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: HostCallOptions | undefined,
    check: (tool: HostTool) => Promise<CallToolResult | undefined>,
  ): Promise<CallToolResult>;
  tool(name: string): HostTool | undefined;
}

const SEARCH_DEFINITION: Tool = {
  name: SEARCH_TOOLS,
  title: 'Search tools',
  description:
    'Finds the tools for a task among the tools of every connected server (there may be hundreds; only the best matches are answered). Say in a few words what you want to do; each match comes with its qualified name, description and input schema. Then run it with call_tool.',
  inputSchema: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description: 'What the tool should do, in a few words, e.g. "create a GitHub issue" or "read a file"',
      },
      servers: {
        type: 'array',
        items: { type: 'string' },
        description: 'Only tools of these servers (by name)',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_SEARCH_LIMIT,
        description: `How many tools at most (default ${DEFAULT_SEARCH_LIMIT})`,
      },
    },
    required: ['query'],
  },
  annotations: { title: 'Search tools', readOnlyHint: true, openWorldHint: false },
};

const CALL_DEFINITION: Tool = {
  name: CALL_TOOL,
  title: 'Call a tool',
  description:
    'Runs a tool found with search_tools: its qualified name, and arguments that fit its input schema. The call is approved and run like any tool call.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The qualified name search_tools answered' },
      arguments: { type: 'object', description: "The tool's arguments, as its input schema says" },
    },
    required: ['name'],
  },
};

/**
 * Tool search as two tools a model calls instead of seeing every tool: `search_tools` (a query, optional servers and
 * limit: the best-matching tools with their qualified names, descriptions and input schemas) and `call_tool` (a
 * qualified name and arguments: the arguments checked against the tool's input schema, then routed exactly like a
 * direct call, through approval, pinned definitions, the activity log and timeouts). Bad input is a tool result
 * saying what was wrong (an unknown name answers the closest names the search finds), never a thrown error.
 */
export class ToolSearch {
  /** The two tools, `search_tools` and `call_tool`, in that order. */
  readonly tools: readonly Tool[] = [SEARCH_DEFINITION, CALL_DEFINITION];
  readonly #host: ToolSearchHost;

  constructor(host: ToolSearchHost) {
    this.#host = host;
  }

  /** Whether `name` is one of the two tools. */
  has(name: string): boolean {
    return name === SEARCH_TOOLS || name === CALL_TOOL;
  }

  /**
   * Runs `search_tools` or `call_tool` with the arguments the model gave; `options` as for {@link Host.callTool} (who
   * approves, where "for this session" is kept), `filter` limiting both to the tools a chat offers.
   */
  async call(
    name: string,
    args: Record<string, unknown> | undefined,
    options: HostCallOptions & { filter?: (tool: HostTool) => boolean } = {},
  ): Promise<CallToolResult> {
    const { filter, ...call } = options;
    if (name === SEARCH_TOOLS) return this.#search(args ?? {}, filter);
    if (name === CALL_TOOL) return this.#call(args ?? {}, call, filter);
    return failure(`There is no tool named ${name}: the tool search has ${SEARCH_TOOLS} and ${CALL_TOOL}.`);
  }

  async #search(
    args: Record<string, unknown>,
    filter: ((tool: HostTool) => boolean) | undefined,
  ): Promise<CallToolResult> {
    const { query, servers, limit } = args;
    const log = this.#host.log;
    const refuse = (why: string) => {
      log.record({
        kind: 'tool',
        name: SEARCH_TOOLS,
        arguments: args,
        outcome: 'error',
        summary: shorten(why),
      });
      return failure(why);
    };
    if (typeof query !== 'string' || query.trim() === '')
      return refuse(`${SEARCH_TOOLS} needs a query: a few words saying what the tool should do.`);
    if (query.length > MAX_QUERY_CHARS)
      return refuse(
        `The query is ${query.length} characters long; at most ${MAX_QUERY_CHARS}: say in a few words what the tool should do.`,
      );
    if (servers !== undefined && !(Array.isArray(servers) && servers.every((s) => typeof s === 'string')))
      return refuse('servers must be an array of server names.');
    if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 1))
      return refuse(`limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}.`);
    const started = performance.now();
    let answer: ToolSearchAnswer;
    try {
      answer = await this.#host.searchTools(query, {
        limit: Math.min(MAX_SEARCH_LIMIT, (limit as number | undefined) ?? DEFAULT_SEARCH_LIMIT),
        ...(servers === undefined ? {} : { servers: servers as string[] }),
        ...(filter ? { filter } : {}),
      });
    } catch (e) {
      // An app's ranker that fails is the model's tool error, not the end of its turn.
      return refuse(`The search failed: ${errorMessage(e)}`);
    }
    log.record({
      kind: 'tool',
      name: SEARCH_TOOLS,
      arguments: args,
      outcome: 'ok',
      durationMs: performance.now() - started,
      summary: shorten(`${answer.tools.length} found: ${answer.tools.map((t) => t.name).join(', ')}`),
    });
    const found: Record<string, unknown> = { tools: answer.tools.map(({ cached: _, ...t }) => t) };
    if (answer.notes.length > 0) found.notes = answer.notes;
    const text =
      answer.tools.length === 0
        ? `No tool matches ${JSON.stringify(query)}.${answer.notes.length > 0 ? ` ${answer.notes.join(' ')}` : ' Try other words.'}`
        : JSON.stringify(found);
    return { content: [{ type: 'text', text }], structuredContent: found };
  }

  async #call(
    args: Record<string, unknown>,
    options: HostCallOptions,
    filter: ((tool: HostTool) => boolean) | undefined,
  ): Promise<CallToolResult> {
    const { name, arguments: given } = args;
    const log = this.#host.log;
    const refuse = (why: string, what?: string) => {
      log.record({
        kind: 'tool',
        name: what ?? CALL_TOOL,
        arguments: args,
        outcome: 'error',
        summary: shorten(why),
      });
      return failure(why);
    };
    if (typeof name !== 'string' || name === '')
      return refuse(`${CALL_TOOL} needs the qualified name of a tool (as ${SEARCH_TOOLS} answered it).`);
    if (given !== undefined && given !== null && (typeof given !== 'object' || Array.isArray(given)))
      return refuse(
        `The arguments of ${name} must be a JSON object, got ${Array.isArray(given) ? 'an array' : typeof given}.`,
        name,
      );
    const tool = this.#host.tool(name);
    if (!tool || (filter && !filter(tool))) {
      // The names offered are a courtesy: a search that fails offers none (the search itself reports its failure).
      const near = await this.#host
        .searchTools(name.slice(0, MAX_QUERY_CHARS), { limit: 3, ...(filter ? { filter } : {}) })
        .catch((): ToolSearchAnswer => ({ tools: [], notes: [] }));
      const names = near.tools.map((t) => t.name).filter((n) => n !== name);
      return refuse(
        `There is no tool named ${name}.${names.length > 0 ? ` Did you mean ${names.join(', ')}?` : ''} (${SEARCH_TOOLS} finds tools by what they do.)`,
        name,
      );
    }
    const input = (given ?? {}) as Record<string, unknown>;
    return this.#host.callTool(name, input, options, (live) => argumentProblem(live, input));
  }
}

/** Why `args` do not fit the input schema of `tool`, as the model's answer; undefined when they fit (or no schema can say). */
async function argumentProblem(
  tool: HostTool,
  args: Record<string, unknown>,
): Promise<CallToolResult | undefined> {
  const schema = tool.tool.inputSchema;
  let issues: string[];
  try {
    const result = await compileJsonSchema(schema).validate(args);
    if (result.ok) return undefined;
    issues = result.issues;
  } catch {
    // A schema that cannot be compiled decides nothing here: the server checks its own arguments.
    return undefined;
  }
  return failure(
    `The arguments do not fit the input schema of ${tool.name}: ${issues.slice(0, 10).join('; ')}. Its input schema: ${clip(JSON.stringify(schema), 4000)}`,
  );
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
