import type { CallToolResult } from '../../spec/types.js';
import type { ModelTool } from '../model/types.js';
import type { HostTool } from '../registry.js';
import { estimateToolTokens } from '../search/budget.js';
import type { ToolSearch } from '../search/facade.js';

/**
 * How a chat shows the host's tools to the model: `all` (every definition, each turn), `search` (the two tools of the
 * tool search, `search_tools` and `call_tool`, plus the tools found so far), `auto` (`search` once the definitions
 * take more than `toolBudget` tokens, else `all`), or `provider` (every tool deferred to the model API's own tool
 * search: Anthropic's and the OpenAI Responses API's; other adapters refuse it).
 */
export type ToolExposure = 'all' | 'search' | 'auto' | 'provider';

/** The tools of one model request and how they are shown. */
export interface OfferedTools {
  mode: 'all' | 'search' | 'provider';
  tools: ModelTool[];
}

/** A change of how the tools are shown: the mode, the tools concerned and the tokens of their definitions (estimated). */
export interface ExposureChange {
  mode: OfferedTools['mode'];
  tools: number;
  tokens: number;
}

/** What the chat's options say of its tools (see {@link ChatOptions}). */
export interface ExposureOptions {
  tools?: ((tool: HostTool) => boolean) | undefined;
  toolExposure?: ToolExposure | undefined;
  toolBudget?: number | undefined;
  promoteFound?: number | undefined;
}

/** What the offer needs of the chat's host. */
export interface OfferHost {
  tools(): HostTool[];
  tool(name: string): HostTool | undefined;
  readonly toolSearch?: ToolSearch | undefined;
}

/**
 * The tools a chat offers each round, by its exposure: every definition, the tool search's two tools and the tools
 * found so far (appended in the order first found, bounded, never reordered, so prompt caches hold), or every tool
 * deferred to the provider. A change of mode is told to `onchange`.
 */
export class ToolOffer {
  readonly #host: OfferHost;
  readonly #options: ExposureOptions;
  readonly #onchange: (change: ExposureChange) => void;
  /** Tools found by `search_tools`, offered natively from then on, in the order found. */
  readonly #promoted: string[] = [];
  #said: string | undefined;

  constructor(host: OfferHost, options: ExposureOptions, onchange: (change: ExposureChange) => void) {
    this.#host = host;
    this.#options = options;
    this.#onchange = onchange;
  }

  /** The tools of this round and how they are shown. */
  offer(): OfferedTools {
    const o = this.#options;
    const offered = this.#host.tools().filter((t) => o.tools?.(t) ?? true);
    const definitions = offered.map((t) => t.definition);
    const exposure = o.toolExposure ?? 'all';
    const tokens = exposure === 'all' ? 0 : estimateToolTokens(definitions);
    const mode = exposure === 'auto' ? (tokens > (o.toolBudget ?? 10_000) ? 'search' : 'all') : exposure;
    const said = `${mode}/${offered.length}`;
    if (exposure !== 'all' && said !== this.#said) {
      this.#said = said;
      this.#onchange({ mode, tools: offered.length, tokens });
    }
    if (mode === 'all') return { mode, tools: definitions };
    if (mode === 'provider') return { mode, tools: definitions.map((d) => ({ ...d, defer: true })) };
    const search = this.#host.toolSearch as ToolSearch;
    const promoted = this.#promoted
      .map((name) => this.#host.tool(name))
      .filter((t): t is HostTool => t !== undefined && !search.has(t.name) && (o.tools?.(t) ?? true))
      .map((t) => t.definition);
    return { mode, tools: [...search.tools, ...promoted] };
  }

  /** Remembers the tools a search found, to offer them natively (bounded, in the order first found). */
  promote(result: CallToolResult): void {
    const max = this.#options.promoteFound ?? 10;
    const found = result.structuredContent?.tools;
    if (result.isError === true || !Array.isArray(found)) return;
    for (const t of found) {
      if (this.#promoted.length >= max) return;
      const name = (t as { name?: unknown }).name;
      if (typeof name === 'string' && !this.#promoted.includes(name)) this.#promoted.push(name);
    }
  }
}
