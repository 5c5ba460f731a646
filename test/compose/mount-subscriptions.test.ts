// A proxy mounted in another server forwards its clients' resource subscriptions: a client of the outer server that
// subscribes to a mounted resource (resources/subscribe of a stateful session, subscriptions/listen of the stateless
// revision) makes the proxy subscribe on the server behind it, gets notifications/resources/updated under the outer
// (prefixed) URI, and its unsubscribe, the end of its listen or the close of its session lets the subscription go.
// Each era behind the proxy, each era in front of the outer server, in memory and over Streamable HTTP; the same
// through a mount of a mount, and the mounted server's own middleware seeing the subscriptions with its own URIs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Client,
  createProxy,
  HttpClientTransport,
  McpServer,
  type Middleware,
  type ProxyServer,
} from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { connectInMemory, createLinkedTransports } from '../../src/testing.js';
import { eventually } from '../eras/helpers.js';
import { backendServer } from './subscription-backend.js';

async function proxyOf(server: McpServer, era: 'stateful' | 'stateless') {
  const [clientSide, serverSide] = createLinkedTransports();
  await server.connect(serverSide);
  return createProxy(clientSide, { era, onerror: () => {} });
}

type Way = 'memory' | 'stateful' | 'stateless';

async function connect(url: string | URL, way: Way, app: McpServer, updated: string[]) {
  const onResourceUpdated = (uri: string) => updated.push(uri);
  if (way === 'memory') return (await connectInMemory(app, { onResourceUpdated })).client;
  const client = new Client({ name: way, version: '1.0.0' }, { era: way, onResourceUpdated });
  await client.connect(new HttpClientTransport(url));
  return client;
}

for (const behindEra of ['stateful', 'stateless'] as const) {
  describe(`a proxy mounted in another server forwards subscriptions (${behindEra} behind the proxy)`, () => {
    let behind: Awaited<ReturnType<typeof backendServer>>;
    let proxy: ProxyServer;
    let app: McpServer;
    let http: RunningServer;

    before(async () => {
      behind = await backendServer(['a', 'b'], { template: true });
      proxy = await proxyOf(behind.server, behindEra);
      app = new McpServer({ name: 'app', version: '1.0.0' });
      app.mount('remote', proxy);
      http = await serve(app, { port: 0, host: '127.0.0.1' });
    });

    after(async () => {
      await http.close();
      await app.close();
      await proxy.close();
      await behind.server.close();
    });

    for (const way of ['memory', 'stateful', 'stateless'] as const) {
      test(`${way}: subscribe, the update under the outer URI, unsubscribe`, async () => {
        const updated: string[] = [];
        const client = await connect(http.url, way, app, updated);
        try {
          await client.subscribeResource('test://remote/a');
          await eventually(() => behind.holds('test://a'), 'the server behind subscribed');
          assert.equal(proxy.upstreamSubscriptions, 1);
          behind.server.notifyResourceUpdated('test://a');
          await eventually(() => updated.includes('test://remote/a'), 'the update under the outer URI');
          assert.deepEqual(updated, ['test://remote/a']);
          await client.unsubscribeResource('test://remote/a');
          await eventually(() => !behind.holds('test://a'), 'the server behind unsubscribed');
          assert.equal(proxy.upstreamSubscriptions, 0);
        } finally {
          await client.close();
        }
      });

      test(`${way}: a URI of a mounted template, and the close of the client lets it go`, async () => {
        const updated: string[] = [];
        const client = await connect(http.url, way, app, updated);
        try {
          await client.subscribeResource('test://remote/item/7');
          await client.subscribeResource('test://remote/b');
          await eventually(
            () => behind.holds('test://item/7') && behind.holds('test://b'),
            'the server behind subscribed both',
          );
          behind.server.notifyResourceUpdated('test://item/7');
          await eventually(() => updated.includes('test://remote/item/7'), 'the update under the outer URI');
        } finally {
          await client.close(); // in memory: the session closes; HTTP stateful: DELETE; stateless: the listen ends
        }
        await eventually(
          () => !behind.holds('test://item/7') && !behind.holds('test://b'),
          'the server behind unsubscribed after the close',
        );
        assert.equal(proxy.upstreamSubscriptions, 0);
      });
    }

    test('two outer sessions share one subscription behind, held until the last lets it go', async () => {
      const first = await connectInMemory(app);
      const second = await connectInMemory(app);
      try {
        await first.client.subscribeResource('test://remote/a');
        await second.client.subscribeResource('test://remote/a');
        await eventually(() => behind.holds('test://a'), 'the server behind subscribed');
        assert.equal(proxy.upstreamSubscriptions, 1);
        await first.client.close();
        await second.client.ping();
        assert.ok(behind.holds('test://a'), 'still held for the second session');
        await second.client.unsubscribeResource('test://remote/a');
        await eventually(() => !behind.holds('test://a'), 'the server behind unsubscribed');
      } finally {
        await second.client.close();
      }
    });
  });
}

