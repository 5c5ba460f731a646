import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tool } from '../../spec/types.js';
import { LexicalRanker } from './lexical.js';
import type { SearchableTool } from './ranker.js';
import { splitWords, stem, terms } from './words.js';

function tool(
  server: string,
  name: string,
  description = '',
  properties: Record<string, unknown> = {},
): SearchableTool {
  const definition: Tool = { name, description, inputSchema: { type: 'object', properties } };
  return { name: `${server}__${name}`, server, tool: definition };
}

const TOOLS = [
  tool('fs', 'read_text_file', 'Read the complete contents of a file as text', {
    path: { type: 'string', description: 'Path of the file' },
  }),
  tool('fs', 'list_directory', 'Get a detailed listing of all files and directories in a specified path'),
  tool('fs', 'createDirectory', 'Create a new directory or ensure a directory exists'),
  tool('github', 'create_issue', 'Create a new issue in a GitHub repository', {
    owner: { type: 'string' },
    repo: { type: 'string' },
    title: { type: 'string' },
  }),
  tool('github', 'search_repositories', 'Search for GitHub repositories'),
  tool('maps', 'maps_directions', 'Get directions between two points'),
  tool('kubernetes', 'kubectl_get', 'Get or list Kubernetes resources by type'),
];

test('names split on case, separators and digits-with-letters kept', () => {
  assert.deepEqual(splitWords('createDirectory'), ['create', 'directory']);
  assert.deepEqual(splitWords('HTTPServer_list-items.v2'), ['http', 'server', 'list', 'items', 'v2']);
  assert.deepEqual(splitWords('get S3 bucket'), ['get', 's3', 'bucket']);
});

test('stems meet across forms; stop words go; concepts join verbs', () => {
  for (const w of ['creates', 'created', 'creating', 'creation']) assert.equal(stem(w), stem('create'), w);
  assert.equal(stem('directories'), stem('directory'));
  assert.deepEqual(terms('please show me the files'), ['show', '~show', 'fil', '~fil']);
  assert.ok(terms('fetch').includes('~get'));
  assert.ok(terms('folder').includes(terms('directory')[1] as string));
});

test('the best tool comes first for precise and vague requests', () => {
  const r = new LexicalRanker();
  r.index(TOOLS);
  const first = (q: string) => r.search(q, { limit: 3 })[0]?.name;
  assert.equal(first('read a text file'), 'fs__read_text_file');
  assert.equal(first('make a new folder'), 'fs__createDirectory');
  assert.equal(first('open a bug report on github'), 'github__create_issue');
  assert.equal(first('route directions from Paris to Lyon'), 'maps__maps_directions');
  assert.equal(first('list what is in this folder'), 'fs__list_directory');
  assert.equal(first('kube pods'), 'kubernetes__kubectl_get', 'a prefix stands for the word');
});

test('an exact name comes first; a server filter and the limit hold; nothing found is empty', () => {
  const r = new LexicalRanker();
  r.index(TOOLS);
  assert.equal(r.search('github__search_repositories', { limit: 1 })[0]?.name, 'github__search_repositories');
  assert.equal(r.search('create_issue', { limit: 1 })[0]?.name, 'github__create_issue');
  const onlyFs = r.search('create', { limit: 10, servers: new Set(['fs']) });
  assert.deepEqual(
    onlyFs.map((t) => t.name),
    ['fs__createDirectory'],
  );
  assert.equal(r.search('file', { limit: 1 }).length, 1);
  assert.deepEqual(r.search('', { limit: 5 }), []);
  assert.deepEqual(r.search('the of and', { limit: 5 }), []);
  assert.deepEqual(r.search('zzzz qqqq', { limit: 5 }), []);
  // Searching twice gives the same answer (the score buffer is cleared).
  assert.deepEqual(r.search('directory', { limit: 5 }), r.search('directory', { limit: 5 }));
});

test('an empty index and a re-index answer from the new set only', () => {
  const r = new LexicalRanker();
  assert.deepEqual(r.search('file', { limit: 5 }), []);
  r.index(TOOLS);
  r.index([tool('x', 'ping', 'Ping the server')]);
  assert.deepEqual(
    r.search('file ping', { limit: 5 }).map((t) => t.name),
    ['x__ping'],
  );
});

test("a negated word is not asked for; a contraction's rest is no word", () => {
  assert.deepEqual(terms('preview without downloading'), ['preview']);
  assert.deepEqual(
    terms("don't merge, just fetch").filter((t) => !t.startsWith('~')),
    ['fetch'],
  );
  assert.deepEqual(terms("it's what we'd do"), []);
  const r = new LexicalRanker();
  r.index([
    tool('drive', 'download_file', 'Download a file to disk'),
    tool('drive', 'preview_file', 'Show a preview of a file'),
  ]);
  assert.equal(
    r.search('look at the file without downloading it', { limit: 1 })[0]?.name,
    'drive__preview_file',
  );
});

test("a description's first sentence counts more than the rest of it", () => {
  const filler = ' It accepts many options.'.repeat(5);
  const tools = [
    tool('a', 'tool_one', `Archive old records.${filler} Records may also be exported.`),
    tool('b', 'tool_two', `Export records as CSV.${filler} Old records can be archived first.`),
  ];
  const r = new LexicalRanker();
  r.index(tools);
  assert.equal(r.search('export records', { limit: 1 })[0]?.name, 'b__tool_two');
  assert.equal(r.search('archive records', { limit: 1 })[0]?.name, 'a__tool_one');
});

test('an everyday phrasing reads as the words tools use, its own words kept', () => {
  assert.ok(terms('get rid of it').includes(stem('delete')));
  assert.ok(terms('how many are open').includes(stem('count')));
  assert.ok(terms('look up the weather').includes('look'), "the phrase's words stay");
  assert.ok(!terms('get the rid').includes(stem('delete')), 'only the words side by side');
  const r = new LexicalRanker();
  r.index([
    tool('git', 'create_branch', 'Create a new branch'),
    tool('git', 'delete_branch', 'Delete a branch'),
    tool('git', 'count_commits', 'Count the commits of a branch'),
  ]);
  assert.equal(r.search('get rid of the old branch', { limit: 1 })[0]?.name, 'git__delete_branch');
  assert.equal(r.search('how many commits are on this branch', { limit: 1 })[0]?.name, 'git__count_commits');
});
