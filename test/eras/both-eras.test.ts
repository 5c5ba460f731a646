// End to end, ONE server definition (fixtures/dual-server.ts) in BOTH protocol eras over BOTH transports: our
// Client pinned to the stateful era (initialize, 2025-11-25) and to the stateless era (2026-07-28), over stdio (a
// real process) and over HTTP (`serve()` on 127.0.0.1). Every method: tools, resources, templates, prompts,
// completion, logging, progress, a tool that elicits/samples/lists roots through the context, a tool in explicit
// multi round-trip style, list_changed, resource updates, cache hints, resource-not-found, and the fields every
// stateless result carries. A tap on the client's transport shows what crossed the wire in each era.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../../src/client/client.js';
import { ErrorCode, JsonRpcError, McpkitError } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { type RunningServer, serve } from '../../src/node.js';
import { META } from '../../src/spec/modern.js';
import {
  CONFIRM_SCHEMA,
  createDualServer,
  DEFAULT_HINT,
  DUAL_INFO,
  DUAL_INSTRUCTIONS,
  NAME_SCHEMA,
  STATIC_HINT,
  TOOLS_LIST_HINT,
} from './fixtures/dual-server.js';
import {
  CALL,
  connectClient,
  DUAL_STDIO_MAIN,
  eventually,
  firstText,
  newSeen,
  Pids,
  ROOTS,
  recordingOptions,
  SUITE_TIMEOUT,
  sleep,
  type Tap,
  type Target,
  within,
} from './helpers.js';

const TOOL_NAMES = [
  'add',
  'confirm',
  'echo',
  'end_listens',
  'interact',
  'poll',
  'progress_log',
  'region',
  'stats',
  'target',
  'toggle',
  'touch',
  'wait_abort',
];

const pids = new Pids();
const dual = createDualServer();
let running: RunningServer;

before(async () => {
  running = await serve(dual.server);
});

after(async () => {
  await running?.close();
  pids.killAll();
});

/** The requests of `method` the client sent, optionally only those whose params match `where`. */
function sentOf(tap: Tap, method: string, where: (params: JsonObject) => boolean = () => true) {
  return tap.sentRequests(method).filter((m) => where(m.params ?? {}));
}

/** The response (result or error) the client received for request `id`. */
function replyTo(tap: Tap, id: unknown): { result?: JsonObject; error?: { code: number } } | undefined {
  return tap.received.find((m) => !('method' in m) && m.id === id) as
    | { result?: JsonObject; error?: { code: number } }
    | undefined;
}

/** The last result received for a request of `method` (matching `where`). */
function lastResult(tap: Tap, method: string, where?: (params: JsonObject) => boolean): JsonObject {
  const sent = sentOf(tap, method, where);
  const last = sent[sent.length - 1];
  assert.ok(last, `a ${method} request was sent`);
  const reply = replyTo(tap, last.id);
  assert.ok(reply?.result, `a result arrived for ${method}`);
  return reply.result;
}

function hintOf(result: JsonObject): { ttlMs: unknown; cacheScope: unknown } {
  return { ttlMs: result.ttlMs, cacheScope: result.cacheScope };
}

