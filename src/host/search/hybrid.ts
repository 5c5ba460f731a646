import { EmbeddingRanker, type EmbeddingRankerOptions, top } from './embedding.js';
import { LexicalRanker } from './lexical.js';
import type { RankedTool, RankOptions, SearchableTool, ToolRanker } from './ranker.js';

/** Options of {@link HybridRanker}: the embedding ranker's, the lexical ranker, and how the two are fused. */
export interface HybridRankerOptions extends EmbeddingRankerOptions {
  /** The lexical side. Default: a `LexicalRanker` with its defaults. */
  lexical?: LexicalRanker;
  /**
   * How the two are fused: `weighted` adds the lexical score over the best one's (weight `lexicalWeight`) to the
   * similarity scaled between the least and most similar tools (the rest); `rrf` adds reciprocal ranks
   * (1 / (`rrfK` + rank)), the lexical one times `lexicalWeight` over its complement. Default `weighted`.
   */
  fusion?: 'weighted' | 'rrf';
  /** The lexical side's share, 0 to 1. Default 0.6 (chosen on the bench's tuning half). */
  lexicalWeight?: number;
  /** RRF's constant. Default 60. */
  rrfK?: number;
}

/** Lexical candidates fused per search (tools past them count as no lexical match). */
const LEXICAL_CANDIDATES = 100;
/** Lexical scores from here up are an exact name's bonus. */
const EXACT = 1e5;

/**
 * A lexical and an embedding ranker fused: the lexical side finds precise requests and exact names, the embedding
 * side requests that share no word with a definition; a tool both rank well comes first.
 */
export class HybridRanker implements ToolRanker {
  readonly #lexical: LexicalRanker;
  readonly #embedding: EmbeddingRanker;
  readonly #fusion: 'weighted' | 'rrf';
  readonly #weight: number;
  readonly #rrfK: number;
  #names: string[] = [];
  #servers: string[] = [];
  #docs = new Map<string, number>();

  constructor(options: HybridRankerOptions) {
    this.#lexical = options.lexical ?? new LexicalRanker();
    this.#embedding = new EmbeddingRanker(options);
    this.#fusion = options.fusion ?? 'weighted';
    this.#weight = Math.min(1, Math.max(0, options.lexicalWeight ?? 0.6));
    this.#rrfK = options.rrfK ?? 60;
  }

  async index(tools: readonly SearchableTool[]): Promise<void> {
    await this.#embedding.index(tools);
    this.#lexical.index(tools);
    this.#names = tools.map((t) => t.name);
    this.#servers = tools.map((t) => t.server);
    this.#docs = new Map(this.#names.map((name, doc) => [name, doc]));
  }

  async search(query: string, options: RankOptions): Promise<RankedTool[]> {
    const n = this.#names.length;
    if (n === 0 || options.limit < 1) return [];
    const similar = await this.#embedding.similarities(query);
    const lexical = this.#lexical.search(query, {
      limit: Math.min(n, LEXICAL_CANDIDATES),
      ...(options.servers ? { servers: options.servers } : {}),
    });
    const scores = new Float64Array(n);
    const w = this.#weight;
    if (this.#fusion === 'rrf') {
      const k = this.#rrfK;
      const order = [...similar.keys()].sort((a, b) => (similar[b] as number) - (similar[a] as number));
      order.forEach((doc, rank) => {
        scores[doc] = (1 - w) / (k + rank + 1);
      });
      lexical.forEach(({ name }, rank) => {
        const doc = this.#docs.get(name);
        if (doc !== undefined) scores[doc] = (scores[doc] as number) + w / (k + rank + 1);
      });
    } else {
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (const s of similar) {
        if (s < min) min = s;
        if (s > max) max = s;
      }
      const span = max - min || 1;
      for (let doc = 0; doc < n; doc++) scores[doc] = ((1 - w) * ((similar[doc] as number) - min)) / span;
      // The lexical ranker's bonus for an exact name (1e6) would flatten every other lexical score: such a tool
      // comes first, and the rest are scaled by the best score below it.
      const best = lexical.find((r) => r.score < EXACT)?.score ?? 0;
      for (const { name, score } of lexical) {
        const doc = this.#docs.get(name);
        if (doc === undefined) continue;
        const share = score >= EXACT ? 2 / Math.max(w, 0.01) : best > 0 ? score / best : 0;
        scores[doc] = (scores[doc] as number) + w * share;
      }
    }
    return top(scores, this.#names, this.#servers, options);
  }
}
