// createProxy: an McpServer in front of another server reached by our client. In front of our example server
// (stdio, each era behind the proxy) and of the official @modelcontextprotocol/server-everything (stdio), driven by
// our client (in memory stateful, Streamable HTTP stateless) and by the official SDK 1.x client (Streamable HTTP):
// transforms visible in lists and applied on call, a sampling request of the server behind crossing the proxy to
// the client and the answer going back, the list change of the server behind reaching the proxy's clients,
// progress and logs passed on, and bad transforms refused at start.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  Client,
  type CreateMessageResult,
  createProxy,
  HttpClientTransport,
  McpServer,
  type ProxyServer,
} from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { StdioClientTransport } from '../../src/stdio.js';
import { connectInMemory, createLinkedTransports } from '../../src/testing.js';
import { eventually } from '../eras/helpers.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/everything/server.js', import.meta.url));
const EVERYTHING = join(process.cwd(), 'node_modules', '.bin', 'mcp-server-everything');

const answer = (text: string): CreateMessageResult => ({
  role: 'assistant',
  content: { type: 'text', text },
  model: 'stub',
});

function texts(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((c) => (c.type === 'text' ? c.text : `[${c.type}]`))
    .join(' ');
}

function exampleBackend(): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: [EXAMPLE] });
}

async function sdkClient(url: URL | string, sampled: string, lists?: string[][]) {
  const client = new SdkClient({ name: 'sdk', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, () => answer(sampled));
  if (lists)
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      lists.push((await client.listTools()).tools.map((t) => t.name));
    });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

