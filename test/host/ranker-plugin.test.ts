// An app's own ranker (an embedding ranker, say) plugged into the host's tool search: it is given every searchable
// tool (indexed again once after the registry changes, not per search), may answer asynchronously, and the host keeps
// to its order while still applying the server filter and a chat's filter itself.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  Host,
  type RankOptions,
  type SearchableTool,
  type ToolRanker,
  toolDocument,
} from '../../src/host.js';
import { ROOT, stdioServer } from './helpers.js';

const MANY = join(ROOT, 'dist', 'test', 'host', 'fixtures', 'many-tools-server.js');

/** A stand-in for an embedding ranker: "embeds" each tool as its document's length, ranks by closeness to the query's. */
class LengthRanker implements ToolRanker {
  indexed: number[] = [];
  #docs: { name: string; server: string; size: number }[] = [];

  async index(tools: readonly SearchableTool[]): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.indexed.push(tools.length);
    this.#docs = tools.map((t) => ({ name: t.name, server: t.server, size: toolDocument(t).length }));
  }

  async search(query: string, options: RankOptions) {
    const target = Number(query);
    return this.#docs
      .filter((d) => !options.servers || options.servers.has(d.server))
      .map((d) => ({ name: d.name, score: -Math.abs(d.size - target) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, options.limit);
  }
}

const ranker = new LengthRanker();
const host = new Host(
  [stdioServer('a', MANY, ['--tools', '30']), stdioServer('b', MANY, ['--tools', '30', '--from', '30'])],
  {
    toolSearch: { ranker },
  },
);
after(() => host.close());

test("the host searches with the app's ranker, indexing once per registry change, filters applied", async () => {
  await host.start();
  const first = await host.searchTools('0', { limit: 3 });
  await host.searchTools('100', { limit: 3 });
  assert.deepEqual(ranker.indexed, [60], 'indexed once for both searches');
  assert.equal(first.tools.length, 3);
  const onlyB = await host.searchTools('0', { limit: 4, servers: ['b'] });
  assert.ok(onlyB.tools.every((t) => t.server === 'b'));
  const filtered = await host.searchTools('0', { limit: 4, filter: (t) => t.server === 'a' });
  assert.ok(filtered.tools.length > 0 && filtered.tools.every((t) => t.server === 'a'));
  // The order is the ranker's.
  assert.deepEqual(
    first.tools.map((t) => t.name),
    (await ranker.search('0', { limit: 3 })).map((r) => r.name),
  );
});

test('a ranker that fails is a tool result saying so; an unknown name still answers, without suggestions', async () => {
  const failing: ToolRanker = {
    index: () => undefined,
    search: () => {
      throw new Error('the embedding service is down');
    },
  };
  const other = new Host([stdioServer('c', MANY, ['--tools', '5'])], { toolSearch: { ranker: failing } });
  try {
    await other.start();
    const result = await other.toolSearch.call('search_tools', { query: 'anything' });
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /The search failed: the embedding service is down/);
    const unknown = await other.toolSearch.call('call_tool', { name: 'c__nothing' });
    assert.match(JSON.stringify(unknown.content), /There is no tool named c__nothing\. \(search_tools finds/);
  } finally {
    await other.close();
  }
});
