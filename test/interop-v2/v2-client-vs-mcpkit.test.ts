// The OFFICIAL SDK v2 client (`@modelcontextprotocol/client` 2.4.0) against OUR dual-era server definition
// (test/eras/fixtures/dual-server.ts): over HTTP (`serve()` on 127.0.0.1) and over stdio (the dual main), with
// `versionNegotiation` 'auto' and pinned to 2026-07-28 (and the SDK's default 'legacy' as the baseline). Tools,
// structured results, the elicit+sample+roots tool and the explicit-MRTR tool through the v2 client's registered
// handlers (its MRTR autoFulfill in the modern era), resources, templates, prompts, completion, progress, and
// `listen()` for list changes and resource updates.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';
import {
  ResourceNotFoundError,
  StreamableHTTPClientTransport,
  Client as V2Client,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { type RunningServer, serve } from '../../src/node.js';
import {
  CONFIRM_SCHEMA,
  createDualServer,
  DUAL_INFO,
  DUAL_INSTRUCTIONS,
  NAME_SCHEMA,
} from '../eras/fixtures/dual-server.js';
import { DUAL_STDIO_MAIN, eventually, firstText, Pids, SUITE_TIMEOUT, within } from '../eras/helpers.js';

const CALL = { timeout: 5_000 } as const;
const ROOT_URI = 'file:///v2/project';
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

type Mode = 'auto' | 'legacy' | { pin: string };

interface Seen {
  elicitations: JsonObject[];
  samplings: number;
  roots: number;
  toolsChanged: number;
  updated: string[];
  errors: Error[];
}

/** A v2 client declaring elicitation, sampling and roots, with handlers that record what they were asked. */
function v2Client(mode: Mode, seen: Seen): V2Client {
  const client = new V2Client(
    { name: 'v2-test-client', version: '2.4.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    const params = request.params as unknown as JsonObject;
    seen.elicitations.push(params);
    const props = (params.requestedSchema as { properties?: JsonObject } | undefined)?.properties ?? {};
    return props.ok !== undefined
      ? { action: 'accept', content: { ok: true } }
      : { action: 'accept', content: { name: 'Ada' } };
  });
  client.setRequestHandler('sampling/createMessage', () => {
    seen.samplings++;
    return { role: 'assistant', content: { type: 'text', text: 'v2 sampled' }, model: 'v2-model' };
  });
  client.setRequestHandler('roots/list', () => {
    seen.roots++;
    return { roots: [{ uri: ROOT_URI, name: 'project' }] };
  });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    seen.toolsChanged++;
  });
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    seen.updated.push(n.params.uri);
  });
  client.onerror = (error) => seen.errors.push(error);
  return client;
}

const modes: { label: string; mode: Mode; modern: boolean }[] = [
  { label: "versionNegotiation 'auto'", mode: 'auto', modern: true },
  { label: "versionNegotiation { pin: '2026-07-28' }", mode: { pin: '2026-07-28' }, modern: true },
  { label: "versionNegotiation 'legacy' (the SDK default)", mode: 'legacy', modern: false },
];