describe('subscriptions through a mount of a mount', () => {
  test("each server's middleware sees the subscription with its own URIs; the proxy at the bottom holds it", async () => {
    const behind = await backendServer(['a', 'b'], { template: true });
    const proxy = await proxyOf(behind.server, 'stateful');
    const seen: string[] = [];
    const recorder =
      (label: string): Middleware =>
      async (request, next) => {
        if (request.method.startsWith('resources/') || request.method === 'subscriptions/listen') {
          const p = request.params as { uri?: string; notifications?: { resourceSubscriptions?: string[] } };
          seen.push(
            `${label} ${request.method} ${p.uri ?? (p.notifications?.resourceSubscriptions ?? []).join(',')}`,
          );
        }
        return next();
      };
    const middle = new McpServer({ name: 'middle', version: '1.0.0' });
    middle.use(recorder('middle'));
    middle.mount('p', proxy);
    const app = new McpServer({ name: 'app', version: '1.0.0' });
    app.use(recorder('app'));
    app.resource('own://x', { name: 'x' }, () => 'x');
    app.mount('m', middle);
    const http = await serve(app, { port: 0, host: '127.0.0.1' });
    const updated: string[] = [];
    let stateless: Client | undefined;
    const { client } = await connectInMemory(app);
    try {
      await client.subscribeResource('test://m/p/a');
      await eventually(() => behind.holds('test://a'), 'the server behind subscribed');
      await client.unsubscribeResource('test://m/p/a');
      await eventually(() => !behind.holds('test://a'), 'the server behind unsubscribed');
      assert.deepEqual(seen, [
        'app resources/subscribe test://m/p/a',
        'middle resources/subscribe test://p/a',
        'app resources/unsubscribe test://m/p/a',
        'middle resources/unsubscribe test://p/a',
      ]);
      seen.length = 0;
      stateless = await connect(http.url, 'stateless', app, updated);
      // One listen naming the app's own resource and two of the proxy's: the middle server sees only its two.
      await stateless.subscribeResource('own://x');
      await stateless.subscribeResource('test://m/p/a');
      await stateless.subscribeResource('test://m/p/item/1');
      await eventually(
        () => behind.holds('test://a') && behind.holds('test://item/1'),
        'the server behind subscribed',
      );
      assert.ok(
        seen.includes('middle subscriptions/listen test://p/a,test://p/item/1'),
        `the middle server saw one listen with its URIs: ${seen.join(' | ')}`,
      );
      behind.server.notifyResourceUpdated('test://item/1');
      await eventually(() => updated.includes('test://m/p/item/1'), 'the update under the outermost URI');
      await stateless.close();
      await eventually(
        () => !behind.holds('test://a') && !behind.holds('test://item/1'),
        'the listen ended: unsubscribed behind',
      );
      assert.equal(proxy.upstreamSubscriptions, 0);
    } finally {
      await stateless?.close();
      await client.close();
      await http.close();
      await app.close();
      await proxy.close();
      await behind.server.close();
    }
  });
});
