// The server card (experimental extension, SEP-2127) over real sockets: served by `serve()` from the definition,
// with its catalog, ETag and CORS; `mcpkit card` printing it and warning where a card lies; servers that fail to
// describe themselves (404, not JSON, not a card) refused with a clear error.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  createStreamableHttpHandler,
  fetchServerCard,
  McpkitError,
  McpServer,
  type ServerCard,
  toFetchHandler,
} from '../../src/index.js';
import { createNodeListener, type RunningServer, serve } from '../../src/node.js';
import { createCardHandler } from '../../src/server/http/adapters/server-card.js';
import { mcpkit } from '../cli/helpers.js';

function definition(): McpServer {
  const server = new McpServer({ name: 'com.example/weather', version: '1.2.3', title: 'Weather' });
  server.tool('forecast', { description: 'The forecast' }, () => 'sunny');
  server.tool('admin_reset', { description: 'Resets', requiredScopes: ['admin'] }, () => 'done');
  return server;
}

async function listen(
  handler: Parameters<typeof createServer>[1],
): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('server cards', { timeout: 120_000 }, () => {
  let running: RunningServer;
  let mcp: McpServer;
  before(async () => {
    mcp = definition();
    running = await serve(mcp, { port: 0 });
  });
  after(async () => {
    await running.close();
  });

  test('served at <endpoint>/server-card from the definition, with a catalog, CORS and an ETag', async () => {
    const response = await fetch(`${running.url}/server-card`, {
      headers: { accept: 'application/mcp-server-card+json' },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/mcp-server-card+json');
    // Bound to loopback: no CORS, and a page of another site is refused (which servers run here is nobody's business).
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    const foreign = await fetch(`${running.url}/server-card`, {
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    assert.equal(response.headers.get('cache-control'), 'public, max-age=3600');
    const card = (await response.json()) as ServerCard;
    assert.equal(card.$schema, 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json');
    assert.equal(card.name, 'com.example/weather');
    assert.equal(card.version, '1.2.3');
    assert.equal(card.title, 'Weather');
    assert.deepEqual(
      card.remotes?.map((r) => [r.type, r.url]),
      [
        ['streamable-http', running.url],
        ['sse', running.sseUrl],
      ],
    );
    assert.ok(card.remotes?.[0]?.supportedProtocolVersions?.includes('2026-07-28'));
    const meta = card._meta?.['mcpkit/definition'] as { tools: string[]; capabilities: object };
    assert.deepEqual(meta.tools, ['admin_reset', 'forecast']);
    assert.ok('tools' in meta.capabilities);
    const etag = response.headers.get('etag') ?? '';
    const again = await fetch(`${running.url}/server-card`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    // Generated per request: a tool registered now is on the card at once (with a new ETag).
    mcp.tool('alerts', { description: 'Alerts' }, () => 'none');
    const changed = await fetch(`${running.url}/server-card`, { headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200);
    assert.ok(((await changed.json()) as ServerCard)._meta?.['mcpkit/definition'] !== undefined);
    const origin = new URL(running.url).origin;
    const catalog = await fetch(`${origin}/.well-known/ai-catalog.json`);
    assert.equal(catalog.headers.get('content-type'), 'application/ai-catalog+json');
    assert.deepEqual(await catalog.json(), {
      specVersion: '1.0',
      entries: [
        {
          identifier: 'urn:air:127.0.0.1:mcp:weather',
          type: 'application/mcp-server-card+json',
          url: `${running.url}/server-card`,
        },
      ],
    });
    // The same catalog where the earlier discovery draft put it.
    const earlier = await fetch(`${origin}/.well-known/mcp/catalog.json`);
    assert.equal(earlier.status, 200);
    assert.deepEqual(
      await earlier.json(),
      await (await fetch(`${origin}/.well-known/ai-catalog.json`)).json(),
    );
  });

  test('a card handler for a public endpoint answers with CORS for any page', async () => {
    const cards = createCardHandler(mcp, { path: '/mcp', url: 'https://weather.example.com/mcp' });
    const { server, origin } = await listen(createNodeListener({ '/mcp/server-card': cards }));
    try {
      const response = await fetch(`${origin}/mcp/server-card`, {
        headers: { origin: 'https://elsewhere.example' },
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.equal(response.headers.get('access-control-expose-headers'), 'ETag');
      const card = (await response.json()) as ServerCard;
      assert.equal(card.remotes?.[0]?.url, 'https://weather.example.com/mcp');
    } finally {
      server.close();
    }
  });

  test('toFetchHandler with `card` answers the card and the catalog as serve() does; other paths reach the endpoint', async () => {
    const fetcher = toFetchHandler(createStreamableHttpHandler(mcp), { card: { server: mcp } });
    const response = await fetcher(
      new Request('https://weather.example.com/mcp/server-card', {
        headers: { origin: 'https://elsewhere.example' },
      }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/mcp-server-card+json');
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    const card = (await response.json()) as ServerCard;
    assert.equal(card.name, 'com.example/weather');
    assert.deepEqual(
      card.remotes?.map((r) => [r.type, r.url]),
      [['streamable-http', 'https://weather.example.com/mcp']],
    );
    const etag = response.headers.get('etag') ?? '';
    const again = await fetcher(
      new Request('https://weather.example.com/mcp/server-card', { headers: { 'if-none-match': etag } }),
    );
    assert.equal(again.status, 304);
    const catalog = await fetcher(new Request('https://weather.example.com/.well-known/ai-catalog.json'));
    assert.equal(catalog.headers.get('content-type'), 'application/ai-catalog+json');
    const listed = (await catalog.json()) as { entries: { url: string }[] };
    assert.equal(listed.entries[0]?.url, 'https://weather.example.com/mcp/server-card');
    // The endpoint itself is the handler's: a DELETE without a session is its answer, not the card's.
    const endpoint = await fetcher(new Request('https://weather.example.com/mcp', { method: 'DELETE' }));
    assert.notEqual(endpoint.headers.get('content-type'), 'application/mcp-server-card+json');
    await endpoint.body?.cancel();
  });

  test('mcpkit card prints the card; an honest card has no warning', async () => {
    const run = await mcpkit(['card', running.url, '--strict']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as ServerCard).name, 'com.example/weather');
    assert.doesNotMatch(run.stderr, /warning/);
  });

  test('a card that lies: a warning line for each difference; exit 0, or 1 with --strict', async () => {
    const live = definition();
    const endpoint = createStreamableHttpHandler(live);
    const { server, origin } = await listen(
      createNodeListener({
        '/mcp': endpoint,
        '/mcp/server-card': {
          handle: async () => ({
            status: 200,
            headers: { 'content-type': 'application/mcp-server-card+json' },
            body: JSON.stringify({
              $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
              name: 'com.example/weather',
              version: '9.9.9',
              description: 'A weather server',
              remotes: [
                { type: 'streamable-http', url: 'http://x/mcp', supportedProtocolVersions: ['2024-11-05'] },
              ],
              _meta: {
                'mcpkit/definition': {
                  capabilities: { tools: {}, prompts: {} },
                  tools: ['forecast', 'ghost'],
                },
              },
            }),
          }),
        },
      }),
    );
    try {
      const run = await mcpkit(['card', `${origin}/mcp`]);
      assert.equal(run.code, 0, run.stderr);
      const warnings = run.stderr.split('\n').filter((l) => l.startsWith('warning: '));
      assert.deepEqual(warnings, [
        'warning: version: the card says 9.9.9, the server 1.2.3',
        'warning: protocol: the server speaks 2026-07-28, which the card does not list',
        'warning: capabilities: the card declares "prompts", the server does not',
        'warning: capabilities: the server declares "logging", the card does not',
        'warning: tools: the card lists "ghost", the server does not',
        'warning: tools: the server lists "admin_reset", the card does not',
      ]);
      const strict = await mcpkit(['card', `${origin}/mcp`, '--strict']);
      assert.equal(strict.code, 1);
    } finally {
      await endpoint.close();
      server.close();
    }
  });

  test('a server that fails to describe itself: a clear error, exit 1', async () => {
    const answers: Record<string, [number, string]> = {
      '/none/server-card': [404, 'Not Found'],
      '/html/server-card': [200, '<html>hello</html>'],
      '/wrong/server-card': [200, JSON.stringify({ name: 'weather', version: '1' })],
    };
    const { server, origin } = await listen((req, res) => {
      const [status, body] = answers[req.url ?? ''] ?? [404, ''];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    try {
      for (const [path, message] of [
        ['/none', /does not describe itself: GET .*\/none\/server-card answered 404/],
        ['/html', /is not JSON/],
        ['/wrong', /is not a server card: "\$schema" is not/],
      ] as const) {
        await assert.rejects(fetchServerCard(`${origin}${path}`), (e: unknown) => {
          assert.ok(e instanceof McpkitError);
          assert.equal(e.code, 'CARD_INVALID');
          assert.match(e.message, message);
          return true;
        });
        const run = await mcpkit(['card', `${origin}${path}`]);
        assert.equal(run.code, 1, run.stderr);
        assert.match(run.stderr, message);
        assert.equal(run.stdout, '');
      }
    } finally {
      server.close();
    }
  });
});
