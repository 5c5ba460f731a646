// Tool search end to end: the reference servers from npm (everything, filesystem, memory, sequential-thinking) and
// two generated servers of 500 tools each behind one host; host.chat in `search` mode with a stand-in model (the real
// Anthropic and OpenAI shapes) that calls search_tools, then call_tool with a name it read in the answer, through
// approval to the real server; the found tools offered natively afterwards in a stable order; bad input (empty and
// huge queries, unknown names with did-you-mean, arguments that do not fit the schema); the `auto` switch.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  AnthropicModel,
  type ApprovalRequest,
  type ChatEvent,
  type Host,
  OpenAIChatModel,
} from '../../src/host.js';
import type { CallToolResult } from '../../src/index.js';
import { type Received, type StandIn, startModelServer } from './fixtures/model-server.js';
import { allowingHost, BIN, npmServer, ROOT, stdioServer, tempDir, text } from './helpers.js';

const MANY = join(ROOT, 'dist', 'test', 'host', 'fixtures', 'many-tools-server.js');
const dir = tempDir('mcpkit-tool-search-');

let standIn: StandIn;
let host: Host;
const asked: ApprovalRequest[] = [];

before(async () => {
  standIn = await startModelServer({ apiKey: 'sk-test' });
  host = await allowingHost(
    [
      npmServer('everything', 'mcp-server-everything', ['stdio']),
      npmServer('filesystem', 'mcp-server-filesystem', [dir]),
      npmServer('memory', 'mcp-server-memory', [], {
        transport: {
          type: 'stdio',
          command: join(BIN, 'mcp-server-memory'),
          args: [],
          env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
          namedEnv: ['MEMORY_FILE_PATH'],
        },
        approval: { default: 'ask' },
      }),
      npmServer('thinking', 'mcp-server-sequential-thinking', []),
      stdioServer('gen1', MANY, ['--tools', '500']),
      stdioServer('gen2', MANY, ['--tools', '500', '--from', '500']),
    ],
    asked,
    { defaultApproval: 'allow' },
  );
  assert.ok(host.registry.tools().length > 1030, `${host.registry.tools().length} tools`);
});

after(async () => {
  await host.close();
  await standIn.close();
});

/** The structured answer of a search_tools result. */
function found(result: CallToolResult): { name: string; server: string; inputSchema: unknown }[] {
  assert.notEqual(result.isError, true, text(result));
  return (result.structuredContent as { tools: { name: string; server: string; inputSchema: unknown }[] })
    .tools;
}

/** The names of the tools a request offered the model. */
function offered(request: Received): string[] {
  const tools = (request.body.tools ?? []) as Record<string, unknown>[];
  return tools.map((t) => String(t.name ?? (t.function as Record<string, unknown>).name));
}

/** The text of the last tool result in an Anthropic request. */
function lastToolResult(request: Received): string {
  const messages = request.body.messages as { content: { type: string; content: { text: string }[] }[] }[];
  const blocks = (messages[messages.length - 1] as (typeof messages)[number]).content;
  const result = blocks.find((b) => b.type === 'tool_result');
  return result?.content.map((c) => c.text).join('') ?? '';
}