for (const era of ['stateful', 'stateless'] as const) {
  describe(`the proxy in front of the example server over stdio (${era} behind it)`, () => {
    let proxy: ProxyServer;
    let http: RunningServer;

    before(async () => {
      proxy = await createProxy(exampleBackend(), {
        era,
        tools: {
          test_simple_text: { name: 'simple', description: 'Renamed by the proxy' },
          test_error_handling: { hidden: true },
          test_sampling: { fixed: { prompt: 'fixed by the proxy' } },
        },
        onerror: () => {},
      });
      http = await serve(proxy, { port: 0, host: '127.0.0.1' });
    });

    after(async () => {
      await http.close();
      await proxy.close();
    });

    test('transforms are visible in lists and applied on call', async () => {
      assert.equal(proxy.backend.era, era);
      const { client } = await connectInMemory(proxy);
      try {
        const tools = await client.listTools();
        const names = tools.map((t) => t.name);
        assert.ok(names.includes('simple') && !names.includes('test_simple_text'), names.join(' '));
        assert.ok(!names.includes('test_error_handling'));
        assert.equal(tools.find((t) => t.name === 'simple')?.description, 'Renamed by the proxy');
        const sampling = tools.find((t) => t.name === 'test_sampling');
        assert.deepEqual(Object.keys((sampling?.inputSchema.properties ?? {}) as object), []);
        assert.match(texts(await client.callTool('simple')), /simple text/i);
        await assert.rejects(client.callTool('test_error_handling'), /Unknown tool/);
        // Resources, templates, prompts and completion come through too.
        assert.ok((await client.listResources()).length > 0);
        assert.ok((await client.listPrompts()).length > 0);
        assert.deepEqual((await client.readResource('test://items/beta')).contents, [
          { uri: 'test://items/beta', mimeType: 'text/plain', text: 'item beta' },
        ]);
        const ids = await client.complete(
          { type: 'ref/resource', uri: 'test://items/{id}' },
          { name: 'id', value: 'g' },
        );
        assert.deepEqual(ids.values, ['gamma']);
        const people = await client.complete(
          { type: 'ref/prompt', name: 'greet' },
          { name: 'name', value: 'a' },
        );
        assert.deepEqual(people.values, ['Ada', 'Alan']);
        const greeting = await client.getPrompt('greet', { name: 'Ada' });
        assert.match(JSON.stringify(greeting.messages), /Ada/);
      } finally {
        await client.close();
      }
    });

    test('a sampling request crosses the proxy to its client (stateful, in memory) and the answer goes back', async () => {
      const asked: string[] = [];
      const { client } = await connectInMemory(proxy, {
        sampling: (params) => {
          asked.push(JSON.stringify(params.messages));
          return answer('from the client behind the proxy');
        },
      });
      try {
        const result = await client.callTool('test_sampling', {});
        assert.match(texts(result), /LLM response: from the client behind the proxy/);
        assert.match(asked[0] ?? '', /fixed by the proxy/);
      } finally {
        await client.close();
      }
    });

    test('a sampling request crosses the proxy to a stateless (2026-07-28) client over HTTP', async () => {
      const client = new Client(
        { name: 'modern', version: '1.0.0' },
        { era: 'stateless', sampling: () => answer('from a stateless client') },
      );
      try {
        await client.connect(new HttpClientTransport(http.url));
        assert.equal(client.era, 'stateless');
        const result = await client.callTool('test_sampling', {});
        assert.match(texts(result), /LLM response: from a stateless client/);
      } finally {
        await client.close();
      }
    });

    test('the official SDK 1.x client over Streamable HTTP: tools, sampling through the proxy, list changes', async () => {
      const lists: string[][] = [];
      const sdk = await sdkClient(http.url, 'from the SDK client', lists);
      try {
        const names = (await sdk.listTools()).tools.map((t) => t.name);
        assert.ok(names.includes('simple') && !names.includes('dynamic_tool'), names.join(' '));
        const sampled = await sdk.callTool({ name: 'test_sampling', arguments: {} });
        assert.match(texts(sampled), /LLM response: from the SDK client/);
        await sdk.callTool({ name: 'toggle_feature', arguments: { enabled: true } });
        await eventually(
          () => lists.some((l) => l.includes('dynamic_tool')),
          'dynamic_tool listed via the proxy',
        );
        const dynamic = await sdk.callTool({ name: 'dynamic_tool', arguments: {} });
        assert.match(texts(dynamic), /enabled and answering/);
        await sdk.callTool({ name: 'toggle_feature', arguments: { enabled: false } });
        await eventually(() => lists.at(-1)?.includes('dynamic_tool') === false, 'dynamic_tool gone again');
      } finally {
        await sdk.close();
      }
    });

    test("the list change of the server behind reaches our client's auto-refresh (stateless, HTTP)", async () => {
      const seen: string[][] = [];
      const client = new Client(
        { name: 'modern', version: '1.0.0' },
        { era: 'stateless', onToolsChanged: (tools) => seen.push((tools ?? []).map((t) => t.name)) },
      );
      try {
        await client.connect(new HttpClientTransport(http.url));
        assert.ok(client.listChanges, 'the client listens for list changes');
        await client.listChanges.honoured;
        await client.callTool('toggle_feature', { enabled: true });
        await eventually(() => seen.some((l) => l.includes('dynamic_tool')), 'dynamic_tool listed');
        await client.callTool('toggle_feature', { enabled: false });
        await eventually(() => seen.at(-1)?.includes('dynamic_tool') === false, 'dynamic_tool gone');
      } finally {
        await client.close();
      }
    });

    test('elicitation and roots requests of the server behind are asked of the client of the call', async () => {
      const { client } = await connectInMemory(proxy, {
        elicitation: () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }),
        roots: [{ uri: 'file:///work', name: 'work' }],
      });
      try {
        const elicited = await client.callTool('test_elicitation', { message: 'Who are you?' });
        assert.match(texts(elicited), /accept/);
        assert.match(texts(elicited), /ada@example.com/);
        assert.match(texts(await client.callTool('roots')), /work: file:\/\/\/work/);
      } finally {
        await client.close();
      }
    });

    // Runs before any other subscription to this resource, so the proxy has not yet subscribed the server behind.
    test('a stateless (2026-07-28) client over HTTP subscribed through the proxy gets the updates of the server behind', async () => {
      const updated: string[] = [];
      const client = new Client(
        { name: 'modern', version: '1.0.0' },
        { era: 'stateless', onResourceUpdated: (uri) => updated.push(uri) },
      );
      try {
        await client.connect(new HttpClientTransport(http.url));
        assert.equal(client.era, 'stateless');
        await client.subscribeResource('test://watched-resource');
        await eventually(async () => {
          await client.callTool('update_watched');
          return updated.includes('test://watched-resource');
        }, 'the update through the proxy to the listen stream');
      } finally {
        await client.close();
      }
    });

    test('a subscription through the proxy gets the updates of the server behind', async () => {
      const updated: string[] = [];
      const { client } = await connectInMemory(proxy, { onResourceUpdated: (uri) => updated.push(uri) });
      try {
        await client.subscribeResource('test://watched-resource');
        await eventually(async () => {
          await client.callTool('update_watched');
          return updated.includes('test://watched-resource');
        }, 'the update through the proxy');
      } finally {
        await client.close();
      }
    });

    if (era === 'stateless')
      test('concurrent calls: each sampling request reaches the client whose call caused it', async () => {
        const clients = await Promise.all(
          ['first', 'second', 'third'].map((who) =>
            connectInMemory(proxy, { sampling: () => answer(`sampled by ${who}`) }),
          ),
        );
        try {
          const results = await Promise.all(
            clients.map(({ client }) => client.callTool('test_sampling', {})),
          );
          assert.deepEqual(
            results.map((r) => /sampled by (\w+)/.exec(texts(r))?.[1]),
            ['first', 'second', 'third'],
          );
        } finally {
          await Promise.all(clients.map(({ client }) => client.close()));
        }
      });

    test('progress and logs of the server behind reach the client', async () => {
      const progress: number[] = [];
      const logs: unknown[] = [];
      const { client } = await connectInMemory(proxy, { onlog: (l) => logs.push(l.data) });
      try {
        await client.callTool(
          'test_tool_with_progress',
          {},
          { onprogress: (p) => progress.push(p.progress) },
        );
        assert.ok(progress.length > 0, 'progress passed on');
        await client.callTool('test_tool_with_logging');
        await eventually(() => logs.length >= 3, 'three log messages');
      } finally {
        await client.close();
      }
    });
  });
}

