// Per revision: a server using every content type and field answers a raw JSON-RPC client of that revision, and
// everything it sends (results, notifications, its own requests) is valid for that revision's schema.json, made
// strict (test/revisions/spec-schema.ts), with what has an older equivalent converted.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { McpServer } from '../../src/index.js';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest } from '../../src/jsonrpc/types.js';
import { META } from '../../src/spec/modern.js';
import { everythingServer } from './everything-server.js';
import { rawSession } from './raw-session.js';
import { SpecSchema } from './spec-schema.js';

const STATEFUL = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
type Json = { [key: string]: unknown };

/** The result definition of each method, as every revision names it. */
const RESULTS: [method: string, params: JsonObject | undefined, definition: string][] = [
  ['tools/list', undefined, 'ListToolsResult'],
  ['tools/call', { name: 'everything', arguments: {} }, 'CallToolResult'],
  ['tools/call', { name: 'plain', arguments: { x: 'y' } }, 'CallToolResult'],
  ['prompts/list', undefined, 'ListPromptsResult'],
  ['prompts/get', { name: 'p', arguments: { name: 'Ada' } }, 'GetPromptResult'],
  ['resources/list', undefined, 'ListResourcesResult'],
  ['resources/templates/list', undefined, 'ListResourceTemplatesResult'],
  ['resources/read', { uri: 'test://r' }, 'ReadResourceResult'],
  ['resources/read', { uri: 'test://t/1' }, 'ReadResourceResult'],
  [
    'completion/complete',
    { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'name', value: 'A' } },
    'CompleteResult',
  ],
  ['ping', undefined, 'EmptyResult'],
];

const servers: { close(): Promise<void> }[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function connect(revision: string, server = everythingServer()) {
  servers.push(server);
  const { raw, init } = await rawSession(
    server,
    revision,
    { sampling: {}, roots: { listChanged: true } },
    (request: JsonRpcRequest) =>
      request.method === 'sampling/createMessage'
        ? { result: { role: 'assistant', content: { type: 'text', text: 'heard' }, model: 'm' } }
        : { result: {} },
  );
  return { server, raw, init };
}

function resultOf(response: JsonRpcMessage): Json {
  assert.ok('result' in response, `a result, not ${JSON.stringify(response)}`);
  return response.result as Json;
}

/** Every value of `key` anywhere in `value`. */
function valuesOf(value: unknown, key: string, out: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const v of value) valuesOf(v, key, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === key) out.push(v);
      valuesOf(v, key, out);
    }
  }
  return out;
}

/** Content block types anywhere in `value`. */
function blockTypes(value: unknown): Set<unknown> {
  return new Set(valuesOf(value, 'type').filter((t) => typeof t === 'string'));
}

