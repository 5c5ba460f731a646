// The proxy's resource subscriptions on the server behind it: reference-counted across its clients' sessions (a
// stateful client's resources/subscribe and resources/unsubscribe, a stateless client's subscriptions/listen over
// Streamable HTTP), let go when the last holder unsubscribes or its session closes, and bounded (a subscription
// over the limit refused with a clear error). The server behind is in memory, in each era, so what it holds is
// read off it directly.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Client,
  createProxy,
  HttpClientTransport,
  type McpServer,
  type ProxyServer,
} from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { connectInMemory, createLinkedTransports } from '../../src/testing.js';
import { eventually } from '../eras/helpers.js';
import { backendServer } from './subscription-backend.js';

async function proxyOf(server: McpServer, era: 'stateful' | 'stateless', maxSubscriptions?: number) {
  const [clientSide, serverSide] = createLinkedTransports();
  await server.connect(serverSide);
  return createProxy(clientSide, {
    era,
    onerror: () => {},
    ...(maxSubscriptions === undefined ? {} : { maxSubscriptions }),
  });
}

for (const era of ['stateful', 'stateless'] as const) {
  describe(`the proxy's subscriptions on a server behind it (${era})`, () => {
    let behind: Awaited<ReturnType<typeof backendServer>>;
    let proxy: ProxyServer;
    let http: RunningServer;

    before(async () => {
      behind = await backendServer(['a', 'b', 'c']);
      proxy = await proxyOf(behind.server, era);
      http = await serve(proxy, { port: 0, host: '127.0.0.1' });
    });

    after(async () => {
      await http.close();
      await proxy.close();
      await behind.server.close();
    });

    test('the last of two clients to unsubscribe unsubscribes the server behind; one session counts once', async () => {
      const first = await connectInMemory(proxy);
      const second = await connectInMemory(proxy);
      try {
        await first.client.subscribeResource('test://a');
        await first.client.subscribeResource('test://a');
        await second.client.subscribeResource('test://a');
        await eventually(() => behind.holds('test://a'), 'the server behind subscribed');
        assert.equal(proxy.upstreamSubscriptions, 1);
        await first.client.unsubscribeResource('test://a');
        await second.client.ping(); // a round trip after the unsubscribe
        assert.ok(behind.holds('test://a'), 'still held for the second client');
        await second.client.unsubscribeResource('test://a');
        await eventually(() => !behind.holds('test://a'), 'the server behind unsubscribed');
        assert.equal(proxy.upstreamSubscriptions, 0);
      } finally {
        await first.client.close();
        await second.client.close();
      }
    });

    test('a session that closes lets its subscriptions go', async () => {
      const { client } = await connectInMemory(proxy);
      await client.subscribeResource('test://b');
      await eventually(() => behind.holds('test://b'), 'the server behind subscribed');
      await client.close();
      await eventually(() => !behind.holds('test://b'), 'the server behind unsubscribed after the close');
      assert.equal(proxy.upstreamSubscriptions, 0);
    });

    test('a stateless client over HTTP: its listen stream holds the subscription until it ends', async () => {
      const updated: string[] = [];
      const client = new Client(
        { name: 'modern', version: '1.0.0' },
        { era: 'stateless', onResourceUpdated: (uri) => updated.push(uri) },
      );
      await client.connect(new HttpClientTransport(http.url));
      try {
        await client.subscribeResource('test://c');
        await eventually(() => behind.holds('test://c'), 'the server behind subscribed');
        behind.server.notifyResourceUpdated('test://c');
        await eventually(() => updated.includes('test://c'), 'the update through the proxy');
        await client.unsubscribeResource('test://c');
        await eventually(() => !behind.holds('test://c'), 'the server behind unsubscribed');
        await client.subscribeResource('test://c');
        await eventually(() => behind.holds('test://c'), 'subscribed again');
      } finally {
        await client.close();
      }
      await eventually(() => !behind.holds('test://c'), 'the server behind unsubscribed after the close');
      assert.equal(proxy.upstreamSubscriptions, 0);
    });

    test('a stateful client over HTTP: the end of its session lets its subscription go', async () => {
      const client = new Client({ name: 'legacy', version: '1.0.0' }, { era: 'stateful' });
      await client.connect(new HttpClientTransport(http.url));
      await client.subscribeResource('test://a');
      await eventually(() => behind.holds('test://a'), 'the server behind subscribed');
      await client.close(); // DELETE ends the HTTP session
      await eventually(() => !behind.holds('test://a'), 'the server behind unsubscribed');
    });
  });
}

describe('the bound on the proxy subscriptions', () => {
  test('one resource more than maxSubscriptions is refused, with a clear error, until one is let go', async () => {
    const behind = await backendServer(['a', 'b', 'c']);
    const proxy = await proxyOf(behind.server, 'stateful', 2);
    const { client } = await connectInMemory(proxy);
    try {
      await client.subscribeResource('test://a');
      await client.subscribeResource('test://b');
      await assert.rejects(
        client.subscribeResource('test://c'),
        /Too many subscriptions: the proxy keeps at most 2 resources subscribed/,
      );
      await client.subscribeResource('test://a'); // held already: no new one
      const other = await connectInMemory(proxy);
      await assert.rejects(other.client.subscribeResource('test://c'), /Too many subscriptions/);
      await other.client.subscribeResource('test://b'); // a resource already held is shared
      await other.client.close();
      await client.unsubscribeResource('test://a');
      await client.subscribeResource('test://c');
      await eventually(() => behind.holds('test://c') && !behind.holds('test://a'), 'a let go, c taken');
      assert.equal(proxy.upstreamSubscriptions, 2);
    } finally {
      await client.close();
      await proxy.close();
      await behind.server.close();
    }
  });

  test('a maxSubscriptions that is not a positive integer is refused at start', async () => {
    const behind = await backendServer(['a', 'b', 'c']);
    await assert.rejects(
      proxyOf(behind.server, 'stateful', 0),
      /maxSubscriptions must be a positive integer/,
    );
    await behind.server.close();
  });
});