test('a model searches, reads the answer, and calls the tool it found: through approval, to the real memory server', async () => {
  const events: ChatEvent[] = [];
  const model = new AnthropicModel({ model: 'claude-x', baseUrl: standIn.url, apiKey: 'sk-test' });
  const chat = host.chat({ model, toolExposure: 'search', onevent: (e) => events.push(e) });
  const start = standIn.received.length;
  asked.length = 0;
  standIn.script(
    {
      kind: 'tools',
      calls: [{ name: 'search_tools', arguments: { query: 'create entities in the knowledge graph' } }],
    },
    (request) => {
      const answer = JSON.parse(lastToolResult(request)) as { tools: { name: string }[] };
      const first = answer.tools[0]?.name ?? 'none';
      return {
        kind: 'tools',
        calls: [
          {
            name: 'call_tool',
            arguments: {
              name: first,
              arguments: {
                entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote a program'] }],
              },
            },
          },
        ],
      };
    },
  );
  const turn = await chat.send('Remember that Ada wrote a program.');
  assert.deepEqual(standIn.problems, []);
  assert.equal(turn.toolCalls, 2);
  assert.match(turn.text, /Tool result: .*Ada/s);
  const requests = standIn.received.slice(start);
  assert.deepEqual(
    offered(requests[0] as Received),
    ['search_tools', 'call_tool'],
    'two tools, not a thousand',
  );
  // The found tools are offered natively after the two, in the order found.
  const second = offered(requests[1] as Received);
  assert.deepEqual(second.slice(0, 2), ['search_tools', 'call_tool']);
  assert.equal(second[2], 'memory__create_entities');
  assert.ok(second.length > 3 && second.length <= 2 + 5);
  // The call went through approval (memory asks) and reached the server.
  assert.deepEqual(
    asked.map((r) => r.qualifiedName),
    ['memory__create_entities'],
  );
  const graph = await host.callTool('memory__read_graph', {});
  assert.match(text(graph), /"Ada"/);
  assert.ok(
    host.log
      .entries()
      .some((e) => e.kind === 'tool' && e.name === 'memory__create_entities' && e.outcome === 'ok'),
  );
  const shown = events
    .filter((e) => e.type === 'tool-call')
    .map((e) => (e.type === 'tool-call' ? e.name : ''));
  assert.deepEqual(shown, ['search_tools', 'memory__create_entities']);
  assert.ok(events.some((e) => e.type === 'tool-exposure' && e.mode === 'search' && e.tools > 1030));

  // A later search in a later turn appends what it finds: the tools offered before keep their places.
  standIn.script({
    kind: 'tools',
    calls: [{ name: 'search_tools', arguments: { query: 'list the allowed directories', limit: 2 } }],
  });
  await chat.send('Which folders can you see?');
  const third = offered(standIn.received[standIn.received.length - 1] as Received);
  assert.deepEqual(third.slice(0, second.length), second);
  assert.ok(third.includes('filesystem__list_allowed_directories'), third.join(' '));
});

test('over the OpenAI shape too: the tool found is called by its qualified name and answers', async () => {
  const model = new OpenAIChatModel({ model: 'gpt-4o', baseUrl: standIn.openaiBase, apiKey: 'sk-test' });
  const chat = host.chat({ model, toolExposure: 'search', promoteFound: 0 });
  const start = standIn.received.length;
  standIn.script(
    { kind: 'tools', calls: [{ name: 'search_tools', arguments: { query: 'echo a message back' } }] },
    {
      kind: 'tools',
      calls: [{ name: 'call_tool', arguments: { name: 'everything__echo', arguments: { message: 'hi' } } }],
    },
  );
  const turn = await chat.send('Echo hi');
  assert.deepEqual(standIn.problems, []);
  assert.match(turn.text, /Echo: hi/);
  // promoteFound: 0 offers nothing but the two tools.
  for (const r of standIn.received.slice(start)) assert.deepEqual(offered(r), ['search_tools', 'call_tool']);
});

test('the search finds real tools by what they do, across servers and the thousand generated ones', async () => {
  const first = async (query: string) =>
    found(await host.toolSearch.call('search_tools', { query }))[0]?.name;
  assert.equal(await first('read the contents of a text file'), 'filesystem__read_text_file');
  assert.equal(await first('think through a problem step by step'), 'thinking__sequentialthinking');
  assert.equal(await first('add two numbers'), 'everything__get-sum');
  assert.equal(await first('approve a payslip in the inventory'), 'gen2__inventory_approve_payslip');
  const some = found(
    await host.toolSearch.call('search_tools', { query: 'file', servers: ['filesystem'], limit: 3 }),
  );
  assert.equal(some.length, 3);
  assert.ok(some.every((t) => t.server === 'filesystem'));
  assert.ok(some.every((t) => typeof t.inputSchema === 'object'));
});

