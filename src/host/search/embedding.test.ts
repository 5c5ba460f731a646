import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Embedder, EmbeddingRanker, embeddingText } from './embedding.js';
import { HybridRanker } from './hybrid.js';
import type { SearchableTool } from './ranker.js';

function tool(server: string, name: string, description: string): SearchableTool {
  return { name: `${server}__${name}`, server, tool: { name, description, inputSchema: { type: 'object' } } };
}

/** A stand-in model of meaning: one dimension per topic, a text scoring on the topics whose words it holds. */
const TOPICS = [
  ['file', 'document', 'folder', 'directory'],
  ['issue', 'bug', 'ticket'],
  ['weather', 'rain', 'forecast'],
];
function standIn(calls: string[][]): Embedder {
  return (texts) => {
    calls.push([...texts]);
    return texts.map((t) =>
      TOPICS.map((words) => words.filter((w) => t.toLowerCase().includes(w)).length + 0.01),
    );
  };
}

const TOOLS = [
  tool('fs', 'read_file', 'Read a file from disk'),
  tool('github', 'create_issue', 'Open a new issue in a repository'),
  tool('meteo', 'get_forecast', 'The weather forecast for a place'),
];

test('tools are ranked by meaning; a changed set embeds only its new texts', async () => {
  const calls: string[][] = [];
  const ranker = new EmbeddingRanker({ embed: standIn(calls) });
  await ranker.index(TOOLS);
  assert.equal(calls.length, 1);
  assert.equal(calls[0]?.length, 3);
  const found = await ranker.search('will it rain tomorrow', { limit: 2 });
  assert.equal(found[0]?.name, 'meteo__get_forecast');
  assert.equal(found.length, 2);
  await ranker.index([...TOOLS, tool('jira', 'new_ticket', 'File a bug ticket')]);
  // The first index's three texts are not embedded again (the query was one call of its own).
  assert.deepEqual(calls.at(-1), [embeddingText(tool('jira', 'new_ticket', 'File a bug ticket'))]);
  const onlyJira = await ranker.search('report a bug', { limit: 5, servers: new Set(['jira']) });
  assert.deepEqual(
    onlyJira.map((r) => r.name),
    ['jira__new_ticket'],
  );
});

test("a tool's text is its name as words, its title and the start of its description", () => {
  const t: SearchableTool = {
    name: 'x__getFileInfo',
    server: 'x',
    tool: {
      name: 'getFileInfo',
      title: 'File info',
      description: `Size and times. ${'z'.repeat(500)}`,
      inputSchema: { type: 'object' },
    },
  };
  const text = embeddingText(t, 20);
  assert.equal(text, 'get File Info. File info. Size and times. zzzz');
});

test('an embedder answering the wrong number of vectors is an error, not a silent miss', async () => {
  const ranker = new EmbeddingRanker({ embed: () => [[1, 0]] });
  await assert.rejects(() => ranker.index(TOOLS), /answered 1 vectors for 3 texts/);
});

test('the hybrid ranker: an exact name first, meaning where words fail, words where meaning ties', async () => {
  const ranker = new HybridRanker({ embed: standIn([]), lexicalWeight: 0.5 });
  await ranker.index(TOOLS);
  assert.equal((await ranker.search('github__create_issue', { limit: 1 }))[0]?.name, 'github__create_issue');
  // No word in common with the forecast tool's definition but its topic.
  assert.equal((await ranker.search('is rain coming', { limit: 1 }))[0]?.name, 'meteo__get_forecast');
  assert.equal((await ranker.search('read a file', { limit: 1 }))[0]?.name, 'fs__read_file');
  assert.deepEqual(await ranker.search('anything', { limit: 0 }), []);
  const rrf = new HybridRanker({ embed: standIn([]), fusion: 'rrf' });
  await rrf.index(TOOLS);
  assert.equal((await rrf.search('is rain coming', { limit: 1 }))[0]?.name, 'meteo__get_forecast');
});
