// The tool search's quality, measured: recall@1 and recall@5 of a ranker over real tool definitions.
//   node dist/bench/tool-search/quality.js [--sizes 50,300,1000] [--seeds 5] [--split all|dev|test] [--ranker full|...]
//   [--embedder FILE] (another model for the embedding and hybrid rankers: a module whose default export is an Embedder)
// Data: bench/data/npm-mcp-tools.json (the tools of MCP servers from npm, collect.ts) and bench/data/tool-queries.json
// (requests written for a sample of those tools, several phrasings each, from precise to vague; see bench/README.md for
// how they were made). For each registry size N the real tools are shuffled (seeded) and cut into registries of N
// tools (the last one filled from the start of the shuffle; N above the number of real tools takes every real tool
// and generated ones to reach N); each labeled request is searched in the registry holding its tool, and a hit is its
// tool among the first k. Averaged over the seeds. Rankers: `full` (LexicalRanker as shipped) and ablations.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Embedder, EmbeddingRanker } from '../../src/host/search/embedding.js';
import { HybridRanker, type HybridRankerOptions } from '../../src/host/search/hybrid.js';
import { LexicalRanker, type LexicalRankerOptions } from '../../src/host/search/lexical.js';
import type { SearchableTool, ToolRanker } from '../../src/host/search/ranker.js';
import { universalSentenceEncoder } from '../../src/host/search/use-embedder.js';
import { generatedTools } from '../../test/host/fixtures/generated-tools.js';
import { collectedTools } from './data.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '50,300,1000' },
    seeds: { type: 'string', default: '5' },
    split: { type: 'string', default: 'all' },
    /** `main` (tool-queries.json, split dev/test) or `blind` (tool-queries-blind.json, never tuned on: all held out). */
    queries: { type: 'string', default: 'main' },
    rankers: {
      type: 'string',
      default: 'full,no-concepts,no-lead,uniform-fields,description-only',
    },
    data: { type: 'string', default: 'bench/data' },
    misses: { type: 'boolean', default: false },
    /** LexicalRankerOptions as JSON for the ranker named `custom`, HybridRankerOptions for `hybrid` (tuning on dev). */
    params: { type: 'string', default: '{}' },
    /** The vectors of texts already embedded (the model is deterministic), so seeds and runs embed each text once. */
    'embed-cache': { type: 'string' },
    /**
     * Another model for the embedding and hybrid rankers: an ES module whose default export is an `Embedder` (texts in,
     * one vector each out). Its vectors are kept in their own cache (`$TMPDIR/mcpkit-tool-search-<file name>.json`).
     */
    embedder: { type: 'string' },
    /** Time the embedding and hybrid rankers at 1,000 tools instead (index build; each request once, p50/p99). */
    latency: { type: 'boolean', default: false },
  },
});

type Level = 'precise' | 'plain' | 'vague' | 'blind';

/** One labeled request: its text, its kind, and the tools that answer it (`<server>/<tool>`, short server names). */
interface Request {
  query: string;
  level: Level;
  tools: string[];
}

interface Labeled {
  /** `<server>/<tool>`, the server as in the collected data's short names. */
  tool: string;
  queries: { precise: string[]; plain: string[]; vague: string[] };
}

/** The main set: three phrasings for each labeled tool; or the blind set: one request, any of its tools a hit. */
function loadRequests(): { requests: Request[]; labeledTools: number; levels: Level[] } {
  const dir = values.data as string;
  if (values.queries === 'blind') {
    const blind = JSON.parse(readFileSync(join(dir, 'tool-queries-blind.json'), 'utf8')).requests as {
      request: string;
      tools: string[];
    }[];
    const answerable = blind.filter((r) => r.tools.length > 0);
    return {
      requests: answerable.map((r) => ({ query: r.request, level: 'blind', tools: r.tools })),
      labeledTools: new Set(answerable.flatMap((r) => r.tools)).size,
      levels: ['blind'],
    };
  }
  const labeled = (
    JSON.parse(readFileSync(join(dir, 'tool-queries.json'), 'utf8')).tools as Labeled[]
  ).filter((l) => values.split === 'all' || half(l.tool) === values.split);
  const levels: Level[] = ['precise', 'plain', 'vague'];
  const requests = labeled.flatMap((l) =>
    levels.flatMap((level) =>
      (l.queries[level as 'precise'] ?? []).map((query) => ({ query, level, tools: [l.tool] })),
    ),
  );
  return { requests, labeledTools: labeled.length, levels };
}

/** Half the labeled tools tune (dev), the other half report (test): by a hash of the name, fixed. */
function half(name: string): 'dev' | 'test' {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % 2 === 0 ? 'dev' : 'test';
}
// Misses are read to tune: only on the dev half, never on the held-out half or the blind set.
if (values.misses && (values.queries !== 'main' || values.split !== 'dev'))
  throw new Error('--misses is for tuning: only with --split dev (and the main set)');
