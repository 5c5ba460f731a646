import { LexicalRanker } from './lexical.js';
import type { RankedTool, RankOptions, SearchableTool, ToolRanker } from './ranker.js';

/**
 * A ranker kept in step with a changing set of tools: told of changes (`changed`), it indexes the set again
 * once, on the next search (concurrent searches share that indexing).
 */
export class ToolIndex {
  readonly ranker: ToolRanker;
  readonly #tools: () => SearchableTool[];
  #version = 0;
  #indexed = -1;
  #indexing: Promise<void> | undefined;

  constructor(tools: () => SearchableTool[], ranker: ToolRanker = new LexicalRanker()) {
    this.#tools = tools;
    this.ranker = ranker;
  }

  /** The set changed: the next search indexes it again. */
  changed(): void {
    this.#version++;
  }

  async search(query: string, options: RankOptions): Promise<readonly RankedTool[]> {
    // Bounded: a set changing faster than it is indexed is searched as last indexed.
    for (let round = 0; round < 3 && this.#indexed !== this.#version; round++) {
      if (!this.#indexing) {
        const version = this.#version;
        this.#indexing = Promise.resolve(this.ranker.index(this.#tools())).then(
          () => {
            this.#indexed = version;
            this.#indexing = undefined;
          },
          (e: unknown) => {
            this.#indexing = undefined;
            throw e;
          },
        );
      }
      await this.#indexing;
    }
    return this.ranker.search(query, options);
  }
}
