// The OFFICIAL SDK 1.x client against our HTTP server, in-process over real sockets: StreamableHTTPClientTransport
// in every responseMode (tools, resources, prompts, sampling, elicitation, progress, logging, list_changed, SSE
// polling, DELETE), in stateless mode, and SSEClientTransport against the legacy 2024-11-05 endpoint beside it.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { eventually, Servers, within } from './helpers.js';

const servers = new Servers();
const clients: Client[] = [];
after(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await servers.closeAll();
});

const T = { timeout: 30_000 };
const CALL = { timeout: 10_000 };

/** What an SDK client saw besides results. */
interface Seen {
  logs: unknown[];
  progress: { progress: number; progressToken: string | number }[];
  listChanged: number;
  sampling: number;
  elicitation: number;
  errors: string[];
}

/** An SDK client that answers sampling and elicitation and records notifications. */
function sdkClient(): { client: Client; seen: Seen } {
  const seen: Seen = { logs: [], progress: [], listChanged: 0, sampling: 0, elicitation: 0, errors: [] };
  const client = new Client(
    { name: 'official-sdk-http-test', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    seen.sampling++;
    const first = request.params.messages[0];
    const content = first && !Array.isArray(first.content) ? first.content : undefined;
    const text = content?.type === 'text' ? content.text : '';
    return {
      role: 'assistant',
      content: { type: 'text', text: `re: ${text}` },
      model: 'sdk-model',
      stopReason: 'endTurn',
    };
  });
  client.setRequestHandler(ElicitRequestSchema, () => {
    seen.elicitation++;
    return { action: 'accept', content: { name: 'Ada' } };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    seen.logs.push(n.params);
  });
  // Counts progress on the wire (the SDK's own per-request handler drops a notification read in the same chunk
  // as the response; counting here checks our server, not that SDK detail).
  client.setNotificationHandler(ProgressNotificationSchema, (n) => {
    seen.progress.push({ progress: n.params.progress, progressToken: n.params.progressToken });
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    seen.listChanged++;
  });
  client.onerror = (error) => {
    seen.errors.push(error.message);
  };
  clients.push(client);
  return { client, seen };
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}

describe('StreamableHTTPClientTransport', () => {
  for (const responseMode of ['json', 'sse', 'auto'] as const) {
    test(`responseMode '${responseMode}': every feature works end to end`, T, async () => {
      const served = await servers.start({ responseMode });
      const { url, running, target } = served;
      let getStream: Promise<Response> | undefined;
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        fetch: (input, init) => {
          const response = fetch(input, init);
          if ((init?.method ?? 'GET') === 'GET') getStream ??= response;
          return response;
        },
      });
      const { client, seen } = sdkClient();
      await client.connect(transport);
      assert.ok(transport.sessionId, 'the SDK picked up the session id');
      assert.equal(client.getServerVersion()?.name, 'http-test-server');
      assert.equal(running.streamable.sessionCount, 1);
      // Server-initiated messages that are not tied to a request need the GET stream: wait until it is open.
      await eventually(() => getStream !== undefined, 'the SDK to open its GET stream');
      const get = await within(getStream as Promise<Response>, 'the GET stream');
      assert.equal(get.status, 200);

      const tools = (await client.listTools(undefined, CALL)).tools.map((t) => t.name);
      for (const name of ['echo', 'slow_progress', 'sample', 'elicit', 'log', 'reconnect'])
        assert.ok(tools.includes(name), name);
      assert.equal(
        textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }, undefined, CALL)),
        'echo: hi',
      );

      const resources = (await client.listResources(undefined, CALL)).resources.map((r) => r.uri);
      assert.deepEqual(resources, ['test://static']);
      const read = await client.readResource({ uri: 'test://static' }, CALL);
      assert.deepEqual(read.contents, [
        { uri: 'test://static', mimeType: 'text/plain', text: 'static text' },
      ]);

      const prompts = (await client.listPrompts(undefined, CALL)).prompts.map((p) => p.name);
      assert.deepEqual(prompts, ['greet']);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }, CALL);
      assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);

      const sampled = await client.callTool(
        { name: 'sample', arguments: { prompt: 'ping?' } },
        undefined,
        CALL,
      );
      assert.equal(textOf(sampled), 'sampled: re: ping?');
      assert.equal(seen.sampling, 1);
      const elicited = await client.callTool({ name: 'elicit', arguments: {} }, undefined, CALL);
      assert.equal(
        textOf(elicited),
        `elicited: ${JSON.stringify({ action: 'accept', content: { name: 'Ada' } })}`,
      );
      assert.equal(seen.elicitation, 1);

      await client.setLoggingLevel('debug', CALL);
      const logged = await client.callTool(
        { name: 'log', arguments: { count: 3, level: 'debug' } },
        undefined,
        CALL,
      );
      assert.equal(textOf(logged), 'logged 3');
      await eventually(() => seen.logs.length === 3, 'three log messages');
      assert.deepEqual(
        seen.logs.map((l) => (l as { data: string }).data),
        ['log 1', 'log 2', 'log 3'],
      );

      // onprogress makes the SDK send a progress token; the counting handler above replaces its dispatcher.
      const slow = await client.callTool(
        { name: 'slow_progress', arguments: { steps: 3, delayMs: 20, tailMs: 50 } },
        undefined,
        { ...CALL, onprogress: () => undefined },
      );
      assert.equal(textOf(slow), 'done after 3 steps');
      await eventually(() => seen.progress.length === 3, 'three progress notifications');
      assert.deepEqual(
        seen.progress.map((p) => p.progress),
        [1, 2, 3],
      );

      target.disable();
      await eventually(() => seen.listChanged === 1, 'tools/list_changed on the GET stream');

      // SSE polling: the server closes the request's stream; the SDK waits `retry` and resumes with Last-Event-ID.
      const polled = await client.callTool(
        { name: 'reconnect', arguments: { delayMs: 100 } },
        undefined,
        CALL,
      );
      assert.equal(textOf(polled), 'reconnected');

      assert.deepEqual(seen.errors, [], 'the SDK reported no protocol errors');
      await transport.terminateSession();
      assert.equal(running.streamable.sessionCount, 0, 'DELETE ended the session');
      await client.close();
    });
  }

  test('many SDK clients at once, each in its own session', T, async () => {
    const { url, running } = await servers.start();
    const pairs = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const transport = new StreamableHTTPClientTransport(new URL(url));
        const { client } = sdkClient();
        await client.connect(transport);
        return { client, transport };
      }),
    );
    assert.equal(running.streamable.sessionCount, 10);
    const texts = await Promise.all(
      pairs.flatMap(({ client }, c) =>
        Array.from({ length: 5 }, async (_, i) =>
          textOf(await client.callTool({ name: 'echo', arguments: { text: `${c}.${i}` } }, undefined, CALL)),
        ),
      ),
    );
    assert.deepEqual(
      texts,
      pairs.flatMap((_, c) => Array.from({ length: 5 }, (_x, i) => `echo: ${c}.${i}`)),
    );
    for (const { client, transport } of pairs) {
      await transport.terminateSession();
      await client.close();
    }
    assert.equal(running.streamable.sessionCount, 0);
  });

  test('stateless server (sessions:false): the SDK works without a session id', T, async () => {
    const { url, running } = await servers.start({ sessions: false });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const { client, seen } = sdkClient();
    await client.connect(transport);
    assert.equal(transport.sessionId, undefined);
    assert.equal(
      textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, CALL)),
      'echo: x',
    );
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Bo' } }, CALL);
    assert.equal((prompt.messages[0]?.content as { text?: string } | undefined)?.text, 'Hello, Bo!');
    assert.equal(running.streamable.sessionCount, 0);
    assert.deepEqual(seen.errors, []);
    await client.close();
  });
});

