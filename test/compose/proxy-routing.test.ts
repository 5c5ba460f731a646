// Which client a request of the server behind a proxy reaches, when that server is stateful: exact where the
// transport relates the server's request to the forwarded one (Streamable HTTP: it comes on that request's response
// stream; in memory: the sender's relation), so two forwarded calls in flight at once each get their own client's
// elicitation answer; where nothing relates it (as over stdio), the one request in flight, and several in flight
// are refused rather than guessed.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  type CallToolResult,
  Client,
  createProxy,
  type ElicitResult,
  HttpClientTransport,
  McpServer,
  type ProxyServer,
  StreamableHttpClientTransport,
  type Transport,
} from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { connectInMemory, createLinkedTransports } from '../../src/testing.js';

/**
 * A stateful server whose tool `who` waits until `expected` calls of it are in flight, then asks its client for a
 * name (an elicitation) and answers with it.
 */
function backend(expected: number) {
  const server = new McpServer({ name: 'behind', version: '1.0.0' });
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.tool('who', {}, async (_args, ctx) => {
    if (++arrived >= expected) release();
    await all;
    const answer = await ctx.elicit({
      message: 'who is asking?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `asked by ${String(answer.content?.name)}`;
  });
  return server;
}

/** A transport that, like stdio, relates no message to a request (the context of what it delivers is dropped). */
function unrelated(inner: Transport): Transport {
  return {
    start: (receiver) =>
      inner.start({
        onmessage: (message) => receiver.onmessage(message),
        oninvalid: (parsed) => receiver.oninvalid(parsed),
        onerror: (error) => receiver.onerror(error),
        onclose: (error) => receiver.onclose(error),
      }),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
  };
}

/** A client of the proxy (in memory) answering elicitations with its own name. */
function clientOf(proxy: ProxyServer, name: string) {
  return connectInMemory(proxy, {
    elicitation: (): ElicitResult => ({ action: 'accept', content: { name } }),
  });
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ');
}

/** Both clients call `who` at once; the texts of their results (or their errors' messages), in their order. */
async function bothAsk(proxy: ProxyServer): Promise<string[]> {
  const clients = await Promise.all([clientOf(proxy, 'first'), clientOf(proxy, 'second')]);
  try {
    const results = await Promise.allSettled(clients.map(({ client }) => client.callTool('who')));
    return results.map((r) => (r.status === 'fulfilled' ? text(r.value) : (r.reason as Error).message));
  } finally {
    await Promise.all(clients.map(({ client }) => client.close()));
  }
}

describe('routing the requests of a stateful server behind a proxy', () => {
  const closing: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closing.reverse()) await close();
  });

  test('over Streamable HTTP: two calls in flight, each elicitation reaches the client of its call', async () => {
    const server = backend(2);
    const http: RunningServer = await serve(server, { port: 0, host: '127.0.0.1' });
    closing.push(() => http.close());
    const proxy = await createProxy(http.url, { era: 'stateful', onerror: () => {} });
    closing.push(() => proxy.close());
    assert.equal(proxy.backend.era, 'stateful');
    assert.deepEqual(await bothAsk(proxy), ['asked by first', 'asked by second']);
  });

  test('the same through the Streamable HTTP transport itself (no legacy fallback)', async () => {
    const server = backend(2);
    const http: RunningServer = await serve(server, { port: 0, host: '127.0.0.1' });
    closing.push(() => http.close());
    const proxy = await createProxy(new StreamableHttpClientTransport(http.url), {
      era: 'stateful',
      onerror: () => {},
    });
    closing.push(() => proxy.close());
    assert.deepEqual(await bothAsk(proxy), ['asked by first', 'asked by second']);
  });

  test('in memory (the sender relates its request): two calls in flight, each to its own client', async () => {
    const server = backend(2);
    const [clientSide, serverSide] = createLinkedTransports();
    await server.connect(serverSide);
    const proxy = await createProxy(clientSide, { era: 'stateful', onerror: () => {} });
    closing.push(() => proxy.close());
    assert.deepEqual(await bothAsk(proxy), ['asked by first', 'asked by second']);
  });

  test('nothing relates the request (as over stdio): one call in flight is routed, two are refused', async () => {
    const [clientSide, serverSide] = createLinkedTransports();
    const server = backend(1);
    await server.connect(serverSide);
    const proxy = await createProxy(unrelated(clientSide), { era: 'stateful', onerror: () => {} });
    closing.push(() => proxy.close());
    const { client } = await clientOf(proxy, 'alone');
    try {
      assert.equal(text(await client.callTool('who')), 'asked by alone');
    } finally {
      await client.close();
    }
    const [twoSide, twoServerSide] = createLinkedTransports();
    const two = backend(2);
    await two.connect(twoServerSide);
    const guessing = await createProxy(unrelated(twoSide), { era: 'stateful', onerror: () => {} });
    closing.push(() => guessing.close());
    for (const result of await bothAsk(guessing))
      assert.match(result, /2 requests of its clients are in flight and the server does not say which one/);
  });
});

test("a client's handler learns which of its requests the server related a request to", async () => {
  const server = backend(1);
  const http: RunningServer = await serve(server, { port: 0, host: '127.0.0.1' });
  const controller = new AbortController();
  const seen: { related: unknown; mine: boolean }[] = [];
  const client = new Client(
    { name: 'c', version: '1.0.0' },
    {
      era: 'stateful',
      elicitation: (_params, ctx) => {
        seen.push({ related: ctx.relatedRequestId, mine: ctx.relatedSignal === controller.signal });
        return { action: 'accept', content: { name: 'me' } };
      },
    },
  );
  try {
    await client.connect(new HttpClientTransport(http.url));
    await client.callTool('who', {}, { signal: controller.signal });
    assert.equal(seen.length, 1);
    assert.notEqual(seen[0]?.related, undefined);
    assert.equal(seen[0]?.mine, true, 'the signal given to the call');
  } finally {
    await client.close();
    await http.close();
  }
});
