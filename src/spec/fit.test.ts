import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeMessage, preEncode } from '../jsonrpc/parse.js';
import { POLICIES, REVISIONS } from './revision.js';

const fitting = (r: keyof typeof POLICIES) => {
  const f = POLICIES[r].fitting;
  assert.ok(f, `${r} has a fitting`);
  return f;
};

test('the newest stateful revision and the stateless one need no fitting; the older ones do', () => {
  assert.deepEqual(
    REVISIONS.filter((r) => POLICIES[r].fitting !== undefined),
    ['2024-11-05', '2025-03-26', '2025-06-18'],
  );
});

test('tools: each revision keeps only the fields it defines', () => {
  const tool = {
    name: 't',
    description: 'd',
    inputSchema: { type: 'object' },
    title: 'T',
    outputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
    icons: [{ src: 'x' }],
    execution: { taskSupport: 'optional' },
    _meta: { k: 1 },
  };
  const keys = (r: keyof typeof POLICIES) =>
    Object.keys((fitting(r).result('tools/list', { tools: [tool] }).tools as object[])[0] ?? {}).sort();
  assert.deepEqual(keys('2024-11-05'), ['description', 'inputSchema', 'name']);
  assert.deepEqual(keys('2025-03-26'), ['annotations', 'description', 'inputSchema', 'name']);
  assert.deepEqual(keys('2025-06-18'), [
    '_meta',
    'annotations',
    'description',
    'inputSchema',
    'name',
    'outputSchema',
    'title',
  ]);
});

test('nothing to change: the very same object comes back (no copy)', () => {
  const result = { content: [{ type: 'text', text: 'x' }], isError: false };
  for (const r of ['2024-11-05', '2025-03-26', '2025-06-18'] as const) {
    assert.equal(fitting(r).result('tools/call', result), result);
  }
  const params = { progressToken: 1, progress: 1 };
  assert.equal(fitting('2024-11-05').params('notifications/progress', params), params);
});

test('a cached (frozen, pre-encoded) page is fitted once per revision, and encoded as fitted', () => {
  const page = preEncode({ tools: [{ name: 't', inputSchema: { type: 'object' }, title: 'T' }] });
  const f = fitting('2025-03-26');
  const first = f.result('tools/list', page);
  assert.notEqual(first, page);
  assert.equal(f.result('tools/list', page), first, 'the same fitted object the second time');
  assert.ok(Object.isFrozen(first));
  const text = encodeMessage({ jsonrpc: '2.0', id: 1, result: first });
  assert.deepEqual(JSON.parse(text).result, { tools: [{ name: 't', inputSchema: { type: 'object' } }] });
  // A page the revision takes as it is stays the one pre-encoded object.
  const plain = preEncode({ tools: [{ name: 'u', inputSchema: { type: 'object' } }] });
  assert.equal(f.result('tools/list', plain), plain);
});

test('content: audio and resource links convert, unknown block types pass untouched', () => {
  const content = [
    { type: 'audio', data: 'AA==', mimeType: 'audio/wav' },
    { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', description: 'A file' },
    { type: 'x-custom', value: 1, _meta: { k: 1 } },
  ];
  const old = fitting('2024-11-05').result('tools/call', { content }).content as {
    type: string;
    text?: string;
  }[];
  assert.equal(old[0]?.type, 'text');
  assert.match(old[0]?.text ?? '', /audio\/wav/);
  assert.deepEqual(old[1], { type: 'text', text: 'Resource link: a.txt: file:///a.txt (A file)' });
  assert.equal(old[2], content[2]);
  const mid = fitting('2025-03-26').result('tools/call', { content }).content as { type: string }[];
  assert.equal(mid[0], content[0], 'audio exists from 2025-03-26');
  assert.equal(mid[1]?.type, 'text');
});

test('sampling requests: audio to text before 2025-03-26, tools and message _meta dropped before 2025-11-25', () => {
  const params = {
    messages: [
      { role: 'user', content: { type: 'audio', data: 'AA==', mimeType: 'audio/mp3' }, _meta: { k: 1 } },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ],
    maxTokens: 5,
    tools: [{ name: 't', inputSchema: { type: 'object' } }],
    toolChoice: { mode: 'auto' },
  };
  const old = fitting('2024-11-05').params('sampling/createMessage', params);
  assert.equal('tools' in old || 'toolChoice' in old, false);
  const messages = old.messages as { content: { type: string }; _meta?: unknown }[];
  assert.equal(messages[0]?.content.type, 'text');
  assert.equal('_meta' in (messages[0] ?? {}), false);
  assert.equal(messages[1], params.messages[1]);
  const newer = fitting('2025-06-18').params('sampling/createMessage', params);
  assert.equal((newer.messages as { content: { type: string } }[])[0]?.content.type, 'audio');
});

test('initialize: capabilities and serverInfo', () => {
  const result = {
    protocolVersion: 'x',
    capabilities: { tools: {}, completions: {}, tasks: { list: {} } },
    serverInfo: { name: 's', version: '1', title: 'S', description: 'd', websiteUrl: 'u', icons: [] },
  };
  const old = fitting('2024-11-05').result('initialize', result);
  assert.deepEqual(old.capabilities, { tools: {} });
  assert.deepEqual(old.serverInfo, { name: 's', version: '1' });
  const mid = fitting('2025-06-18').result('initialize', result);
  assert.deepEqual(mid.capabilities, { tools: {}, completions: {} });
  assert.deepEqual(mid.serverInfo, { name: 's', version: '1', title: 'S' });
});