describe('SSEClientTransport (legacy 2024-11-05 HTTP+SSE, served beside Streamable HTTP)', () => {
  test(
    'every feature works, and the legacy session count returns to 0 after the client closes',
    T,
    async () => {
      const { running } = await servers.start();
      assert.ok(running.sseUrl, 'serve() offers the legacy endpoint by default');
      const transport = new SSEClientTransport(new URL(running.sseUrl));
      const { client, seen } = sdkClient();
      await client.connect(transport);
      assert.equal(running.legacy?.sessionCount, 1);
      assert.equal(running.streamable.sessionCount, 0, 'the legacy session is not a Streamable HTTP session');

      assert.equal(
        textOf(await client.callTool({ name: 'echo', arguments: { text: 'old' } }, undefined, CALL)),
        'echo: old',
      );
      const read = await client.readResource({ uri: 'test://static' }, CALL);
      assert.equal((read.contents[0] as { text: string }).text, 'static text');
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }, CALL);
      assert.equal((prompt.messages[0]?.content as { text?: string } | undefined)?.text, 'Hello, Ada!');
      assert.equal(
        textOf(await client.callTool({ name: 'sample', arguments: { prompt: 'legacy?' } }, undefined, CALL)),
        'sampled: re: legacy?',
      );
      assert.match(
        textOf(await client.callTool({ name: 'elicit', arguments: {} }, undefined, CALL)),
        /"name":"Ada"/,
      );
      await client.setLoggingLevel('debug', CALL);
      await client.callTool({ name: 'log', arguments: { count: 2, level: 'info' } }, undefined, CALL);
      await eventually(() => seen.logs.length === 2, 'two log messages');
      await client.callTool(
        { name: 'slow_progress', arguments: { steps: 2, delayMs: 10, tailMs: 30 } },
        undefined,
        {
          ...CALL,
          onprogress: () => undefined,
        },
      );
      await eventually(() => seen.progress.length === 2, 'two progress notifications');

      await client.close();
      await eventually(() => running.legacy?.sessionCount === 0, 'the legacy session to be gone');
      assert.deepEqual(seen.errors, []);
    },
  );

  test(
    'several legacy clients at once, each with its own stream; all sessions end when they close',
    T,
    async () => {
      const { running } = await servers.start();
      const sdk = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const { client } = sdkClient();
          await client.connect(new SSEClientTransport(new URL(running.sseUrl ?? '')));
          return client;
        }),
      );
      assert.equal(running.legacy?.sessionCount, 5);
      const texts = await Promise.all(
        sdk.map(async (c, i) =>
          textOf(await c.callTool({ name: 'echo', arguments: { text: `${i}` } }, undefined, CALL)),
        ),
      );
      assert.deepEqual(texts, ['echo: 0', 'echo: 1', 'echo: 2', 'echo: 3', 'echo: 4']);
      for (const c of sdk) await c.close();
      await eventually(() => running.legacy?.sessionCount === 0, 'every legacy session to be gone');
    },
  );
});