for (const revision of STATEFUL) {
  describe(`a ${revision} client`, () => {
    const schema = new SpecSchema(revision);
    const at = STATEFUL.indexOf(revision);
    const older = (than: (typeof STATEFUL)[number]) => at < STATEFUL.indexOf(than);

    test('initialize: the result is valid for the revision; serverInfo and capabilities fitted', async () => {
      const { init } = await connect(revision);
      assert.ok(init);
      const result = resultOf(init);
      assert.deepEqual(schema.problems('InitializeResult', result), []);
      assert.equal(result.protocolVersion, revision);
      const info = result.serverInfo as Json;
      const caps = result.capabilities as Json;
      assert.equal('title' in info, !older('2025-06-18'));
      for (const k of ['description', 'websiteUrl', 'icons'])
        assert.equal(k in info, !older('2025-11-25'), k);
      assert.equal('completions' in caps, !older('2025-03-26'));
      assert.equal(result.instructions, 'Use every tool.');
    });

    test('initialize: user-declared capabilities the revision lacks are dropped, the rest kept', async () => {
      const { init } = await connect(revision, declaringServer());
      const result = resultOf(init);
      assert.deepEqual(schema.problems('InitializeResult', result), []);
      const caps = result.capabilities as Json;
      assert.deepEqual(Object.keys(caps).sort(), [
        ...(older('2025-03-26') ? [] : ['completions']),
        'experimental',
        'logging',
        'prompts',
        'resources',
        ...(older('2025-11-25') ? [] : ['tasks']),
        'tools',
      ]);
      assert.deepEqual(caps.tools, { listChanged: true });
      assert.deepEqual(caps.experimental, { 'example.com/x': { on: true } });
      if (!older('2025-11-25')) assert.deepEqual(caps.tasks, { list: {}, requests: { tools: { call: {} } } });
    });

    test('every result is valid for the revision and holds only what it defines', async () => {
      const { raw } = await connect(revision);
      for (const [method, params, definition] of RESULTS) {
        const result = resultOf(await raw.request(method, params));
        assert.deepEqual(schema.problems(definition, result), [], `${method} ${JSON.stringify(params)}`);
      }
    });

    test('tools: fields the revision lacks are dropped; the rest kept', async () => {
      const { raw } = await connect(revision);
      const { tools } = resultOf(await raw.request('tools/list')) as { tools: Json[] };
      const tool = tools.find((t) => t.name === 'everything') as Json;
      assert.equal(tool.description, 'Returns every content type');
      assert.equal('annotations' in tool, !older('2025-03-26'));
      for (const k of ['title', 'outputSchema', '_meta']) assert.equal(k in tool, !older('2025-06-18'), k);
      assert.equal('icons' in tool, !older('2025-11-25'));
      // The cached page is fitted once per revision: asking again gives the same answer.
      assert.deepEqual(resultOf(await raw.request('tools/list')), { tools });
    });

    test('tools/call: audio and resource links become text where the revision lacks them', async () => {
      const { raw } = await connect(revision);
      const result = resultOf(await raw.request('tools/call', { name: 'everything', arguments: {} }));
      const content = result.content as Json[];
      assert.equal(content.length, 5, 'no block is lost');
      const types = content.map((c) => c.type);
      assert.deepEqual(types, [
        'text',
        'image',
        older('2025-03-26') ? 'text' : 'audio',
        older('2025-06-18') ? 'text' : 'resource_link',
        'resource',
      ]);
      if (older('2025-03-26')) assert.match(String(content[2]?.text), /audio\/wav/);
      if (older('2025-06-18')) {
        assert.match(String(content[3]?.text), /test:\/\/linked/);
        assert.equal('structuredContent' in result, false);
        assert.equal(valuesOf(result, 'lastModified').length, 0);
        assert.equal(valuesOf(result, '_meta').length, 0);
      } else {
        assert.deepEqual(result.structuredContent, { n: 1 });
        assert.ok(valuesOf(result, 'lastModified').length > 0);
      }
    });

    test('prompts and resources: titles, icons and _meta only where defined; blocks converted', async () => {
      const { raw } = await connect(revision);
      const lists = [
        resultOf(await raw.request('prompts/list')),
        resultOf(await raw.request('resources/list')),
        resultOf(await raw.request('resources/templates/list')),
      ];
      assert.equal(valuesOf(lists, 'title').length > 0, !older('2025-06-18'));
      assert.equal(valuesOf(lists, '_meta').length > 0, !older('2025-06-18'));
      assert.equal(valuesOf(lists, 'icons').length > 0, !older('2025-11-25'));
      assert.equal(valuesOf(lists, 'lastModified').length > 0, !older('2025-06-18'));
      assert.ok(valuesOf(lists, 'priority').length > 0, 'annotations themselves are kept');
      const prompt = resultOf(await raw.request('prompts/get', { name: 'p', arguments: { name: 'Ada' } }));
      const types = blockTypes(prompt.messages);
      assert.equal(types.has('audio'), !older('2025-03-26'));
      assert.equal(types.has('resource_link'), !older('2025-06-18'));
      assert.equal((prompt.messages as unknown[]).length, 5);
      const read = resultOf(await raw.request('resources/read', { uri: 'test://t/1' }));
      assert.equal(valuesOf(read, '_meta').length > 0, !older('2025-06-18'));
    });

    test('notifications and the server’s own requests are valid for the revision', async () => {
      const { raw, server } = await connect(revision);
      const seen = raw.messages.length;
      const done = await raw.request('tools/call', {
        name: 'progress',
        arguments: {},
        _meta: { progressToken: 'p1' },
      });
      assert.equal((resultOf(done).content as Json[])[0]?.text, 'done');
      const progress = raw.messages
        .slice(seen)
        .find((m) => 'method' in m && m.method === 'notifications/progress');
      assert.ok(progress, 'progress arrived');
      assert.deepEqual(schema.messageProblems('ProgressNotification', progress), []);
      assert.equal('message' in ((progress as { params: Json }).params ?? {}), !older('2025-03-26'));
      const log = raw.messages.slice(seen).find((m) => 'method' in m && m.method === 'notifications/message');
      assert.ok(log);
      assert.deepEqual(schema.messageProblems('LoggingMessageNotification', log), []);

      const sampled = await raw.request('tools/call', { name: 'sample', arguments: {} });
      assert.equal((resultOf(sampled).content as Json[])[0]?.text, 'heard');
      const request = raw.received('sampling/createMessage')[0];
      assert.ok(request);
      assert.deepEqual(schema.messageProblems('CreateMessageRequest', request), []);
      assert.equal(blockTypes((request as { params: Json }).params).has('audio'), !older('2025-03-26'));

      const at = raw.messages.length;
      server.tool('late', { description: 'added later' }, () => 'late');
      const changed = await raw.waitFor(
        (m) => 'method' in m && m.method === 'notifications/tools/list_changed',
        'tools/list_changed',
        at,
      );
      assert.deepEqual(schema.messageProblems('ToolListChangedNotification', changed), []);
      await raw.request('resources/subscribe', { uri: 'test://r' });
      server.notifyResourceUpdated('test://r');
      const updated = await raw.waitFor(
        (m) => 'method' in m && m.method === 'notifications/resources/updated',
        'resources/updated',
        at,
      );
      assert.deepEqual(schema.messageProblems('ResourceUpdatedNotification', updated), []);
    });
  });
}