const { tools: real, servers: serverCount } = collectedTools(values.data as string);
const { requests: chosen, labeledTools, levels: LEVELS } = loadRequests();
const byName = new Map(real.map((t) => [t.name, t]));
for (const r of chosen)
  for (const t of r.tools) if (!byName.has(t)) throw new Error(`labeled tool ${t} is not in the data`);

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const random = rng(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Registries of `size` tools covering every real tool (generated ones added when `size` exceeds them). */
function registries(size: number, seed: number): SearchableTool[][] {
  const tools = shuffled(real, seed);
  if (size >= tools.length) {
    const extra = generatedTools(size - tools.length).map((tool) => ({
      name: `generated/${tool.name}`,
      server: 'generated',
      tool,
    }));
    return [[...tools, ...extra]];
  }
  const out: SearchableTool[][] = [];
  for (let i = 0; i < tools.length; i += size) {
    const part = tools.slice(i, i + size);
    if (part.length < size) part.push(...tools.slice(0, size - part.length));
    out.push(part);
  }
  return out;
}

const RANKERS: Record<string, () => ToolRanker> = {
  full: () => new LexicalRanker(),
  custom: () => new LexicalRanker(JSON.parse(values.params as string) as LexicalRankerOptions),
  embedding: () => new EmbeddingRanker({ embed: cachedEmbed, ...hybridParams() }),
  hybrid: () => new HybridRanker({ embed: cachedEmbed, ...hybridParams() }),
  'no-concepts': () => new LexicalRanker({ conceptWeight: 0 }),
  'no-lead': () =>
    new LexicalRanker({ fields: { lead: { weight: 0, b: 0.5 }, description: { weight: 1, b: 0.75 } } }),
  'uniform-fields': () => {
    const same = { weight: 1, b: 0.75 };
    const fields: LexicalRankerOptions['fields'] = {
      name: same,
      title: same,
      description: same,
      argumentNames: same,
      argumentDescriptions: same,
      server: same,
      lead: { weight: 0, b: 0 },
    };
    return new LexicalRanker({ fields });
  },
  'description-only': () => {
    const off = { weight: 0, b: 0.75 };
    return new LexicalRanker({
      conceptWeight: 0,
      fields: {
        name: off,
        title: off,
        lead: off,
        argumentNames: off,
        argumentDescriptions: off,
        server: off,
        description: { weight: 1, b: 0.75 },
      },
    });
  },
};

/** The hybrid ranker's fusion from `--params` (only with `--rankers hybrid`; `custom` reads them as lexical). */
function hybridParams(): Partial<HybridRankerOptions> {
  return (values.rankers as string).split(',').includes('custom')
    ? {}
    : (JSON.parse(values.params as string) as Partial<HybridRankerOptions>);
}

// The model lives in tools/embeddings (installed on first use, `node tools/install.mjs embeddings`), not in the root.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const custom = values.embedder === undefined ? undefined : await loadEmbedder(values.embedder);
const model: Embedder = custom ?? universalSentenceEncoder({ from: join(ROOT, 'tools', 'embeddings') });
/** The `--embedder` module's default export, checked to be a function. */
async function loadEmbedder(file: string): Promise<Embedder> {
  const loaded = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown };
  if (typeof loaded.default !== 'function')
    throw new Error(`--embedder ${file}: its default export is not a function (texts in, vectors out)`);
  return loaded.default as Embedder;
}
let installed = custom !== undefined;
function installModel(): void {
  if (installed) return;
  const run = spawnSync(process.execPath, [join(ROOT, 'tools', 'install.mjs'), 'embeddings'], {
    stdio: ['ignore', 2, 2],
  });
  if (run.status !== 0) throw new Error(`installing tools/embeddings failed (exit ${run.status})`);
  installed = true;
}
const cachePath =
  values['embed-cache'] ??
  join(
    tmpdir(),
    values.embedder === undefined
      ? 'mcpkit-tool-search-use.json'
      : `mcpkit-tool-search-${basename(values.embedder).replace(/\.[^.]*$/, '')}.json`,
  );
const vectors = new Map<string, number[]>(
  existsSync(cachePath) ? (JSON.parse(readFileSync(cachePath, 'utf8')) as [string, number[]][]) : [],
);
let unsaved = 0;
/** The model, each text embedded once across seeds and runs (kept in `--embed-cache`). */
const cachedEmbed: Embedder = async (texts) => {
  const missing = [...new Set(texts.filter((t) => !vectors.has(t)))];
  if (missing.length > 0) {
    installModel();
    const found = await model(missing);
    if (found.length !== missing.length)
      throw new Error(`the embedder answered ${found.length} vectors for ${missing.length} texts`);
    for (const [i, t] of missing.entries())
      vectors.set(
        t,
        Array.from(found[i] as readonly number[], (x) => Math.fround(x)),
      );
    unsaved += missing.length;
    if (unsaved >= 500) saveVectors();
  }
  return texts.map((t) => vectors.get(t) as number[]);
};
function saveVectors(): void {
  if (unsaved === 0) return;
  writeFileSync(cachePath, JSON.stringify([...vectors]));
  unsaved = 0;
}

