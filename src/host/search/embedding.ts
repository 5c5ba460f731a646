import { McpkitError } from '../../jsonrpc/errors.js';
import {
  type RankedTool,
  type RankOptions,
  type SearchableTool,
  type ToolRanker,
  toolFields,
} from './ranker.js';

/** A model of meaning: texts in, one vector each out (any length, the same for every text; need not be normalized). */
export type Embedder = (
  texts: readonly string[],
) => Promise<readonly (readonly number[] | Float32Array)[]> | readonly (readonly number[] | Float32Array)[];

/** Options of {@link EmbeddingRanker}. */
export interface EmbeddingRankerOptions {
  /** The model: called with batches of tools' texts when indexing, and with one query per search. */
  embed: Embedder;
  /** The most texts per call of `embed` when indexing. Default 64. */
  batch?: number;
  /** The most characters of a tool's description embedded (its start says what it does). Default 300. */
  descriptionChars?: number;
}

/** Vectors of documents already embedded, by their text: indexing a changed set embeds only the new texts. */
const MAX_CACHED = 20_000;

/**
 * A ranker by meaning: each tool's name (split into words), title and the start of its description are embedded once
 * (kept by text, so indexing a changed set embeds only what changed), each query once per search, and tools are
 * ranked by cosine similarity. It finds a request that shares no word with a definition; it is weaker than
 * {@link LexicalRanker} on precise requests, so {@link HybridRanker} fuses the two.
 */
export class EmbeddingRanker implements ToolRanker {
  readonly #embed: Embedder;
  readonly #batch: number;
  readonly #descriptionChars: number;
  readonly #cache = new Map<string, Float32Array>();
  #names: string[] = [];
  #servers: string[] = [];
  #vectors: Float32Array[] = [];

  constructor(options: EmbeddingRankerOptions) {
    this.#embed = options.embed;
    this.#batch = Math.max(1, options.batch ?? 64);
    this.#descriptionChars = options.descriptionChars ?? 300;
  }

  async index(tools: readonly SearchableTool[]): Promise<void> {
    const texts = tools.map((t) => embeddingText(t, this.#descriptionChars));
    const missing = [...new Set(texts.filter((t) => !this.#cache.has(t)))];
    for (let i = 0; i < missing.length; i += this.#batch) {
      const part = missing.slice(i, i + this.#batch);
      const vectors = await this.#embed(part);
      if (vectors.length !== part.length)
        throw new McpkitError(
          'INVALID_RESULT',
          `the embedder answered ${vectors.length} vectors for ${part.length} texts`,
        );
      for (const [j, text] of part.entries()) this.#cache.set(text, unit(vectors[j] as readonly number[]));
    }
    this.#vectors = texts.map((t) => this.#cache.get(t) as Float32Array);
    this.#names = tools.map((t) => t.name);
    this.#servers = tools.map((t) => t.server);
    // Bounded: the texts of tools gone long ago are forgotten first (a Map keeps insertion order).
    if (this.#cache.size > MAX_CACHED) {
      const keep = new Set(texts);
      for (const text of this.#cache.keys()) {
        if (this.#cache.size <= MAX_CACHED) break;
        if (!keep.has(text)) this.#cache.delete(text);
      }
    }
  }

  async search(query: string, options: RankOptions): Promise<RankedTool[]> {
    return top(await this.similarities(query), this.#names, this.#servers, options);
  }

  /** The cosine similarity of the query to every indexed tool, in index order (for fusing with another ranker). */
  async similarities(query: string): Promise<Float32Array> {
    const n = this.#vectors.length;
    const out = new Float32Array(n);
    if (n === 0 || query.trim() === '') return out;
    const [answer] = await this.#embed([query.slice(0, 1000)]);
    const q = unit(answer as readonly number[]);
    for (let doc = 0; doc < n; doc++) out[doc] = dot(q, this.#vectors[doc] as Float32Array);
    return out;
  }
}

/** What of a tool is embedded: its name as words, its title, the start of its description. */
export function embeddingText(entry: SearchableTool, descriptionChars = 300): string {
  const f = toolFields(entry);
  const name = f.name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-.:/]+/g, ' ');
  const description = f.description.replace(/\s+/g, ' ').trim().slice(0, descriptionChars);
  return [name, f.title, description].filter((s) => s !== '').join('. ');
}

/** The best `limit` tools by score (of those of the wanted servers); ties keep the index order. */
export function top(
  scores: Float32Array | Float64Array,
  names: readonly string[],
  servers: readonly string[],
  options: RankOptions,
): RankedTool[] {
  const limit = Math.max(0, Math.floor(options.limit));
  const wanted = options.servers;
  const best: { doc: number; score: number }[] = [];
  for (let doc = 0; doc < scores.length; doc++) {
    if (wanted && !wanted.has(servers[doc] as string)) continue;
    const score = scores[doc] as number;
    if (best.length === limit && (limit === 0 || score <= (best[limit - 1] as { score: number }).score))
      continue;
    let at = best.length;
    while (at > 0 && (best[at - 1] as { score: number }).score < score) at--;
    best.splice(at, 0, { doc, score });
    if (best.length > limit) best.pop();
  }
  return best.map(({ doc, score }) => ({ name: names[doc] as string, score }));
}

function unit(v: readonly number[] | Float32Array): Float32Array {
  const out = Float32Array.from(v);
  let norm = 0;
  for (const x of out) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) / norm;
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}
