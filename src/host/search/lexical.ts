import {
  type RankedTool,
  type RankOptions,
  type SearchableTool,
  type ToolFields,
  type ToolRanker,
  toolFields,
} from './ranker.js';
import { terms } from './words.js';

/** How much a field counts, and how much its length is normalized (BM25F's `b`): names are short and exact. */
export interface FieldWeight {
  weight: number;
  b: number;
}

/** The fields the lexical ranker weighs: a tool's fields, and its description's first sentence (`lead`). */
export type LexicalField = keyof ToolFields | 'lead';

/** Options of {@link LexicalRanker}. */
export interface LexicalRankerOptions {
  /** Per field; the defaults favour the tool's name and title over its description, and arguments least. */
  fields?: Partial<Record<LexicalField, FieldWeight>>;
  /** BM25's saturation. Default 1.2. */
  k1?: number;
  /** How much a concept (`fetch` counting as `get`) counts against the word itself. Default 0.5. */
  conceptWeight?: number;
}

const DEFAULT_FIELDS: Record<LexicalField, FieldWeight> = {
  name: { weight: 3, b: 0.3 },
  title: { weight: 1.5, b: 0.3 },
  lead: { weight: 1, b: 0.5 },
  description: { weight: 0.5, b: 0.75 },
  argumentNames: { weight: 0.6, b: 0.5 },
  argumentDescriptions: { weight: 0.3, b: 0.75 },
  server: { weight: 1.2, b: 0 },
};

/** The most characters of one field read (a description of megabytes costs no more than this). */
const MAX_FIELD_CHARS = 4000;
/** Vocabulary words a query word not in the vocabulary may stand for by prefix (`kube` → `kubernetes`). */
const MAX_PREFIX_MATCHES = 3;

interface Postings {
  docs: number[];
  weights: number[];
}

/**
 * The tool search's own ranker: BM25F over the fields of tool definitions (name, title, the description's first
 * sentence and the whole description, argument names and descriptions, server), names split on case and separators,
 * words stemmed, stop words and negated words dropped, common verbs and nouns joined as concepts, everyday phrasings
 * read as tools' words; a query word found nowhere may match words it begins. The index is an inverted list of precomputed weights, so a
 * search touches only the tools sharing a word with the query.
 */
export class LexicalRanker implements ToolRanker {
  readonly #fields: Record<LexicalField, FieldWeight>;
  readonly #k1: number;
  readonly #conceptWeight: number;
  #names: string[] = [];
  #servers: string[] = [];
  #postings = new Map<string, Postings>();
  /** Every term, sorted, for prefix matches. */
  #vocabulary: string[] = [];
  /** Tools by their exact names (qualified and own, lowercased): a query naming one finds it first. */
  #exact = new Map<string, number[]>();
  #scores = new Float64Array(0);

  constructor(options: LexicalRankerOptions = {}) {
    this.#fields = { ...DEFAULT_FIELDS, ...options.fields };
    this.#k1 = options.k1 ?? 1.2;
    this.#conceptWeight = options.conceptWeight ?? 0.5;
  }

