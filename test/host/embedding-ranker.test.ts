// `mcpkit/search-embeddings` end to end: the host's tool search over the reference servers from npm (filesystem,
// memory, everything) with `hybridToolRanker()`, the real Universal Sentence Encoder loaded offline from its npm
// packages; a request that shares few words with its tool's definition is found by the hybrid and not by the lexical
// ranker alone, an exact name still comes first, and the server filter applies. The model's packages live in
// tools/embeddings, installed on demand (tools/install.mjs), not in the root install.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Host, LexicalRanker } from '../../src/host.js';
import { hybridToolRanker } from '../../src/search-embeddings.js';
import { npmServer, ROOT, tempDir } from './helpers.js';

const dir = tempDir('mcpkit-embedding-ranker-');

const servers = [
  npmServer('filesystem', 'mcp-server-filesystem', [dir]),
  npmServer('memory', 'mcp-server-memory', []),
  npmServer('everything', 'mcp-server-everything', ['stdio']),
];
const install = spawnSync(process.execPath, [join(ROOT, 'tools/install.mjs'), 'embeddings'], {
  encoding: 'utf8',
  stdio: ['ignore', 'ignore', 'pipe'],
  timeout: 600_000,
});
assert.equal(
  install.status,
  0,
  `installing tools/embeddings failed: ${install.error?.message ?? install.stderr}`,
);
const hybrid = new Host(servers, {
  toolSearch: { ranker: hybridToolRanker({ from: join(ROOT, 'tools', 'embeddings') }) },
});
const lexical = new Host(servers, { toolSearch: { ranker: new LexicalRanker() } });

before(async () => {
  for (const host of [hybrid, lexical])
    for (const s of await host.start()) assert.equal(s.state, 'ready', `${s.name}: ${s.reason}`);
});
after(async () => {
  await Promise.all([hybrid.close(), lexical.close()]);
});

const names = (answer: { tools: readonly { name: string }[] }) => answer.tools.map((t) => t.name);

test('a request in other words than the definition is found by meaning, not by words alone', async () => {
  const query = 'how big is this document and when did it last change';
  const byMeaning = names(await hybrid.searchTools(query, { limit: 3 }));
  const byWords = names(await lexical.searchTools(query, { limit: 3 }));
  assert.ok(byMeaning.includes('filesystem__get_file_info'), byMeaning.join(', '));
  assert.ok(!byWords.includes('filesystem__get_file_info'), byWords.join(', '));
});

test('an exact name comes first, and the server filter applies', async () => {
  assert.equal(names(await hybrid.searchTools('memory__read_graph', { limit: 3 }))[0], 'memory__read_graph');
  const onlyMemory = await hybrid.searchTools('what is in this folder', { limit: 4, servers: ['memory'] });
  assert.equal(onlyMemory.tools.length, 4);
  assert.ok(onlyMemory.tools.every((t) => t.server === 'memory'));
});
