// What the tool search costs and saves (issue 27), mcpkit only; run it alone on a quiet machine:
//   node dist/bench/tool-search/bench.js [--only tokens,latency,start] [--servers 30]
// tokens: tokens of tool definitions per model turn (counted with gpt-tokenizer's o200k_base, the encoding of OpenAI's
//   current models, over the JSON the OpenAI and Anthropic adapters send), the whole registry against tool search (the
//   two tools, plus the found tools offered natively, plus a search's answer when a turn searches), for the npm servers
//   the tests run, every collected npm server, and generated tools; and the host's own estimate against the tokenizer.
// latency: LexicalRanker.search over 1,000 and 10,000 tools (real definitions from bench/data, generated ones after
//   them), every labeled request of bench/data/tool-queries.json, p50 and p99 per search; and the time to index.
// start: a host with N stdio servers (the generated-tools server, 20 tools each), eager against lazy with the
//   tool-list cache of an eager run: host.start() until it resolves, then the first search.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { encode } from 'gpt-tokenizer';
import { estimateToolTokens } from '../../src/host/search/budget.js';
import { LexicalRanker } from '../../src/host/search/lexical.js';
import type { SearchableTool } from '../../src/host/search/ranker.js';
import {
  AnthropicModel,
  FileToolListCache,
  Host,
  OpenAIChatModel,
  type ServerConfig,
} from '../../src/host.js';
import type { Tool } from '../../src/spec/types.js';
import { generatedTools } from '../../test/host/fixtures/generated-tools.js';
import { collectedTools } from './data.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'tokens,latency,start' },
    servers: { type: 'string', default: '30' },
    data: { type: 'string', default: 'bench/data' },
  },
});
const only = new Set((values.only as string).split(','));
const ROOT = join(import.meta.dirname, '..', '..', '..');

const { tools: real, servers: serverCount } = collectedTools(values.data as string, '__');

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}

function line(text: string): void {
  process.stdout.write(`${text}\n`);
}

