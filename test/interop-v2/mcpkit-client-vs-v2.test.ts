// OUR Client against a server built with the OFFICIAL SDK v2 (fixtures/v2-server.ts): over HTTP through
// `createMcpHandler` (2026-07-28, plus stateless 2025 serving by default) and over stdio through `serveStdio`,
// with our Client pinned to the stateful era, pinned to the stateless era, and in 'auto'. Tools, a tool that needs
// elicitation in multi round-trip style (`inputRequired`), a two-round tool whose requestState our client must echo,
// resources (cache hints, not-found), templates, prompts, completion, list_changed and resource updates.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../../src/client/client.js';
import { ErrorCode, JsonRpcError } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { META } from '../../src/spec/modern.js';
import {
  CALL,
  connectClient,
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
} from '../eras/helpers.js';
import { V2_INFO, V2_INSTRUCTIONS, V2_NAME_SCHEMA } from './fixtures/v2-server.js';
import { type FetchServer, serveV2Http, V2_STDIO_MAIN } from './helpers.js';

const pids = new Pids();
let http: FetchServer;

before(async () => {
  http = await serveV2Http();
});
after(async () => {
  await http?.close();
  pids.killAll();
});

for (const kind of ['http', 'stdio'] as const) {
  for (const era of ['stateful', 'stateless', 'auto'] as const) {
    const stateless = era !== 'stateful';
    /** The v2 entry's stateless 2025 serving over HTTP: one fresh instance per request, no session. */
    const perRequestLegacy = kind === 'http' && !stateless;
    describe(`our Client (${era}) over ${kind} against the official SDK v2 server`, {
      timeout: SUITE_TIMEOUT,
    }, () => {
      const seen = newSeen();
      let client: Client;
      let tap: Tap;
      const target = (): Target =>
        kind === 'http'
          ? { kind, url: http.url }
          : { kind, command: process.execPath, args: [V2_STDIO_MAIN] };

      before(async () => {
        ({ client, tap } = await connectClient(target(), era, recordingOptions(seen), pids));
      });
      after(async () => {
        await client?.close();
      });

      test('connects in the expected era and reads the v2 server identity', () => {
        assert.equal(client.era, stateless ? 'stateless' : 'stateful');
        assert.equal(client.protocolVersion, stateless ? '2026-07-28' : '2025-11-25');
        assert.deepEqual(client.serverInfo, V2_INFO);
        assert.equal(client.instructions, V2_INSTRUCTIONS);
        assert.equal(client.serverCapabilities?.tools?.listChanged, true);
      });

      test('tools/list and tools/call', async () => {
        const tools = await client.listTools(CALL);
        assert.deepEqual(tools.map((t) => t.name).sort(), ['ask_name', 'ask_two', 'echo', 'toggle', 'touch']);
        assert.equal(firstText(await client.callTool('echo', { text: 'to v2' }, CALL)), 'echo: to v2');
        const bad = await client.callTool('echo', { text: 42 }, CALL);
        assert.equal(bad.isError, true, 'invalid arguments are a tool error');
      });

      test('a v2 tool written with inputRequired gets its elicitation answered', async () => {
        const asked = seen.elicitations.length;
        const result = await client.callTool('ask_name', { greeting: 'Hello' }, CALL);
        if (perRequestLegacy) {
          // v2 limitation (not a spec violation of either side): its per-request 2025 serving has no
          // connection, so it knows no client capabilities and cannot send a request to the client.
          assert.equal(result.isError, true);
          assert.match(firstText(result), /did not declare the required capability/);
          assert.equal(seen.elicitations.length, asked);
          return;
        }
        assert.notEqual(result.isError, true, firstText(result));
        assert.equal(firstText(result), 'Hello, Ada!');
        assert.equal(seen.elicitations.length, asked + 1);
        const params = seen.elicitations.at(-1);
        assert.equal(params?.message, 'Your name?');
        assert.deepEqual(params?.requestedSchema, V2_NAME_SCHEMA);
        const calls = tap.sentRequests('tools/call').filter((m) => m.params?.name === 'ask_name');
        if (stateless) {
          assert.equal(calls.length, 2, 'one input_required round');
          assert.ok(calls[1]?.params?.inputResponses, 'the retry carries the answer');
        } else {
          assert.equal(calls.length, 1);
          assert.equal(
            tap.receivedRequests('elicitation/create').length,
            1,
            "the v2 legacy shim's real request",
          );
        }
      });

      test('two rounds with requestState: our client echoes the v2 state byte for byte', async () => {
        const result = await client.callTool('ask_two', {}, CALL);
        if (perRequestLegacy) {
          assert.equal(result.isError, true);
          return;
        }
        assert.equal(firstText(result), `name=Ada; roots=${ROOTS.map((r) => r.uri).join(',')}`);
        if (stateless) {
          const calls = tap.sentRequests('tools/call').filter((m) => m.params?.name === 'ask_two');
          assert.equal(calls.length, 3);
          assert.equal(calls[0]?.params?.requestState, undefined, 'no state invented');
          assert.equal(
            calls[1]?.params?.requestState,
            undefined,
            'the first input_required carried no state',
          );
          assert.equal(calls[2]?.params?.requestState, 'name=Ada');
        }
      });

      test('resources: list, read (cache hints when stateless), template read, not found is -32602 in both eras', async () => {
        const resources = await client.listResources(CALL);
        assert.deepEqual(
          resources.map((r) => r.uri),
          ['v2://static'],
        );
        const read = await client.readResource('v2://static', CALL);
        assert.deepEqual(read.contents, [
          { uri: 'v2://static', mimeType: 'text/plain', text: 'v2 static text' },
        ]);
        const templates = await client.listResourceTemplates(CALL);
        assert.deepEqual(
          templates.map((t) => t.uriTemplate),
          ['v2://items/{id}'],
        );
        const item = await client.readResource('v2://items/beta', CALL);
        assert.equal((item.contents[0] as { text?: string }).text, 'item beta');
        await assert.rejects(client.readResource('v2://missing', CALL), (e: unknown) => {
          assert.ok(e instanceof JsonRpcError, String(e));
          assert.equal(e.code, ErrorCode.InvalidParams, 'the v2 SDK never emits -32002');
          assert.deepEqual(e.data, { uri: 'v2://missing' });
          return true;
        });
        if (stateless) {
          const reads = tap.sentRequests('resources/read').filter((m) => m.params?.uri === 'v2://static');
          const reply = tap.received.find((m) => !('method' in m) && m.id === reads[0]?.id) as {
            result: JsonObject;
          };
          assert.equal(reply.result.ttlMs, 10_000);
          assert.equal(reply.result.cacheScope, 'public');
          await client.readResource('v2://static', CALL);
          assert.equal(
            tap.sentRequests('resources/read').filter((m) => m.params?.uri === 'v2://static').length,
            1,
            'served from our cache by the v2 hint',
          );
        }
      });

      test('prompts and completion', async () => {
        const prompts = await client.listPrompts(CALL);
        assert.deepEqual(
          prompts.map((p) => p.name),
          ['greet'],
        );
        const greet = await client.getPrompt('greet', { name: 'Alan' }, CALL);
        assert.deepEqual(greet.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Alan!' } }]);
        const names = await client.complete(
          { type: 'ref/prompt', name: 'greet' },
          { name: 'name', value: 'A' },
        );
        assert.deepEqual(names.values, ['Ada', 'Alan']);
        const ids = await client.complete(
          { type: 'ref/resource', uri: 'v2://items/{id}' },
          { name: 'id', value: 'g' },
        );
        assert.deepEqual(ids.values, ['gamma']);
      });

      test('list_changed and resource updates', async () => {
        if (perRequestLegacy) {
          // No session and no GET stream in v2's per-request 2025 serving (GET is 405): nothing can be pushed,
          // and our client copes with the refused stream without reporting an error.
          assert.ok(
            http.seen.some((r) => r.http === 'GET' && r.status === 405),
            'our client tried the GET stream',
          );
          const from = seen.toolsChanged.length;
          await client.callTool('toggle', {}, CALL);
          await sleep(100);
          assert.equal(seen.toolsChanged.length, from);
          return;
        }
        let sub: ReturnType<Client['listen']> | undefined;
        if (stateless) {
          sub = client.listen({ toolsListChanged: true, resourceSubscriptions: ['v2://static'] });
          assert.deepEqual(await sub.honoured, {
            toolsListChanged: true,
            resourceSubscriptions: ['v2://static'],
          });
        } else {
          await client.subscribeResource('v2://static', CALL);
        }
        const from = seen.toolsChanged.length;
        await client.callTool('toggle', {}, CALL);
        await eventually(() => seen.toolsChanged.length > from, 'list_changed from the v2 server');
        await client.callTool('touch', { uri: 'v2://static' }, CALL);
        await eventually(
          () => seen.updated.includes('v2://static'),
          'the resource update from the v2 server',
        );
        if (sub) {
          const tagged = tap.received.filter(
            (m) => 'method' in m && m.method === 'notifications/resources/updated',
          ) as { params: JsonObject }[];
          const listenIds = new Set(tap.sentRequests('subscriptions/listen').map((m) => m.id));
          assert.ok(
            tagged.every((m) => listenIds.has((m.params._meta as JsonObject)[META.subscriptionId] as number)),
          );
          sub.close();
          assert.equal(await sub.ended, 'local');
        }
      });

      test('every stateless result carries resultType and the v2 serverInfo; no errors reported', () => {
        for (const { result } of tap.results()) {
          const meta = result._meta as JsonObject | undefined;
          if (stateless) {
            assert.ok(
              result.resultType === 'complete' || result.resultType === 'input_required',
              JSON.stringify(result),
            );
            assert.deepEqual(meta?.[META.serverInfo], V2_INFO);
          } else {
            assert.equal(result.resultType, undefined);
          }
        }
        assert.deepEqual(
          seen.errors.map((e) => e.message),
          [],
        );
      });
    });
  }
}
