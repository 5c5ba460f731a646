import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpkitError } from '../jsonrpc/errors.js';
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

test('initialize: serverInfo fitted; capabilities are the policy’s (fitted once, at initialize)', () => {
  const result = {
    protocolVersion: 'x',
    capabilities: { tools: {}, completions: {}, tasks: { list: {} } },
    serverInfo: { name: 's', version: '1', title: 'S', description: 'd', websiteUrl: 'u', icons: [] },
  };
  const old = fitting('2024-11-05').result('initialize', result);
  assert.equal(old.capabilities, result.capabilities);
  assert.deepEqual(old.serverInfo, { name: 's', version: '1' });
  const mid = fitting('2025-06-18').result('initialize', result);
  assert.deepEqual(mid.serverInfo, { name: 's', version: '1', title: 'S' });
  assert.deepEqual(POLICIES['2024-11-05'].serverCapabilities(result.capabilities), { tools: {} });
  assert.deepEqual(POLICIES['2025-06-18'].serverCapabilities(result.capabilities), {
    tools: {},
    completions: {},
  });
});

test('server capabilities: only what each revision defines, nested fields too; the same object when all fits', () => {
  const caps = JSON.parse(
    '{"tools":{"listChanged":true,"x":1},"resources":{"subscribe":true},"logging":{"any":1},' +
      '"experimental":{"e":{"k":1}},"completions":{},"tasks":{"list":{},"requests":{"tools":{"call":{}},"x":{}}},' +
      '"extensions":{"example.com/ext":{}},"x-custom":{},"__proto__":{"polluted":true}}',
  );
  const keys = (r: keyof typeof POLICIES) => Object.keys(POLICIES[r].serverCapabilities(caps)).sort();
  assert.deepEqual(keys('2024-11-05'), ['experimental', 'logging', 'resources', 'tools']);
  assert.deepEqual(keys('2025-03-26'), ['completions', 'experimental', 'logging', 'resources', 'tools']);
  assert.deepEqual(keys('2025-11-25'), [
    'completions',
    'experimental',
    'logging',
    'resources',
    'tasks',
    'tools',
  ]);
  assert.deepEqual(keys('2026-07-28'), [
    'completions',
    'experimental',
    'extensions',
    'logging',
    'resources',
    'tools',
  ]);
  const fitted = POLICIES['2025-11-25'].serverCapabilities(caps);
  assert.deepEqual(fitted.tools, { listChanged: true });
  assert.deepEqual(fitted.tasks, { list: {}, requests: { tools: { call: {} } } });
  assert.deepEqual(fitted.logging, { any: 1 }, 'open objects are kept as they are');
  assert.equal(Object.getPrototypeOf(fitted), Object.prototype);
  assert.equal(({} as { polluted?: unknown }).polluted, undefined);
  const plain = Object.freeze({ tools: Object.freeze({ listChanged: true }), logging: {} });
  for (const r of REVISIONS) assert.equal(POLICIES[r].serverCapabilities(plain), plain);
  // A malformed value is passed on as it is, never a crash.
  const odd = { tools: true, prompts: null } as unknown as Record<string, unknown>;
  assert.equal(POLICIES['2024-11-05'].serverCapabilities(odd), odd);
});

test('elicitation requests: fitted before 2025-11-25, the same object when nothing changes', () => {
  const plain = {
    message: 'm',
    requestedSchema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'boolean', default: true } },
    },
  };
  for (const r of ['2024-11-05', '2025-03-26', '2025-06-18'] as const) {
    assert.equal(fitting(r).params('elicitation/create', plain), plain);
  }
  const rich = {
    mode: 'form',
    message: 'm',
    requestedSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        n: { type: 'number', default: 1 },
        c: { type: 'string', oneOf: [{ const: 'a', title: 'A' }], default: 'a', description: 'd' },
        odd: 'not an object',
        other: { type: 'object' },
      },
    },
  };
  assert.deepEqual(fitting('2025-06-18').params('elicitation/create', rich), {
    message: 'm',
    requestedSchema: {
      type: 'object',
      properties: {
        n: { type: 'number' },
        c: { type: 'string', description: 'd', enum: ['a'], enumNames: ['A'] },
        odd: 'not an object',
        other: { type: 'object' },
      },
    },
  });
  assert.equal(rich.requestedSchema.properties.n.default, 1, 'the handler’s own schema is not touched');
  const refused = (params: object, code: string, pattern: RegExp) =>
    assert.throws(
      () => fitting('2025-06-18').params('elicitation/create', params as Record<string, unknown>),
      (e: unknown) => e instanceof McpkitError && e.code === code && pattern.test(e.message),
    );
  const schema = (field: unknown) => ({
    message: 'm',
    requestedSchema: { type: 'object', properties: { f: field } },
  });
  refused(
    schema({ type: 'array', items: { type: 'string', enum: ['x'] } }),
    'INVALID_SCHEMA',
    /"f" is a multi-select/,
  );
  refused(schema({ type: 'string', oneOf: [{ const: 1 }] }), 'INVALID_SCHEMA', /no enum equivalent/);
  refused(schema({ type: 'string', oneOf: [] }), 'INVALID_SCHEMA', /no enum equivalent/);
  refused({ mode: 'url', message: 'm', url: 'u', elicitationId: 'e' }, 'CAPABILITY_MISSING', /URL-mode/);
  // Malformed params are passed on (the client refuses them), never a crash.
  const junk = { message: 'm', requestedSchema: 'nope' };
  assert.equal(fitting('2025-06-18').params('elicitation/create', junk), junk);
});