line(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${new Date().toISOString()}`,
);

if (only.has('tokens')) {
  const asModel = (tools: SearchableTool[]) => tools.map((t) => ({ ...t.tool, name: t.name }));
  const tokens = (json: unknown) => encode(JSON.stringify(json)).length;
  const TESTED = new Set(['everything', 'filesystem', 'memory', 'sequential-thinking']);
  const sets: [string, SearchableTool[]][] = [
    ['the 4 npm servers of the tests', real.filter((t) => TESTED.has(t.server))],
    [`every collected npm server (${serverCount})`, real],
    ['1,000 generated tools', generatedTools(1000).map((tool) => ({ name: tool.name, server: 'gen', tool }))],
    [
      'collected + generated to 10,000',
      [
        ...real,
        ...generatedTools(10_000 - real.length).map((tool) => ({ name: tool.name, server: 'gen', tool })),
      ],
    ],
  ];
  const openai = new OpenAIChatModel({ model: 'm', baseUrl: 'http://127.0.0.1:9' });
  const anthropic = new AnthropicModel({ model: 'm', baseUrl: 'http://127.0.0.1:9' });
  const message = { role: 'user' as const, content: { type: 'text' as const, text: 'x' } };
  const openAIToolsJson = (tools: readonly Tool[]) => openai.body({ messages: [message], tools }).tools;
  const anthropicToolsJson = (tools: readonly Tool[]) => anthropic.body({ messages: [message], tools }).tools;
  const host = new Host([]);
  const facade = host.toolSearch.tools;
  const ranker = new LexicalRanker();
  line('\n## Tokens of tool definitions per model turn (gpt-tokenizer o200k_base)\n');
  line(
    '| registry | tools | all, OpenAI | all, Anthropic | estimate | search: 2 tools | + 10 found | one answer of 5 |',
  );
  line('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [label, tools] of sets) {
    const model = asModel(tools);
    ranker.index(tools);
    // A typical answer of search_tools (5 matches) and 10 found tools offered natively, from a few real requests.
    const found = ['create an issue', 'read a file', 'take a screenshot', 'send a message']
      .flatMap((q) => ranker.search(q, { limit: 5 }))
      .map((r) => model.find((m) => m.name === r.name) as Tool)
      .slice(0, 10);
    const answer = JSON.stringify({
      tools: found
        .slice(0, 5)
        .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    });
    line(
      `| ${label} | ${tools.length} | ${tokens(openAIToolsJson(model))} | ${tokens(anthropicToolsJson(model))} | ${estimateToolTokens(model)} | ${tokens(openAIToolsJson(facade))} | ${tokens(openAIToolsJson([...facade, ...found]))} | ${encode(answer).length} |`,
    );
  }
  // The heaviest servers alone.
  const perServer = new Map<string, number>();
  for (const t of real)
    perServer.set(t.server, (perServer.get(t.server) ?? 0) + tokens(openAIToolsJson(asModel([t]))));
  const heaviest = [...perServer].sort((a, b) => b[1] - a[1]).slice(0, 6);
  line(
    `\nheaviest servers (OpenAI tokens): ${heaviest.map(([s, n]) => `${s} ${n}`).join(', ')}; github ${perServer.get('github')}`,
  );
  await host.close();
}

if (only.has('latency')) {
  const labeled = JSON.parse(readFileSync(join(values.data as string, 'tool-queries.json'), 'utf8'))
    .tools as {
    queries: Record<string, string[]>;
  }[];
  const queries = labeled.flatMap((l) => Object.values(l.queries).flat());
  line('\n## Search latency (LexicalRanker, every labeled request)\n');
  line('| tools | index | searches | p50 | p99 | max |');
  line('| ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const size of [1000, 10_000]) {
    const tools = [
      ...real,
      ...generatedTools(Math.max(0, size - real.length)).map((tool) => ({
        name: tool.name,
        server: 'gen',
        tool,
      })),
    ].slice(0, size);
    const ranker = new LexicalRanker();
    const t0 = performance.now();
    ranker.index(tools);
    const indexMs = performance.now() - t0;
    // Warm-up, then every query 20 times, each timed alone.
    for (const q of queries) ranker.search(q, { limit: 5 });
    const times: number[] = [];
    for (let round = 0; round < 20; round++)
      for (const q of queries) {
        const s = performance.now();
        ranker.search(q, { limit: 5 });
        times.push((performance.now() - s) * 1000);
      }
    line(
      `| ${size} | ${indexMs.toFixed(1)} ms | ${times.length} | ${percentile(times, 50).toFixed(1)} µs | ${percentile(times, 99).toFixed(1)} µs | ${Math.max(...times).toFixed(0)} µs |`,
    );
  }
}

if (only.has('start')) {
  const n = Number(values.servers);
  const MANY = join(ROOT, 'dist', 'test', 'host', 'fixtures', 'many-tools-server.js');
  const configs: ServerConfig[] = Array.from({ length: n }, (_, i) => ({
    name: `s${i}`,
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [MANY, '--tools', '20', '--from', String(i * 20)],
      env: {},
      namedEnv: [],
    },
    disabled: false,
    trusted: false,
    source: { file: 'bench', format: 'mcpkit' },
  }));
  const dir = join((await import('node:os')).tmpdir(), `mcpkit-bench-lists-${process.pid}`);
  const cache = new FileToolListCache(dir);
  line(`\n## Host start with ${n} stdio servers (20 tools each)\n`);
  line('| host | start() resolved | servers ready then | first search | tools searched |');
  line('| --- | ---: | ---: | ---: | ---: |');
  for (const mode of ['eager', 'lazy (cached lists)', 'eager', 'lazy (cached lists)'] as const) {
    const host = new Host(configs, { toolListCache: cache, ...(mode === 'eager' ? {} : { lazy: true }) });
    const t0 = performance.now();
    const states = await host.start();
    const started = performance.now() - t0;
    const ready = states.filter((s) => s.state === 'ready').length;
    const t1 = performance.now();
    await host.searchTools('approve an hr payslip');
    const search = performance.now() - t1;
    line(
      `| ${mode} | ${started.toFixed(0)} ms | ${ready} | ${search.toFixed(1)} ms | ${host.registry.tools().length} |`,
    );
    await host.close();
    // Let the cache's background writes of the eager run land.
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
}
