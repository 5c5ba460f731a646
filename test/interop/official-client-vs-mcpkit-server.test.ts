// The OFFICIAL SDK client (test/fixtures/official-stdio-client.ts) walks the fixture contract against OUR stdio
// server (test/interop/fixtures/mcpkit-stdio-server.ts), over real processes; every step of its summary is checked.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { after, before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import {
  MCPKIT_SERVER,
  OFFICIAL_CLIENT,
  Pids,
  type RunResult,
  runNode,
  TEST_TIMEOUT,
  waitGone,
} from './helpers.js';

type Json = Record<string, unknown>;

interface Summary {
  connected: boolean;
  server: { info: Json | null; capabilities: Json | null; instructions: string | null };
  results: Record<string, unknown>;
  notifications: { progress: number; log: number; progressEvents: Json[]; logMessages: Json[] };
  serverRequests: { sampling: number; elicitation: number };
  protocolErrors: string[];
  errors: Record<string, string>;
}

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

const EXPECTED_STEPS = [
  'connect',
  'setLoggingLevel',
  'listTools',
  'callTool:echo',
  'callTool:add',
  'callTool:ask_sampling',
  'callTool:ask_elicitation',
  'callTool:progress',
  'callTool:log',
  'listResources',
  'readResource:test://static',
  'readResource:test://blob',
  'listResourceTemplates',
  'complete:test://items/{id}',
  'readResource:test://items/beta',
  'listPrompts',
  'getPrompt:greet',
  'complete:greet',
  'ping',
  'close',
];
const DIALECT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

const pids = new Pids();
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-interop-'));
const pidFile = join(dir, 'server.pid');
let run: RunResult;
let summary: Summary;
let serverPids: number[] = [];

