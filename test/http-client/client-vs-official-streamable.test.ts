// OUR Client + StreamableHttpClientTransport / HttpClientTransport against the OFFICIAL SDK 1.x
// StreamableHTTPServerTransport (stateful), over real sockets on 127.0.0.1: SSE replies, JSON replies,
// server-to-client requests, the GET stream, SSE polling with resumption, session loss and DELETE.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import type { LoggingMessageParams, ProgressParams, Tool } from '../../src/spec/types.js';
import { HttpClientTransport } from '../../src/transport/http-client/fallback.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import {
  type OfficialHttpServer,
  OrderedEventStore,
  officialStreamable,
  type StreamableOptions,
} from './official-servers.js';

const CALL = { timeout: 5_000 } as const;
const running: { server: OfficialHttpServer; client: Client }[] = [];
afterEach(async () => {
  for (const { server, client } of running.splice(0)) {
    await client.close();
    await server.close();
  }
});

function text(result: { content: unknown[] }): string {
  const first = result.content[0] as { type: string; text?: string } | undefined;
  return first?.type === 'text' ? (first.text ?? '') : '';
}

async function setup(options: StreamableOptions = {}) {
  const server = await officialStreamable(options);
  const logs: LoggingMessageParams[] = [];
  const errors: Error[] = [];
  const changed: (Tool[] | undefined)[] = [];
  const client = new Client(
    { name: 'mcpkit-http-e2e', version: '1.0.0' },
    {
      elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }),
      onlog: (params) => logs.push(params),
      onerror: (error) => errors.push(error),
      onToolsChanged: (tools) => changed.push(tools),
    },
  );
  running.push({ server, client });
  return { server, client, logs, errors, changed };
}

async function until(check: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('mcpkit client vs official StreamableHTTPServerTransport', { timeout: 30_000 }, () => {
  test('SSE replies: handshake, calls, notifications, elicitation, the GET stream, DELETE on close', async () => {
    const { server, client, logs, errors, changed } = await setup();
    const transport = new StreamableHttpClientTransport(server.url);
    await client.connect(transport, CALL);
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.deepEqual(client.serverInfo, { name: 'official-http-server', version: '1.0.0' });
    const session = transport.sessionId;
    assert.ok(session !== undefined && server.sessions.has(session));

    const tools = await client.listTools(CALL);
    assert.deepEqual(
      tools.map((t) => t.name),
      ['echo', 'chatty', 'ask', 'poll', 'change'],
    );
    assert.equal(text(await client.callTool('echo', { text: 'hi' }, CALL)), 'echo: hi');

    const progress: ProgressParams[] = [];
    const chatty = await client.callTool('chatty', {}, { ...CALL, onprogress: (p) => progress.push(p) });
    assert.equal(text(chatty), 'done');
    assert.deepEqual(
      logs.map((l) => l.data),
      ['working'],
    );
    assert.deepEqual(
      progress.map((p) => p.progress),
      [1, 2],
    );

    assert.equal(text(await client.callTool('ask', {}, CALL)), 'hello Ada');

    // The list_changed notification travels on the standalone GET stream.
    await until(() => server.log.some((r) => r.method === 'GET'));
    await client.callTool('change', {}, CALL);
    await until(() => changed.length > 0);
    assert.equal(changed[0]?.length, 5);

    const posts = server.log.filter((r) => r.method === 'POST');
    // The Client's server/discover probe goes first, statelessly; the initialize starts the session.
    assert.deepEqual(
      posts.slice(0, 2).map((r) => r.body?.method),
      ['server/discover', 'initialize'],
    );
    assert.equal(posts[0]?.headers['mcp-protocol-version'], '2026-07-28');
    assert.equal(posts[0]?.headers['mcp-session-id'], undefined);
    for (const r of posts.slice(2)) {
      assert.equal(r.headers['mcp-session-id'], session);
      assert.equal(r.headers['mcp-protocol-version'], '2025-11-25');
    }
    await client.close();
    const deletes = server.log.filter((r) => r.method === 'DELETE');
    assert.equal(deletes.length, 1);
    assert.equal(deletes[0]?.headers['mcp-session-id'], session);
    await until(() => server.sessions.size === 0);
    assert.deepEqual(errors, []);
  });

  test('JSON replies (enableJsonResponse): calls and the GET stream work', async () => {
    const { server, client, errors, changed } = await setup({ enableJsonResponse: true });
    await client.connect(new StreamableHttpClientTransport(server.url), CALL);
    assert.equal(text(await client.callTool('echo', { text: 'json' }, CALL)), 'echo: json');
    await until(() => server.log.some((r) => r.method === 'GET'));
    await client.callTool('change', {}, CALL);
    await until(() => changed.length > 0);
    assert.deepEqual(errors, []);
  });

  test('SSE polling: the server closes the stream mid-call; the client resumes and loses nothing', async () => {
    const { server, client, logs, errors } = await setup({
      eventStore: new OrderedEventStore(),
      retryInterval: 200,
    });
    await client.connect(new StreamableHttpClientTransport(server.url), CALL);
    const result = await client.callTool('poll', {}, CALL);
    assert.equal(text(result), 'polled');
    assert.deepEqual(
      logs.map((l) => l.data),
      ['before', 'during'],
    );
    const resumes = server.log.filter((r) => r.method === 'GET' && r.headers['last-event-id'] !== undefined);
    assert.ok(resumes.length >= 1, 'resumed with Last-Event-ID');
    assert.deepEqual(errors, []);
  });

  test('a session the server forgot (404) is re-established transparently', async () => {
    const { server, client, errors } = await setup();
    const transport = new StreamableHttpClientTransport(server.url);
    await client.connect(transport, CALL);
    const first = transport.sessionId!;
    await server.sessions.get(first)?.close();
    assert.equal(server.sessions.has(first), false);

    assert.equal(text(await client.callTool('echo', { text: 'again' }, CALL)), 'echo: again');
    const second = transport.sessionId;
    assert.ok(second !== undefined && second !== first && server.sessions.has(second));
    const inits = server.log.filter((r) => r.body?.method === 'initialize');
    assert.equal(inits.length, 2);
    // Closing the session also ended the GET stream; its reconnection met the 404 and said so, once.
    assert.ok(errors.length <= 1, errors.map((e) => e.message).join('\n'));
    for (const e of errors)
      assert.match(e.message, /GET stream stopped: the server ended the session .*next message/);
    // And the new session has its own GET stream.
    await until(() => server.log.some((r) => r.method === 'GET' && r.headers['mcp-session-id'] === second));
  });

  test('HttpClientTransport stays on Streamable HTTP for it', async () => {
    const { server, client } = await setup();
    const transport = new HttpClientTransport(server.url);
    await client.connect(transport, CALL);
    assert.equal(transport.kind, 'streamable-http');
    assert.equal(text(await client.callTool('echo', { text: 'auto' }, CALL)), 'echo: auto');
    assert.ok(transport.sessionId !== undefined);
  });
});
