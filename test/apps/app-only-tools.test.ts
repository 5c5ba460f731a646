// An App's own tools (`_meta.ui.visibility: ["app"]`, ext-apps 2026-01-26): never offered to the model by the host's
// chat or found by its tool search, kept from gateway clients that do not render Apps, still callable for the App.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Host, OpenAIChatModel } from '../../src/host.js';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  appsClientCapability,
  appToolMeta,
  createLinkedTransports,
  McpServer,
  registerAppResource,
} from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { startModelServer } from '../host/fixtures/model-server.js';

const VIEW = 'ui://board/view.html';

function boardServer(): McpServer {
  const server = new McpServer({ name: 'board', version: '1.0.0' });
  registerAppResource(server, VIEW, { name: 'board-view', html: '<!doctype html><p>board</p>' });
  server.tool('show_board', { description: 'Shows the board', _meta: appToolMeta(VIEW) }, () => ({
    content: [{ type: 'text', text: 'the board' }],
  }));
  server.tool(
    'refresh_board',
    { description: 'Refreshes the board', _meta: appToolMeta(VIEW, ['app']) },
    () => ({ content: [{ type: 'text', text: 'refreshed' }] }),
  );
  return server;
}

function boardHost(model?: OpenAIChatModel): Host {
  const server = boardServer();
  return new Host(
    [
      {
        name: 'board',
        transport: { type: 'stdio', command: 'never-spawned', args: [], env: {}, namedEnv: [] },
        disabled: false,
        trusted: false,
        approval: { default: 'allow' },
        source: { file: 'test', format: 'mcpkit' },
      },
    ],
    {
      ...(model ? { model } : {}),
      transportFor: () => {
        const [clientSide, serverSide] = createLinkedTransports();
        void server.connect(serverSide);
        return clientSide;
      },
    },
  );
}

function text(result: { content: unknown[] }): string {
  return result.content.map((c) => (c as { text?: string }).text ?? '').join('');
}

describe('app-only tools in the host', () => {
  let host: Host;
  before(async () => {
    host = boardHost();
    await host.start();
  });
  after(() => host.close());

  test('the registry holds both; the tool search finds only the model one, call_tool refuses the App one', async () => {
    assert.deepEqual(
      host
        .tools()
        .map((t) => t.name)
        .sort(),
      ['board__refresh_board', 'board__show_board'],
    );
    const found = await host.searchTools('refresh the board', { limit: 5 });
    assert.deepEqual(
      found.tools.map((t) => t.name),
      ['board__show_board'],
    );
    const refused = await host.toolSearch.call(
      'call_tool',
      { name: 'board__refresh_board', arguments: {} },
      {},
    );
    assert.equal(refused.isError, true);
    assert.match(text(refused), /no tool named board__refresh_board/);
  });

  test("an App's call (the host's own callTool, as the inspector and the bridge make it) still runs it", async () => {
    assert.equal(text(await host.callTool('board__refresh_board', {})), 'refreshed');
  });
});

describe('app-only tools in a chat', { timeout: 60_000 }, () => {
  test('the model is not offered the App tool, and its guess of the name is refused unrun', async () => {
    const standIn = await startModelServer({ apiKey: 'sk-test' });
    const host = boardHost(
      new OpenAIChatModel({ model: 'gpt-4o', baseUrl: standIn.openaiBase, apiKey: 'sk-test' }),
    );
    try {
      await host.start();
      standIn.script(
        { kind: 'tools', calls: [{ name: 'board__refresh_board', arguments: {} }] },
        { kind: 'text', text: 'done' },
      );
      const turn = await host.chat().send('refresh it');
      const body = standIn.received[0]?.body as { tools?: { function: { name: string } }[] } | undefined;
      assert.deepEqual(
        (body?.tools ?? []).map((t) => t.function.name),
        ['board__show_board'],
      );
      assert.equal(turn.toolCalls, 1);
      const second = JSON.stringify(standIn.received[1]?.body);
      assert.match(second, /it belongs to an App, not to the model/);
      assert.ok(
        !host.log.entries().some((e) => e.kind === 'tool' && e.name === 'board__refresh_board'),
        'the App tool was not run for the model',
      );
      assert.deepEqual(standIn.problems, []);
    } finally {
      await host.close();
      await standIn.close();
    }
  });
});

describe('app-only tools through the gateway', () => {
  let host: Host;
  before(async () => {
    host = boardHost();
    await host.start();
  });
  after(() => host.close());

  test('a client that does not render Apps neither sees nor calls them', async () => {
    const { client } = await connectInMemory(host.toServer());
    try {
      assert.deepEqual(
        (await client.listTools()).map((t) => t.name),
        ['board__show_board'],
      );
      await assert.rejects(client.callTool('board__refresh_board', {}), /Unknown tool: board__refresh_board/);
    } finally {
      await client.close();
    }
  });

  test('a client declaring the Apps extension gets them with their visibility, and its App calls them', async () => {
    assert.deepEqual(appsClientCapability(), {
      extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } },
    });
    const { client } = await connectInMemory(host.toServer(), { capabilities: appsClientCapability() });
    try {
      const tools = await client.listTools();
      const refresh = tools.find((t) => t.name === 'board__refresh_board');
      assert.deepEqual((refresh?._meta?.ui as { visibility?: string[] } | undefined)?.visibility, ['app']);
      assert.equal(text(await client.callTool('board__refresh_board', {})), 'refreshed');
    } finally {
      await client.close();
    }
  });

  test('with toolSearch, search_tools never finds an App tool for the client', async () => {
    const { client } = await connectInMemory(host.toServer({ toolSearch: true }), {
      capabilities: appsClientCapability(),
    });
    try {
      const found = await client.callTool('search_tools', { query: 'refresh the board' });
      assert.doesNotMatch(JSON.stringify(found.structuredContent), /refresh_board/);
    } finally {
      await client.close();
    }
  });
});