async function measure(make: () => ToolRanker, size: number, seeds: number) {
  const hits = { at1: 0, at5: 0, n: 0 };
  const perLevel = Object.fromEntries(LEVELS.map((l) => [l, { at1: 0, at5: 0, n: 0 }])) as Record<
    Level,
    typeof hits
  >;
  const misses: string[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    for (const registry of registries(size, seed * 7919)) {
      const names = new Set(registry.map((t) => t.name));
      // Each request is searched in the registry holding its (first) tool.
      const here = chosen.filter((r) => names.has(r.tools[0] as string));
      if (here.length === 0) continue;
      const ranker = make();
      await ranker.index(registry);
      for (const r of here) {
        const ranked = await ranker.search(r.query, { limit: 5 });
        const at = ranked.findIndex((found) => r.tools.includes(found.name));
        for (const h of [hits, perLevel[r.level]]) {
          h.n++;
          if (at === 0) h.at1++;
          if (at >= 0) h.at5++;
        }
        if (at !== 0 && seed === 1 && values.misses)
          misses.push(
            `${r.tools.join('|')} <- ${JSON.stringify(r.query)}: ${ranked
              .slice(0, 3)
              .map((found) => found.name)
              .join(', ')}`,
          );
      }
    }
  }
  return { hits, perLevel, misses };
}

/**
 * Index build and per-request search time at 1,000 real tools, the model called for every text: the embedding ranker
 * embeds the tools (timed); the hybrid one is given those tools' vectors again (its index then times the lexical
 * side and the lookups), and every query of both is embedded by the model.
 */
async function latency(): Promise<void> {
  const tools = shuffled(real, 7919).slice(0, 1000);
  let started = performance.now();
  await model(['warm up']);
  process.stdout.write(`model load (first call): ${(performance.now() - started).toFixed(0)} ms\n\n`);
  process.stdout.write(
    '| ranker | tools | index | searches | p50 | p99 |\n| --- | ---: | ---: | ---: | ---: | ---: |\n',
  );
  const indexed = new Map<string, readonly number[]>();
  let indexing = true;
  const embed: Embedder = async (texts) => {
    if (indexing && texts.every((t) => indexed.has(t))) return texts.map((t) => indexed.get(t) as number[]);
    const found = await model(texts);
    if (indexing) for (const [i, t] of texts.entries()) indexed.set(t, found[i] as number[]);
    return found;
  };
  for (const name of ['embedding', 'hybrid'] as const) {
    const ranker = name === 'embedding' ? new EmbeddingRanker({ embed }) : new HybridRanker({ embed });
    indexing = true;
    started = performance.now();
    await ranker.index(tools);
    const index = performance.now() - started;
    indexing = false;
    const times: number[] = [];
    for (const r of chosen) {
      started = performance.now();
      await ranker.search(r.query, { limit: 5 });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) =>
      (times[Math.min(times.length - 1, Math.floor(q * times.length))] as number).toFixed(1);
    const shown = index >= 1000 ? `${(index / 1000).toFixed(1)} s` : `${index.toFixed(0)} ms`;
    process.stdout.write(
      `| ${name} | ${tools.length} | ${shown} | ${times.length} | ${at(0.5)} ms | ${at(0.99)} ms |\n`,
    );
  }
}

if (values.latency) {
  await latency();
  process.exit(0);
}

const sizes = (values.sizes as string).split(',').map(Number);
const seeds = Number(values.seeds);
const rankers = (values.rankers as string).split(',');
const which = values.queries === 'blind' ? 'blind set' : values.split;
process.stdout.write(
  `${real.length} real tools from ${serverCount} servers; ${labeledTools} labeled tools (${which}), ${chosen.length} requests; ${seeds} seeds\n\n`,
);
process.stdout.write(
  `| ranker | tools | recall@1 | recall@5 | @1 ${LEVELS.join(' / ')} | @5 ${LEVELS.join(' / ')} |\n`,
);
process.stdout.write('| --- | ---: | ---: | ---: | --- | --- |\n');
const pct = (h: { at1: number; at5: number; n: number }, k: 'at1' | 'at5') =>
  (h[k] / Math.max(1, h.n)).toFixed(3);
for (const name of rankers) {
  const make = RANKERS[name];
  if (!make) throw new Error(`unknown ranker ${name}`);
  for (const size of sizes) {
    const { hits, perLevel, misses } = await measure(make, size, seeds);
    const levels = (k: 'at1' | 'at5') => LEVELS.map((l) => pct(perLevel[l], k)).join(' / ');
    const shown = size >= real.length ? Math.max(size, real.length) : size;
    process.stdout.write(
      `| ${name} | ${shown} | ${pct(hits, 'at1')} | ${pct(hits, 'at5')} | ${levels('at1')} | ${levels('at5')} |\n`,
    );
    if (values.misses) for (const m of misses) process.stdout.write(`    miss ${m}\n`);
  }
}
saveVectors();