test('bad input is a tool result saying what was wrong, and nothing runs', async () => {
  const search = host.toolSearch;
  asked.length = 0;
  const error = async (name: string, args: Record<string, unknown>) => {
    const result = await search.call(name, args);
    assert.equal(result.isError, true, JSON.stringify(result));
    return text(result);
  };
  assert.match(await error('search_tools', {}), /needs a query/);
  assert.match(await error('search_tools', { query: '   ' }), /needs a query/);
  assert.match(
    await error('search_tools', { query: 'x'.repeat(100_000) }),
    /100000 characters long; at most 1000/,
  );
  assert.match(await error('search_tools', { query: 'file', limit: 0 }), /limit must be a whole number/);
  assert.match(
    await error('search_tools', { query: 'file', servers: 'filesystem' }),
    /servers must be an array/,
  );
  const none = await search.call('search_tools', { query: 'qqqq zzzz' });
  assert.match(text(none), /No tool matches/);
  assert.match(await error('call_tool', {}), /needs the qualified name/);
  assert.match(
    await error('call_tool', { name: 'memory__create_entity', arguments: {} }),
    /There is no tool named memory__create_entity\. Did you mean memory__create_entities/,
  );
  assert.match(
    await error('call_tool', { name: 'everything__echo', arguments: ['hi'] }),
    /must be a JSON object, got an array/,
  );
  const before = host.log.entries().length;
  const wrong = await error('call_tool', { name: 'memory__create_entities', arguments: { entities: 'Ada' } });
  assert.match(wrong, /do not fit the input schema of memory__create_entities: .*entities/);
  assert.match(wrong, /Its input schema: \{/);
  assert.deepEqual(asked, [], 'no approval is asked for arguments that do not fit');
  const logged = host.log.entries().slice(before - host.log.entries().length);
  assert.ok(logged.every((e) => e.kind !== 'approval'));
  assert.ok(
    logged.some((e) => e.kind === 'tool' && e.name === 'memory__create_entities' && e.outcome === 'error'),
  );
  assert.match(await error('other_tool', {}), /the tool search has search_tools and call_tool/);
});

test('auto: the two tools once the definitions pass the budget, every tool below it', async () => {
  const events: ChatEvent[] = [];
  const model = new AnthropicModel({ model: 'claude-x', baseUrl: standIn.url, apiKey: 'sk-test' });
  const small = host.chat({
    model,
    toolExposure: 'auto',
    tools: (t) => t.server === 'thinking',
    onevent: (e) => events.push(e),
  });
  await small.send('hello');
  assert.deepEqual(offered(standIn.received[standIn.received.length - 1] as Received), [
    'thinking__sequentialthinking',
  ]);
  const big = host.chat({ model, toolExposure: 'auto', toolBudget: 20_000, onevent: (e) => events.push(e) });
  await big.send('hello');
  assert.deepEqual(offered(standIn.received[standIn.received.length - 1] as Received), [
    'search_tools',
    'call_tool',
  ]);
  const modes = events.flatMap((e) => (e.type === 'tool-exposure' ? [`${e.mode}:${e.tools}`] : []));
  assert.equal(modes[0], 'all:1');
  assert.match(modes[1] as string, /^search:\d{4}$/);
  const tokens = events.flatMap((e) => (e.type === 'tool-exposure' && e.mode === 'search' ? [e.tokens] : []));
  assert.ok((tokens[0] as number) > 20_000, `${tokens[0]} tokens`);
});

test("a chat's tool filter holds in search and call_tool: a tool it hides is neither found nor run", async () => {
  const model = new AnthropicModel({ model: 'claude-x', baseUrl: standIn.url, apiKey: 'sk-test' });
  const chat = host.chat({ model, toolExposure: 'search', tools: (t) => t.server !== 'filesystem' });
  standIn.script(
    { kind: 'tools', calls: [{ name: 'search_tools', arguments: { query: 'read a text file' } }] },
    {
      kind: 'tools',
      calls: [
        {
          name: 'call_tool',
          arguments: { name: 'filesystem__read_text_file', arguments: { path: join(dir, 'x') } },
        },
      ],
    },
  );
  const turn = await chat.send('read it');
  const results = turn.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [m.content]));
  const texts = results.flatMap((b) =>
    b.type === 'tool_result' ? b.content.map((c) => (c.type === 'text' ? c.text : '')) : [],
  );
  assert.ok(!(texts[0] as string).includes('filesystem__'), texts[0]);
  assert.match(texts[1] as string, /There is no tool named filesystem__read_text_file/);
});