for (const kind of ['http', 'stdio'] as const) {
  for (const { label, mode, modern } of modes) {
    describe(`v2 client, ${label}, over ${kind}, against our dual-era server`, {
      timeout: SUITE_TIMEOUT,
    }, () => {
      const seen: Seen = {
        elicitations: [],
        samplings: 0,
        roots: 0,
        toolsChanged: 0,
        updated: [],
        errors: [],
      };
      let client: V2Client;

      before(async () => {
        client = v2Client(mode, seen);
        if (kind === 'http') {
          await client.connect(new StreamableHTTPClientTransport(new URL(running.url)), CALL);
        } else {
          const transport = new V2StdioClientTransport({
            command: process.execPath,
            args: [DUAL_STDIO_MAIN],
            stderr: 'ignore',
          });
          try {
            await client.connect(transport, CALL);
          } finally {
            pids.add(transport.pid);
          }
        }
      });
      after(async () => {
        await client?.close();
      });

      test('negotiates the expected era and reads the server identity', () => {
        assert.equal(client.getProtocolEra(), modern ? 'modern' : 'legacy');
        assert.equal(client.getNegotiatedProtocolVersion(), modern ? '2026-07-28' : '2025-11-25');
        assert.deepEqual(client.getServerVersion(), DUAL_INFO);
        assert.equal(client.getInstructions(), DUAL_INSTRUCTIONS);
        assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
      });

      test('tools/list and tools/call: text and structured results', async () => {
        const { tools } = await client.listTools(undefined, CALL);
        assert.ok(
          ['echo', 'add', 'interact', 'confirm', 'region'].every((n) => tools.some((t) => t.name === n)),
        );
        const echo = await client.callTool({ name: 'echo', arguments: { text: 'from v2' } }, CALL);
        assert.equal(firstText(echo), 'echo: from v2');
        const add = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }, CALL);
        assert.deepEqual(add.structuredContent, { sum: 42 });
        // An x-mcp-header tool: over HTTP the v2 client must mirror the argument into Mcp-Param-Region.
        const region = await client.callTool({ name: 'region', arguments: { region: 'eu-west' } }, CALL);
        assert.equal(firstText(region), 'region eu-west');
      });

      test('the elicit + sample + roots tool completes through the v2 client handlers', async () => {
        const before = { e: seen.elicitations.length, s: seen.samplings, r: seen.roots };
        const result = await client.callTool({ name: 'interact', arguments: { topic: 'v2' } }, CALL);
        assert.notEqual(result.isError, true, firstText(result));
        assert.deepEqual(result.structuredContent, {
          action: 'accept',
          name: 'Ada',
          sampled: 'v2 sampled',
          roots: [ROOT_URI],
        });
        assert.equal(seen.elicitations.length, before.e + 1);
        assert.equal(seen.samplings, before.s + 1);
        assert.equal(seen.roots, before.r + 1);
        const asked = seen.elicitations.at(-1);
        assert.equal(asked?.message, 'Who asks about v2?');
        assert.deepEqual(asked?.requestedSchema, NAME_SCHEMA);
      });

      test('the explicit-MRTR tool (inputRequired, two rounds with state) completes', async () => {
        const result = await client.callTool({ name: 'confirm', arguments: { action: 'ship' } }, CALL);
        assert.notEqual(result.isError, true, firstText(result));
        assert.deepEqual(result.structuredContent, {
          action: 'ship',
          confirmed: true,
          roots: [ROOT_URI],
          state: { step: 2, previous: { step: 1, action: 'ship' } },
        });
        assert.deepEqual(seen.elicitations.at(-1)?.requestedSchema, CONFIRM_SCHEMA);
      });

      test('resources: list, templates, read, template read; a missing resource is an error', async () => {
        const { resources } = await client.listResources(undefined, CALL);
        assert.deepEqual(resources.map((r) => r.uri).sort(), ['eras://counter', 'eras://static']);
        const { resourceTemplates } = await client.listResourceTemplates(undefined, CALL);
        assert.deepEqual(
          resourceTemplates.map((t) => t.uriTemplate),
          ['eras://items/{id}'],
        );
        const read = await client.readResource({ uri: 'eras://static' }, CALL);
        assert.deepEqual(read.contents, [
          { uri: 'eras://static', mimeType: 'text/plain', text: 'static text' },
        ]);
        const item = await client.readResource({ uri: 'eras://items/gamma' }, CALL);
        assert.equal((item.contents[0] as { text?: string }).text, 'item gamma');
        // Our wire code is -32602 (stateless) or -32002 (stateful, checked in test/eras); the v2 client turns both
        // into its ResourceNotFoundError when data carries the uri.
        await assert.rejects(client.readResource({ uri: 'eras://missing' }, CALL), (e: unknown) => {
          assert.ok(e instanceof ResourceNotFoundError, String(e));
          assert.equal(e.uri, 'eras://missing');
          return true;
        });
      });

      test('prompts: list, get, a prompt that elicits; completion', async () => {
        const { prompts } = await client.listPrompts(undefined, CALL);
        assert.deepEqual(prompts.map((p) => p.name).sort(), ['greet', 'introduce']);
        const greet = await client.getPrompt({ name: 'greet', arguments: { name: 'Grace' } }, CALL);
        assert.deepEqual(greet.messages, [
          { role: 'user', content: { type: 'text', text: 'Hello, Grace!' } },
        ]);
        const intro = await client.getPrompt({ name: 'introduce' }, CALL);
        assert.deepEqual(intro.messages, [
          { role: 'user', content: { type: 'text', text: 'Nice to meet you, Ada.' } },
        ]);
        const done = await client.complete(
          { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'G' } },
          CALL,
        );
        assert.deepEqual(done.completion.values, ['Grace']);
        const ids = await client.complete(
          { ref: { type: 'ref/resource', uri: 'eras://items/{id}' }, argument: { name: 'id', value: 'a' } },
          CALL,
        );
        assert.deepEqual(ids.completion.values, ['alpha']);
      });

      if (modern) {
        test('listen(): honoured filter, list_changed and resource updates on the stream, closed locally', async () => {
          const sub = await client.listen(
            { toolsListChanged: true, resourceSubscriptions: ['eras://counter'] },
            CALL,
          );
          assert.deepEqual(sub.honoredFilter, {
            toolsListChanged: true,
            resourceSubscriptions: ['eras://counter'],
          });
          const changed = seen.toolsChanged;
          await client.callTool({ name: 'toggle', arguments: { visible: false } }, CALL);
          await client.callTool({ name: 'toggle', arguments: { visible: true } }, CALL);
          await eventually(() => seen.toolsChanged >= changed + 2, 'two list_changed notifications');
          await client.callTool({ name: 'touch', arguments: { uri: 'eras://counter' } }, CALL);
          await eventually(() => seen.updated.includes('eras://counter'), 'the resource update');
          await sub.close();
          assert.equal(await within(sub.closed, 'the subscription to close'), 'local');
        });
      } else {
        test('legacy era: list_changed and resource updates arrive unsolicited / via resources/subscribe', async () => {
          const changed = seen.toolsChanged;
          await client.callTool({ name: 'toggle', arguments: { visible: false } }, CALL);
          await client.callTool({ name: 'toggle', arguments: { visible: true } }, CALL);
          await eventually(() => seen.toolsChanged >= changed + 2, 'two list_changed notifications');
          await client.subscribeResource({ uri: 'eras://counter' }, CALL);
          await client.callTool({ name: 'touch', arguments: { uri: 'eras://counter' } }, CALL);
          await eventually(() => seen.updated.includes('eras://counter'), 'the resource update');
        });
      }

      test('no protocol errors were reported by the v2 client', () => {
        assert.deepEqual(
          seen.errors.map((e) => e.message),
          [],
        );
      });

      test(
        'progress notifications reach the v2 client (sent before the response, in order)',
        kind === 'stdio'
          ? {
              todo:
                'official SDK v2 client bug (@modelcontextprotocol/client 2.4.0, Protocol._onnotification in ' +
                'dist/src-CeKsbNLO.mjs): notification handlers run in a deferred microtask ' +
                '(Promise.resolve().then) while responses are handled synchronously, so when our stdio server ' +
                'writes progress 1..3 and then the response in one burst (correct order on the wire, see ' +
                'test/eras/stateless-rules), the response deletes the progress handler first and the v2 client ' +
                'reports "Received a progress notification for an unknown token" and drops the progress. Not ' +
                'an mcpkit bug: JSON-RPC messages of one stream must be handled in order.',
            }
          : {},
        async () => {
          const errors = seen.errors.length;
          const progress: number[] = [];
          const result = await client.callTool(
            { name: 'progress_log', arguments: {} },
            {
              ...CALL,
              onprogress: (p) => progress.push(p.progress),
            },
          );
          assert.equal(firstText(result), 'progress and logs sent');
          assert.deepEqual(progress, [1, 2, 3]);
          assert.deepEqual(
            seen.errors.slice(errors).map((e) => e.message),
            [],
          );
        },
      );
    });
  }
}