describe('the proxy in front of @modelcontextprotocol/server-everything (stdio)', () => {
  let proxy: ProxyServer;
  let http: RunningServer;

  before(async () => {
    proxy = await createProxy(new StdioClientTransport({ command: EVERYTHING, args: ['stdio'] }), {
      tools: { echo: { description: 'Echo, through the proxy' } },
      onerror: () => {},
    });
    http = await serve(proxy, { port: 0, host: '127.0.0.1' });
  });

  after(async () => {
    await http.close();
    await proxy.close();
  });

  test('our client: tools and a sampling request through the proxy', async () => {
    const { client } = await connectInMemory(proxy, { sampling: () => answer('sampled by ours') });
    try {
      await eventually(
        async () => (await client.listTools()).some((t) => t.name === 'trigger-sampling-request'),
        'the sampling tool, registered once the proxy declared sampling',
      );
      const tools = await client.listTools();
      assert.equal(tools.find((t) => t.name === 'echo')?.description, 'Echo, through the proxy');
      assert.match(texts(await client.callTool('echo', { message: 'hi' })), /hi/);
      const sampled = await client.callTool('trigger-sampling-request', { prompt: 'say something' });
      assert.match(texts(sampled), /sampled by ours/);
      const resources = await client.listResources();
      assert.ok(resources.length > 0);
      const first = resources[0];
      if (first) assert.ok((await client.readResource(first.uri)).contents.length > 0);
    } finally {
      await client.close();
    }
  });

  test('the official SDK client over HTTP', async () => {
    const sdk = await sdkClient(http.url, 'sampled by the SDK client');
    try {
      const echoed = await sdk.callTool({ name: 'echo', arguments: { message: 'hello sdk' } });
      assert.match(texts(echoed), /hello sdk/);
      const sampled = await sdk.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'x' } });
      assert.match(texts(sampled), /sampled by the SDK client/);
      const prompts = await sdk.listPrompts();
      assert.ok(prompts.prompts.length > 0);
    } finally {
      await sdk.close();
    }
  });
});

describe('a proxy served over stdio in a mount, and bad input', () => {
  test('a proxy can be mounted like any server', async () => {
    const proxy = await createProxy(exampleBackend(), { onerror: () => {} });
    const app = new McpServer({ name: 'app', version: '1.0.0' });
    app.mount('example', proxy);
    const { client } = await connectInMemory(app);
    try {
      const names = (await client.listTools()).map((t) => t.name);
      assert.ok(names.includes('example_test_simple_text'), names.join(' '));
      assert.match(texts(await client.callTool('example_test_simple_text')), /simple text/i);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  test('cancellation reaches the server behind (any transport: here in memory)', async () => {
    const backend = new McpServer({ name: 'slow', version: '1.0.0' });
    let aborted = false;
    let started = false;
    backend.tool('slow', {}, (_args, ctx) => {
      started = true;
      return new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          reject(ctx.signal.reason);
        }),
      );
    });
    const [clientSide, serverSide] = createLinkedTransports();
    await backend.connect(serverSide);
    const proxy = await createProxy(clientSide, { era: 'stateful' });
    const { client } = await connectInMemory(proxy);
    try {
      const controller = new AbortController();
      const call = client.callTool('slow', {}, { signal: controller.signal });
      await eventually(() => started, 'the call reached the server behind');
      controller.abort();
      await assert.rejects(call);
      await eventually(() => aborted, "the handler's signal aborted behind the proxy");
    } finally {
      await client.close();
      await proxy.close();
      await backend.close();
    }
  });

  test('a transform naming an unknown tool or argument is refused at start, with a clear error', async () => {
    await assert.rejects(
      createProxy(exampleBackend(), { tools: { no_such_tool: { hidden: true } } }),
      /Proxy: a tool transform names the unknown tool "no_such_tool"/,
    );
    await assert.rejects(
      createProxy(exampleBackend(), { tools: { test_sampling: { fixed: { nope: 1 } } } }),
      /Proxy: the transform of tool "test_sampling" fixes the unknown argument "nope"/,
    );
  });

  test('an unreachable server is an error of createProxy', async () => {
    const closed = await serve(new McpServer({ name: 'x', version: '1' }), { port: 0, host: '127.0.0.1' });
    const url = closed.url;
    await closed.close();
    await assert.rejects(createProxy(url, { era: 'stateful' }));
  });
});