for (const kind of ['stdio', 'http'] as const) {
  for (const era of ['stateful', 'stateless'] as const) {
    const stateless = era === 'stateless';
    describe(`${kind}: our Client pinned to the ${era} era against the dual-era server`, {
      timeout: SUITE_TIMEOUT,
    }, () => {
      const seen = newSeen();
      let client: Client;
      let tap: Tap;
      const target = (): Target =>
        kind === 'http'
          ? { kind, url: running.url }
          : { kind, command: process.execPath, args: [DUAL_STDIO_MAIN] };
      /** Handler runs of a tool in the server (visible only when it runs in this process). */
      const runs = (tool: string) => dual.runs.get(tool) ?? 0;

      before(async () => {
        ({ client, tap } = await connectClient(target(), era, recordingOptions(seen), pids));
      });
      after(async () => {
        await client?.close();
      });

      test('connects in the pinned era and learns the server identity, instructions and capabilities', () => {
        assert.equal(client.era, era);
        assert.equal(client.protocolVersion, stateless ? '2026-07-28' : '2025-11-25');
        assert.deepEqual(client.serverInfo, DUAL_INFO);
        assert.equal(client.instructions, DUAL_INSTRUCTIONS);
        const caps = client.serverCapabilities;
        assert.equal(caps?.tools?.listChanged, true);
        assert.equal(caps?.resources?.subscribe, true);
        assert.equal(caps?.resources?.listChanged, true);
        assert.equal(caps?.prompts?.listChanged, true);
        assert.ok(caps?.completions);
        assert.ok(caps?.logging);
        if (stateless) {
          assert.equal(sentOf(tap, 'initialize').length, 0, 'no initialize in the stateless era');
          assert.equal(sentOf(tap, 'server/discover').length, 1);
        } else {
          assert.equal(sentOf(tap, 'server/discover').length, 0, 'a pinned stateful client does not probe');
          assert.equal(sentOf(tap, 'initialize').length, 1);
        }
      });

      test('tools/list and tools/call: text and structured (zod) results', async () => {
        const tools = await client.listTools(CALL);
        assert.deepEqual(tools.map((t) => t.name).sort(), TOOL_NAMES);
        const add = tools.find((t) => t.name === 'add');
        assert.equal(add?.inputSchema.type, 'object');
        assert.ok(add?.outputSchema, 'the zod output schema is listed');

        const echo = await client.callTool('echo', { text: 'hello' }, CALL);
        assert.equal(firstText(echo), 'echo: hello');
        assert.notEqual(echo.isError, true);

        const sum = await client.callTool('add', { a: 2, b: 3 }, CALL);
        assert.deepEqual(sum.structuredContent, { sum: 5 });
        assert.equal(firstText(sum), '{"sum":5}');

        // x-mcp-header: over HTTP in the stateless era the argument must be mirrored in Mcp-Param-Region.
        assert.equal(
          firstText(await client.callTool('region', { region: 'eu-west' }, CALL)),
          'region eu-west',
        );
        assert.equal(firstText(await client.callTool('region', { region: 'Zürich' }, CALL)), 'region Zürich');

        const invalid = await client.callTool('add', { a: 'two', b: 3 }, CALL);
        assert.equal(invalid.isError, true, 'invalid arguments are a tool error in both eras');
      });

      test('resources: list, templates, read, read through a template', async () => {
        const resources = await client.listResources(CALL);
        assert.deepEqual(resources.map((r) => r.uri).sort(), ['eras://counter', 'eras://static']);
        const templates = await client.listResourceTemplates(CALL);
        assert.deepEqual(
          templates.map((t) => t.uriTemplate),
          ['eras://items/{id}'],
        );
        const read = await client.readResource('eras://static', CALL);
        assert.deepEqual(read.contents, [
          { uri: 'eras://static', text: 'static text', mimeType: 'text/plain' },
        ]);
        const item = await client.readResource('eras://items/beta', CALL);
        assert.deepEqual(item.contents, [
          { uri: 'eras://items/beta', text: 'item beta', mimeType: 'text/plain' },
        ]);
      });

      test('prompts: list, get; completion of a prompt argument and of a template variable', async () => {
        const prompts = await client.listPrompts(CALL);
        assert.deepEqual(prompts.map((p) => p.name).sort(), ['greet', 'introduce']);
        const greet = await client.getPrompt('greet', { name: 'Bob' }, CALL);
        assert.deepEqual(greet.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Bob!' } }]);
        const names = await client.complete(
          { type: 'ref/prompt', name: 'greet' },
          { name: 'name', value: 'a' },
        );
        assert.deepEqual(names.values, ['Ada', 'Alan']);
        const ids = await client.complete(
          { type: 'ref/resource', uri: 'eras://items/{id}' },
          { name: 'id', value: 'b' },
        );
        assert.deepEqual(ids.values, ['beta']);
        assert.equal(ids.total, 1);
      });

      test('logging: per request logLevel (stateless) or logging/setLevel (stateful)', async () => {
        if (stateless) {
          // A client with a log handler asks for 'info' and above until told otherwise (the stateful default).
          seen.logs.length = 0;
          await client.callTool('progress_log', {}, CALL);
          assert.deepEqual(
            seen.logs.map((l) => l.level),
            ['info', 'error'],
          );
          const first = sentOf(tap, 'tools/call', (p) => p.name === 'progress_log').at(-1)?.params?._meta as
            | JsonObject
            | undefined;
          assert.equal(first?.[META.logLevel], 'info', 'the default level travels in the request _meta');
        }
        await client.setLoggingLevel('error', CALL);
        seen.logs.length = 0;
        await client.callTool('progress_log', {}, CALL);
        assert.deepEqual(seen.logs, [{ level: 'error', logger: 'dual', data: 'error message' }]);

        await client.setLoggingLevel('debug', CALL);
        seen.logs.length = 0;
        await client.callTool('progress_log', {}, CALL);
        assert.deepEqual(
          seen.logs.map((l) => l.level),
          ['debug', 'info', 'error'],
        );
        if (stateless) {
          assert.equal(sentOf(tap, 'logging/setLevel').length, 0, 'no logging/setLevel in the stateless era');
          const calls = sentOf(tap, 'tools/call', (p) => p.name === 'progress_log');
          const last = calls[calls.length - 1]?.params?._meta as JsonObject | undefined;
          assert.equal(last?.[META.logLevel], 'debug', 'the level travels in every request _meta');
        } else {
          assert.equal(sentOf(tap, 'logging/setLevel').length, 2);
        }
      });

      test('progress: three increasing notifications with total and message', async () => {
        const progress: JsonObject[] = [];
        const result = await client.callTool(
          'progress_log',
          {},
          {
            ...CALL,
            onprogress: (p) => progress.push(p as unknown as JsonObject),
          },
        );
        assert.equal(firstText(result), 'progress and logs sent');
        assert.deepEqual(
          progress.map((p) => [p.progress, p.total, p.message]),
          [
            [1, 3, 'step 1'],
            [2, 3, 'step 2'],
            [3, 3, 'step 3'],
          ],
        );
      });

      test('a tool using ctx.elicit(), ctx.sample() and ctx.listRoots() gets its answers', async () => {
        const before = { e: seen.elicitations.length, s: seen.samplings.length, r: seen.rootsCalls };
        const runsBefore = runs('interact');
        const result = await client.callTool('interact', { topic: 'weather' }, CALL);
        assert.notEqual(result.isError, true, firstText(result));
        assert.deepEqual(result.structuredContent, {
          action: 'accept',
          name: 'Ada',
          sampled: 'sampled: weather',
          roots: ROOTS.map((r) => r.uri),
        });
        assert.equal(seen.elicitations.length, before.e + 1);
        assert.equal(seen.samplings.length, before.s + 1);
        assert.equal(seen.rootsCalls, before.r + 1);
        const elicitation = seen.elicitations[seen.elicitations.length - 1];
        assert.equal(elicitation?.message, 'Who asks about weather?');
        assert.equal(elicitation?.mode, 'form');
        assert.deepEqual(elicitation?.requestedSchema, NAME_SCHEMA);
        const sampling = seen.samplings[seen.samplings.length - 1];
        assert.equal(sampling?.maxTokens, 20);

        const calls = sentOf(tap, 'tools/call', (p) => p.name === 'interact');
        if (stateless) {
          // Input-required rounds: no server-to-client request, the call is retried with the answers.
          assert.equal(tap.receivedRequests().length, 0, 'a stateless server sends no requests');
          assert.equal(calls.length, 4, 'one call and three retries (elicit, sample, roots)');
          const methods: string[] = [];
          for (let i = 0; i < calls.length; i++) {
            const reply = replyTo(tap, calls[i]?.id);
            const r = reply?.result as JsonObject;
            if (i < 3) {
              assert.equal(r.resultType, 'input_required');
              const requests = r.inputRequests as Record<string, { method: string }>;
              const keys = Object.keys(requests);
              assert.equal(keys.length, 1);
              methods.push(requests[keys[0] as string]?.method as string);
              const retry = calls[i + 1]?.params as JsonObject;
              assert.equal(retry.requestState, r.requestState, 'requestState echoed byte for byte');
              assert.ok(keys.every((k) => k in (retry.inputResponses as JsonObject)));
              assert.notEqual(calls[i + 1]?.id, calls[i]?.id, 'a retry has a new id');
            } else {
              assert.equal(r.resultType, 'complete');
            }
          }
          assert.deepEqual(methods, ['elicitation/create', 'sampling/createMessage', 'roots/list']);
          if (kind === 'http') assert.equal(runs('interact') - runsBefore, 4, 'the handler re-ran per round');
        } else {
          assert.equal(calls.length, 1);
          assert.equal(tap.receivedRequests('elicitation/create').length, 1);
          assert.equal(tap.receivedRequests('sampling/createMessage').length, 1);
          assert.equal(tap.receivedRequests('roots/list').length, 1);
          if (kind === 'http') assert.equal(runs('interact') - runsBefore, 1);
        }
      });

      test('a tool in explicit MRTR style (inputRequired) works: local shim (stateful), input_required (stateless)', async () => {
        const runsBefore = runs('confirm');
        const receivedBefore = tap.receivedRequests().length;
        const result = await client.callTool('confirm', { action: 'deploy' }, CALL);
        assert.notEqual(result.isError, true, firstText(result));
        assert.deepEqual(result.structuredContent, {
          action: 'deploy',
          confirmed: true,
          roots: ROOTS.map((r) => r.uri),
          state: { step: 2, previous: { step: 1, action: 'deploy' } },
        });
        const elicitation = seen.elicitations[seen.elicitations.length - 1];
        assert.equal(elicitation?.message, 'Proceed with deploy?');
        assert.deepEqual(elicitation?.requestedSchema, CONFIRM_SCHEMA);
        const calls = sentOf(tap, 'tools/call', (p) => p.name === 'confirm');
        if (stateless) {
          assert.equal(calls.length, 3);
          const keys = calls
            .slice(0, 2)
            .map((c) => Object.keys(replyTo(tap, c.id)?.result?.inputRequests ?? {}));
          assert.deepEqual(keys, [['ok'], ['where']]);
          assert.equal(tap.receivedRequests().length, receivedBefore);
        } else {
          assert.equal(calls.length, 1);
          const asked = tap
            .receivedRequests()
            .slice(receivedBefore)
            .map((m) => m.method);
          assert.deepEqual(asked, ['elicitation/create', 'roots/list']);
        }
        if (kind === 'http') assert.equal(runs('confirm') - runsBefore, 3, 'three handler runs in both eras');
      });

      test('prompts/get that elicits: real request (stateful) or input_required round (stateless)', async () => {
        const prompt = await client.getPrompt('introduce', undefined, CALL);
        assert.deepEqual(prompt.messages, [
          { role: 'user', content: { type: 'text', text: 'Nice to meet you, Ada.' } },
        ]);
        assert.equal(sentOf(tap, 'prompts/get', (p) => p.name === 'introduce').length, stateless ? 2 : 1);
      });

      test('cache hints on stateless list/read results; none in the stateful era', async () => {
        await client.listPrompts(CALL);
        await client.listResourceTemplates(CALL);
        await client.readResource('eras://items/alpha', CALL);
        await client.readResource('eras://static', CALL);
        await client.readResource('eras://static', CALL);
        const first = await client.readResource('eras://counter', CALL);
        const second = await client.readResource('eras://counter', CALL);
        assert.notDeepEqual(first.contents, second.contents, 'a ttlMs 0 resource is read afresh');
        const staticReads = sentOf(tap, 'resources/read', (p) => p.uri === 'eras://static').length;
        const counterReads = sentOf(tap, 'resources/read', (p) => p.uri === 'eras://counter').length;
        assert.equal(counterReads, 2);
        if (!stateless) {
          assert.equal(staticReads, 3, 'no caching without hints');
          for (const { result } of tap.results()) {
            assert.equal(result.ttlMs, undefined);
            assert.equal(result.cacheScope, undefined);
          }
          return;
        }
        assert.equal(
          staticReads,
          1,
          'the static resource (ttlMs 30 s, public) is served from the client cache',
        );
        assert.deepEqual(hintOf(lastResult(tap, 'tools/list')), TOOLS_LIST_HINT);
        assert.deepEqual(hintOf(lastResult(tap, 'server/discover')), DEFAULT_HINT);
        assert.deepEqual(hintOf(lastResult(tap, 'prompts/list')), DEFAULT_HINT);
        assert.deepEqual(hintOf(lastResult(tap, 'resources/list')), DEFAULT_HINT);
        assert.deepEqual(hintOf(lastResult(tap, 'resources/templates/list')), DEFAULT_HINT);
        assert.deepEqual(
          hintOf(lastResult(tap, 'resources/read', (p) => p.uri === 'eras://static')),
          STATIC_HINT,
        );
        assert.deepEqual(
          hintOf(lastResult(tap, 'resources/read', (p) => p.uri === 'eras://items/alpha')),
          DEFAULT_HINT,
        );
        for (const method of ['tools/call', 'prompts/get', 'completion/complete']) {
          assert.equal(lastResult(tap, method).ttlMs, undefined, `${method} is not cacheable`);
        }
        const inputRequired = tap.results().filter((r) => r.result.resultType === 'input_required');
        assert.ok(inputRequired.length > 0);
        for (const { result } of inputRequired)
          assert.equal(result.ttlMs, undefined, 'input_required is never cacheable');
      });

      test('resource not found: -32002 (stateful) vs -32602 (stateless), with the uri', async () => {
        await assert.rejects(client.readResource('eras://missing', CALL), (e: unknown) => {
          assert.ok(e instanceof JsonRpcError, String(e));
          assert.equal(e.code, stateless ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound);
          assert.deepEqual(e.data, { uri: 'eras://missing' });
          return true;
        });
      });

      test('list_changed: a notification (stateful) or a subscriptions/listen stream (stateless)', async () => {
        let sub: ReturnType<Client['listen']> | undefined;
        if (stateless) {
          sub = client.listen({ toolsListChanged: true });
          assert.deepEqual(await sub.honoured, { toolsListChanged: true });
        } else {
          assert.throws(() => client.listen({ toolsListChanged: true }), McpkitError);
        }
        const from = seen.toolsChanged.length;
        await client.callTool('toggle', { visible: false }, CALL);
        await eventually(
          () =>
            seen.toolsChanged.slice(from).some((names) => names !== undefined && !names.includes('target')),
          'a refreshed tool list without "target"',
        );
        const from2 = seen.toolsChanged.length;
        await client.callTool('toggle', { visible: true }, CALL);
        await eventually(
          () => seen.toolsChanged.slice(from2).some((names) => names?.includes('target') === true),
          'a refreshed tool list with "target" again',
        );
        const changes = tap.received.filter(
          (m) => 'method' in m && m.method === 'notifications/tools/list_changed',
        );
        assert.ok(changes.length >= 2);
        if (stateless) {
          const listenIds = new Set(sentOf(tap, 'subscriptions/listen').map((m) => m.id));
          for (const n of changes) {
            const id = ((n as { params?: JsonObject }).params?._meta as JsonObject | undefined)?.[
              META.subscriptionId
            ];
            assert.ok(
              listenIds.has(id as string | number),
              'every stream notification names its listen request',
            );
          }
          sub?.close();
          assert.equal(await sub?.ended, 'local');
        }
      });

      test('resource updates: resources/subscribe (stateful) or a listen filter (stateless)', async () => {
        await client.subscribeResource('eras://counter', CALL);
        await client.callTool('touch', { uri: 'eras://counter' }, CALL);
        await eventually(() => seen.updated.includes('eras://counter'), 'an update of eras://counter');
        assert.equal(sentOf(tap, 'resources/subscribe').length, stateless ? 0 : 1);

        await client.unsubscribeResource('eras://counter', CALL);
        const counterUpdates = seen.updated.filter((u) => u === 'eras://counter').length;
        if (stateless) {
          // The explicit listen API with a resourceSubscriptions filter.
          const sub = client.listen({ resourceSubscriptions: ['eras://static'] });
          assert.deepEqual(await sub.honoured, { resourceSubscriptions: ['eras://static'] });
          await client.callTool('touch', { uri: 'eras://counter' }, CALL);
          await client.callTool('touch', { uri: 'eras://static' }, CALL);
          await eventually(() => seen.updated.includes('eras://static'), 'an update of eras://static');
          sub.close();
          assert.equal(await sub.ended, 'local');
        } else {
          await client.subscribeResource('eras://static', CALL);
          await client.callTool('touch', { uri: 'eras://counter' }, CALL);
          await client.callTool('touch', { uri: 'eras://static' }, CALL);
          await eventually(() => seen.updated.includes('eras://static'), 'an update of eras://static');
          await client.unsubscribeResource('eras://static', CALL);
        }
        await sleep(50);
        assert.equal(
          seen.updated.filter((u) => u === 'eras://counter').length,
          counterUpdates,
          'no update after unsubscribing',
        );
      });

      test('ping (server/discover in the stateless era, which has no ping)', async () => {
        const pings = sentOf(tap, 'ping').length;
        await client.ping(CALL);
        assert.equal(sentOf(tap, 'ping').length, stateless ? 0 : pings + 1);
      });

      test('cancellation: aborting a call rejects it locally and the server handler sees its signal abort', async () => {
        const stats = async () =>
          (await client.callTool('stats', {}, CALL)).structuredContent as {
            started: number;
            aborted: number;
          };
        const before = await stats();
        const controller = new AbortController();
        let progressed!: () => void;
        const firstProgress = new Promise<void>((resolve) => {
          progressed = resolve;
        });
        const call = client.callTool(
          'wait_abort',
          {},
          {
            ...CALL,
            signal: controller.signal,
            onprogress: () => progressed(),
          },
        );
        await within(firstProgress, 'the first progress notification');
        const id = sentOf(tap, 'tools/call', (p) => p.name === 'wait_abort').at(-1)?.id;
        controller.abort();
        await assert.rejects(call);
        await eventually(
          async () => (await stats()).aborted === before.aborted + 1,
          'the handler to see the abort',
        );
        const cancels = tap.sent.filter((m) => 'method' in m && m.method === 'notifications/cancelled');
        assert.ok(
          cancels.some((m) => (m as { params?: JsonObject }).params?.requestId === id),
          'the client cancelled that request',
        );
        assert.equal(replyTo(tap, id), undefined, 'no response is delivered for a cancelled request');
      });

      test('every result is shaped for its era: resultType and serverInfo (stateless) or neither (stateful)', () => {
        const results = tap.results();
        assert.ok(results.length > 20);
        for (const { id, result } of results) {
          const meta = result._meta as JsonObject | undefined;
          if (stateless) {
            assert.ok(
              result.resultType === 'complete' || result.resultType === 'input_required',
              `result ${String(id)} has resultType ${String(result.resultType)}`,
            );
            assert.deepEqual(meta?.[META.serverInfo], DUAL_INFO, `result ${String(id)} names the server`);
          } else {
            assert.equal(result.resultType, undefined, `result ${String(id)} has no resultType`);
            assert.equal(meta?.[META.serverInfo], undefined);
          }
        }
        assert.deepEqual(seen.errors, []);
      });
    });
  }
}

describe('stateless: a listen stream of a client without callbacks still invalidates its cache', {
  timeout: SUITE_TIMEOUT,
}, () => {
  for (const kind of ['stdio', 'http'] as const) {
    test(`${kind}: tools/list (ttlMs 60 s) is re-fetched after list_changed arrives on the stream`, async () => {
      const target: Target =
        kind === 'http'
          ? { kind, url: running.url }
          : { kind, command: process.execPath, args: [DUAL_STDIO_MAIN] };
      const { client, tap } = await connectClient(target, 'stateless', {}, pids);
      try {
        assert.ok((await client.listTools(CALL)).some((t) => t.name === 'target'));
        await client.listTools(CALL);
        assert.equal(sentOf(tap, 'tools/list').length, 1, 'the second list came from the cache');
        assert.equal(sentOf(tap, 'subscriptions/listen').length, 0, 'no callbacks: nothing listens yet');
        const sub = client.listen({ toolsListChanged: true });
        assert.deepEqual(await sub.honoured, { toolsListChanged: true });
        await client.callTool('toggle', { visible: false }, CALL);
        await eventually(
          async () => !(await client.listTools(CALL)).some((t) => t.name === 'target'),
          'the cached tool list to be dropped',
        );
        await client.callTool('toggle', { visible: true }, CALL);
        await eventually(
          async () => (await client.listTools(CALL)).some((t) => t.name === 'target'),
          'the tool list to show "target" again',
        );
        sub.close();
        assert.equal(await sub.ended, 'local');
      } finally {
        await client.close();
      }
    });
  }
});

describe('stateless over HTTP: a -32020 for an unmirrored x-mcp-header argument', {
  timeout: SUITE_TIMEOUT,
}, () => {
  test('a call made before tools/list is retried after re-fetching the tool list', async () => {
    const { client, tap } = await connectClient({ kind: 'http', url: running.url }, 'stateless', {}, pids);
    try {
      const result = await client.callTool('region', { region: 'eu-west' }, CALL);
      assert.equal(firstText(result), 'region eu-west');
      assert.equal(sentOf(tap, 'tools/list').length, 1, 'the tool list was fetched to learn the header');
    } finally {
      await client.close();
    }
  });
});