  index(tools: readonly SearchableTool[]): void {
    const fieldNames = Object.keys(this.#fields) as LexicalField[];
    const docs = tools.map((t) => {
      const f = { ...toolFields(t), lead: '' };
      f.lead = leadSentence(f.description);
      return fieldNames.map((field) => terms(f[field].slice(0, MAX_FIELD_CHARS)));
    });

    const average = fieldNames.map(
      (_, i) => docs.reduce((sum, d) => sum + (d[i] as string[]).length, 0) / Math.max(1, docs.length) || 1,
    );
    const postings = new Map<string, Postings>();
    const exact = new Map<string, number[]>();
    docs.forEach((fields, doc) => {
      const tf = new Map<string, number>();
      fields.forEach((words, i) => {
        const { weight, b } = this.#fields[fieldNames[i] as LexicalField];
        if (weight === 0) return;
        const norm = weight / (1 - b + (b * words.length) / (average[i] as number));
        for (const w of words) {
          const add = w.startsWith('~') ? norm * this.#conceptWeight : norm;
          tf.set(w, (tf.get(w) ?? 0) + add);
        }
      });
      for (const [term, weight] of tf) {
        let list = postings.get(term);
        if (!list) {
          list = { docs: [], weights: [] };
          postings.set(term, list);
        }
        list.docs.push(doc);
        list.weights.push(weight);
      }
      const tool = tools[doc] as SearchableTool;
      for (const name of new Set([tool.name.toLowerCase(), tool.tool.name.toLowerCase()])) {
        const known = exact.get(name);
        if (known) known.push(doc);
        else exact.set(name, [doc]);
      }
    });
    this.#names = tools.map((t) => t.name);
    this.#servers = tools.map((t) => t.server);
    this.#postings = postings;
    this.#vocabulary = [...postings.keys()].filter((t) => !t.startsWith('~')).sort();
    this.#exact = exact;
    this.#scores = new Float64Array(tools.length);
  }

  search(query: string, options: RankOptions): RankedTool[] {
    const n = this.#names.length;
    const limit = Math.max(0, Math.floor(options.limit));
    if (n === 0 || limit === 0) return [];
    const scores = this.#scores;
    const touched: number[] = [];
    const add = (doc: number, value: number) => {
      if (scores[doc] === 0) touched.push(doc);
      scores[doc] = (scores[doc] as number) + value;
    };
    const k1 = this.#k1;
    for (const [term, count] of this.#queryTerms(query)) {
      const list = this.#postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.docs.length + 0.5) / (list.docs.length + 0.5));
      const { docs, weights } = list;
      for (let i = 0; i < docs.length; i++) {
        const w = weights[i] as number;
        add(docs[i] as number, (count * idf * w * (k1 + 1)) / (k1 + w));
      }
    }

    // A query that is a tool's exact name (qualified or its server's) finds it first.
    for (const doc of this.#exact.get(query.trim().toLowerCase()) ?? []) add(doc, 1e6);
    const best: { doc: number; score: number }[] = [];
    const servers = options.servers;
    for (const doc of touched) {
      const score = scores[doc] as number;
      scores[doc] = 0;
      if (servers && !servers.has(this.#servers[doc] as string)) continue;
      if (best.length === limit && score <= (best[limit - 1] as { score: number }).score) continue;
      // Insertion into the few best (limit is small): ties keep the index order.
      let at = best.length;
      while (at > 0 && (best[at - 1] as { score: number }).score < score) at--;
      best.splice(at, 0, { doc, score });
      if (best.length > limit) best.pop();
    }
    return best.map(({ doc, score }) => ({ name: this.#names[doc] as string, score }));
  }

  /** The query's terms with their counts; a word found nowhere stands for the few vocabulary words it begins. */
  #queryTerms(query: string): Map<string, number> {
    const out = new Map<string, number>();
    const words = terms(query);
    for (const term of words) {
      if (this.#postings.has(term) || term.startsWith('~')) {
        out.set(term, (out.get(term) ?? 0) + 1);
        continue;
      }
      if (term.length < 3) continue;
      for (const word of this.#prefixed(term)) out.set(word, (out.get(word) ?? 0) + 0.5);
    }
    return out;
  }

  #prefixed(prefix: string): string[] {
    const v = this.#vocabulary;
    let lo = 0;
    let hi = v.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((v[mid] as string) < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (let i = lo; i < v.length && out.length < MAX_PREFIX_MATCHES; i++) {
      const word = v[i] as string;
      if (!word.startsWith(prefix)) break;
      out.push(word);
    }
    return out;
  }
}

/** The first sentence of a description (where its authors say what the tool does), at most 300 characters. */
function leadSentence(description: string): string {
  const end = description.search(/[.!?](\s|$)|\n/);
  return (end < 0 ? description : description.slice(0, end)).slice(0, 300);
}