before(async () => {
  run = await runNode([OFFICIAL_CLIENT, process.execPath, MCPKIT_SERVER], pids, {
    MCPKIT_INTEROP_PID_FILE: pidFile,
  });
  try {
    serverPids = readFileSync(pidFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  for (const pid of serverPids) pids.add(pid);
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  summary = JSON.parse(line) as Summary;
});

after(() => {
  pids.killAll();
  rmSync(dir, { recursive: true, force: true });
});

function result<T = Json>(step: string): T {
  assert.ok(step in summary.results, `step ${step} has no result (error: ${summary.errors[step] ?? 'none'})`);
  return summary.results[step] as T;
}

function toolResult(name: string): ToolResult {
  return result<ToolResult>(`callTool:${name}`);
}

/** The parts of a JSON Schema the contract fixes; `$schema`, if present, must name the MCP default dialect. */
function schemaCore(schema: unknown): Json {
  const s = schema as Json;
  if (s.$schema !== undefined) assert.equal(s.$schema, DIALECT_2020_12);
  const core: Json = { type: s.type, properties: s.properties };
  if (s.required !== undefined) core.required = s.required;
  return core;
}

test('the official client connects, walks the contract and exits 0', { timeout: TEST_TIMEOUT }, () => {
  assert.equal(run.code, 0, `official client exited with ${run.code} (${run.signal}); stderr: ${run.stderr}`);
  assert.equal(summary.connected, true);
  assert.deepEqual(Object.keys(summary.results).sort(), [...EXPECTED_STEPS].sort());
});

test('no step failed and the SDK reported no protocol errors', () => {
  assert.deepEqual(summary.errors, {});
  assert.deepEqual(summary.protocolErrors, []);
});

test('server info and capabilities', () => {
  assert.deepEqual(summary.server.info, { name: 'mcpkit-fixture-server', version: '1.0.0' });
  const caps = summary.server.capabilities ?? {};
  for (const cap of ['tools', 'resources', 'prompts', 'logging', 'completions']) {
    assert.ok(caps[cap] !== undefined, `capability ${cap} is declared`);
  }
  assert.equal(summary.server.instructions, null);
  assert.deepEqual(result('setLoggingLevel'), {});
});

test('tools are listed with their names, input schemas and the outputSchema of add', () => {
  const { tools } = result<{ tools: (Json & { name: string })[] }>('listTools');
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ['echo', 'add', 'ask_sampling', 'ask_elicitation', 'progress', 'log'],
  );
  assert.deepEqual(schemaCore(byName.get('echo')?.inputSchema), {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
  });
  assert.deepEqual(schemaCore(byName.get('add')?.inputSchema), {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  });
  assert.deepEqual(schemaCore(byName.get('ask_sampling')?.inputSchema), {
    type: 'object',
    properties: { prompt: { type: 'string' } },
    required: ['prompt'],
  });
  for (const name of ['ask_elicitation', 'progress', 'log']) {
    assert.deepEqual(schemaCore(byName.get(name)?.inputSchema), { type: 'object', properties: {} }, name);
  }
  assert.deepEqual(schemaCore(byName.get('add')?.outputSchema), {
    type: 'object',
    properties: { sum: { type: 'number' } },
    required: ['sum'],
  });
  for (const name of ['echo', 'ask_sampling', 'ask_elicitation', 'progress', 'log']) {
    assert.equal(byName.get(name)?.outputSchema, undefined, `${name} has no outputSchema`);
  }
});

test('echo', () => {
  assert.deepEqual(toolResult('echo'), { content: [{ type: 'text', text: 'echo: hello' }] });
});

test('add returns structuredContent {sum} (accepted by the SDK against the listed outputSchema)', () => {
  const add = toolResult('add');
  assert.deepEqual(add.structuredContent, { sum: 5 });
  assert.deepEqual(add.content, [{ type: 'text', text: '{"sum":5}' }]);
  assert.notEqual(add.isError, true);
});

test('sampling round trip: ctx.sample reaches the official client and its text comes back', () => {
  assert.equal(summary.serverRequests.sampling, 1);
  assert.deepEqual(toolResult('ask_sampling'), {
    content: [{ type: 'text', text: 'sampled: What is MCP?' }],
  });
});

test('elicitation: ctx.elicit gets the official client answer content', () => {
  assert.equal(summary.serverRequests.elicitation, 1);
  const text = toolResult('ask_elicitation').content[0]?.text ?? '';
  assert.deepEqual(JSON.parse(text), { action: 'accept', content: { name: 'Ada', age: 36 } });
});

test('progress: three notifications 1..3 of 3 with messages, one token', () => {
  assert.deepEqual(toolResult('progress'), { content: [{ type: 'text', text: 'progress: sent 3' }] });
  assert.equal(summary.notifications.progress, 3);
  const events = summary.notifications.progressEvents;
  const token = events[0]?.progressToken;
  assert.ok(typeof token === 'number' || typeof token === 'string', 'a progress token was echoed');
  assert.deepEqual(
    events,
    [1, 2, 3].map((n) => ({ progressToken: token, progress: n, total: 3, message: `step ${n}` })),
  );
});

test('log: ctx.log reaches the official client at level info', () => {
  assert.deepEqual(toolResult('log'), { content: [{ type: 'text', text: 'log: sent info' }] });
  assert.ok(summary.notifications.log >= 1, 'at least one log notification');
  assert.equal(summary.notifications.logMessages.length, summary.notifications.log);
  assert.ok(
    summary.notifications.logMessages.some((m) =>
      isDeepStrictEqual(m, { level: 'info', logger: 'fixture', data: 'hello from the log tool' }),
    ),
    `the log tool's message arrived: ${JSON.stringify(summary.notifications.logMessages)}`,
  );
});

test('resources: listed, text and blob read exactly', () => {
  const { resources } = result<{ resources: Json[] }>('listResources');
  assert.deepEqual(
    resources.map(({ uri, name, mimeType }) => ({ uri, name, mimeType })),
    [
      { uri: 'test://static', name: 'static', mimeType: 'text/plain' },
      { uri: 'test://blob', name: 'blob', mimeType: 'application/octet-stream' },
    ],
  );
  assert.deepEqual(result('readResource:test://static'), {
    contents: [{ uri: 'test://static', mimeType: 'text/plain', text: 'static text' }],
  });
  const blob = result<{ contents: { blob: string }[] }>('readResource:test://blob');
  assert.deepEqual(blob, {
    contents: [{ uri: 'test://blob', mimeType: 'application/octet-stream', blob: '3q2+7w==' }],
  });
  assert.deepEqual([...Buffer.from(blob.contents[0]?.blob ?? '', 'base64')], [0xde, 0xad, 0xbe, 0xef]);
});

test('resource template: listed and read through test://items/beta', () => {
  const { resourceTemplates } = result<{ resourceTemplates: Json[] }>('listResourceTemplates');
  assert.deepEqual(
    resourceTemplates.map(({ uriTemplate, name, mimeType }) => ({ uriTemplate, name, mimeType })),
    [{ uriTemplate: 'test://items/{id}', name: 'item', mimeType: 'text/plain' }],
  );
  assert.deepEqual(result('readResource:test://items/beta'), {
    contents: [{ uri: 'test://items/beta', mimeType: 'text/plain', text: 'item beta' }],
  });
});

test('prompt: listed with its required argument, and its message text', () => {
  const { prompts } = result<{ prompts: Json[] }>('listPrompts');
  assert.deepEqual(
    prompts.map(({ name, arguments: args }) => ({ name, arguments: args })),
    [{ name: 'greet', arguments: [{ name: 'name', required: true }] }],
  );
  assert.deepEqual(result('getPrompt:greet'), {
    messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Bob!' } }],
  });
});

test('completions: the prompt argument and the template variable', () => {
  assert.deepEqual(result('complete:greet'), {
    completion: { values: ['Ada', 'Alan'], total: 2, hasMore: false },
  });
  assert.deepEqual(result('complete:test://items/{id}'), {
    completion: { values: ['beta'], total: 1, hasMore: false },
  });
});

test('ping', () => {
  assert.deepEqual(result('ping'), {});
});

test('our server process exits once the official client has closed it', {
  timeout: TEST_TIMEOUT,
}, async () => {
  assert.equal(serverPids.length, 1, 'the official client started our server exactly once');
  const pid = serverPids[0]!;
  assert.equal(await waitGone(pid, 3_000), true, `server pid ${pid} is gone`);
});