test('the strict schema check can fail: an unfitted 2025-11-25 tool list is not a valid 2024-11-05 one', async () => {
  const { raw } = await connect('2025-11-25');
  const result = resultOf(await raw.request('tools/list'));
  const problems = new SpecSchema('2024-11-05').problems('ListToolsResult', result);
  assert.ok(
    problems.some((p) => p.includes('additionalProperty')),
    problems.join('\n'),
  );
});

/** A server declaring, besides the usual, capabilities and fields no stateful revision defines. */
function declaringServer(): McpServer {
  return new McpServer(
    { name: 'declaring', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true, 'x-unknown': true } as { listChanged: boolean },
        prompts: {},
        resources: { subscribe: true },
        logging: {},
        completions: {},
        experimental: { 'example.com/x': { on: true } },
        tasks: { list: {}, requests: { tools: { call: {} } }, 'x-unknown': {} },
        extensions: { 'example.com/ext': { version: 1 } },
        'x-custom': { on: true },
      },
    },
  );
}

test('the stateless revision is offered what it defines: extensions kept, tasks and unknown capabilities not', async () => {
  const { raw } = await connect('2025-11-25', declaringServer());
  const discovered = resultOf(await raw.request('server/discover', { _meta: modernMeta() }));
  assert.deepEqual(new SpecSchema('2026-07-28').problems('DiscoverResult', discovered), []);
  const caps = discovered.capabilities as Json;
  assert.deepEqual(caps.extensions, { 'example.com/ext': { version: 1 } });
  assert.equal('tasks' in caps, false);
  assert.equal('x-custom' in caps, false);
});

function modernMeta(extra: Json = {}): JsonObject {
  return {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: {},
    [META.clientInfo]: { name: 'raw', version: '0' },
    ...extra,
  } as JsonObject;
}

test('notifications during a stateless request on a connection holding an older stateful session fit the request’s revision', async () => {
  const { raw } = await connect('2024-11-05');
  const seen = raw.messages.length;
  const done = await raw.request('tools/call', {
    name: 'progress',
    arguments: {},
    _meta: modernMeta({ progressToken: 'p2', [META.logLevel]: 'info' }),
  });
  assert.equal((resultOf(done).content as Json[])[0]?.text, 'done');
  const progress = raw.messages
    .slice(seen)
    .find((m) => 'method' in m && m.method === 'notifications/progress');
  assert.ok(progress, 'progress arrived');
  const modern = new SpecSchema('2026-07-28');
  assert.deepEqual(modern.messageProblems('ProgressNotification', progress), []);
  // 2024-11-05 has no progress message; the stateless revision does, and this request was made in it.
  assert.equal((progress as { params: Json }).params.message, 'half way');
  // The session itself still speaks 2024-11-05.
  const again = raw.messages.length;
  await raw.request('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'p3' } });
  const old = raw.messages.slice(again).find((m) => 'method' in m && m.method === 'notifications/progress');
  assert.equal('message' in ((old as { params: Json }).params ?? {}), false);
});
