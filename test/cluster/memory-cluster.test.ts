// Three endpoints of one process joined by the in-memory cluster stores, behind a fetch that spreads each request
// over them (no affinity): a stateful session served by all three, an elicitation answered through another
// instance, notifications raised on one instance reaching the GET stream another holds, a response stream resumed
// on another instance, and a DELETE seen everywhere.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import type { JsonRpcNotification } from '../../src/jsonrpc/types.js';
import { type RunningServer, serve } from '../../src/node.js';
import { MemoryBus } from '../../src/store/bus.js';
import { MemorySessionStore } from '../../src/store/session-store.js';
import { MemorySharedEventStore } from '../../src/store/shared-event-store.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import { clusterServer, eventually, spreadingFetch } from './helpers.js';

const IDS = ['inst-aaa', 'inst-bbb', 'inst-ccc'];
const stores = {
  sessions: new MemorySessionStore(),
  events: new MemorySharedEventStore(),
  bus: new MemoryBus(),
};
const instances: RunningServer[] = [];
const T = { timeout: 30_000 };

after(async () => {
  await Promise.all(instances.map((i) => i.close()));
});

async function start(): Promise<string[]> {
  if (instances.length === 0) {
    for (const instanceId of IDS) {
      instances.push(
        await serve(clusterServer(instanceId), {
          legacySse: false,
          retryMs: 20,
          cluster: { ...stores, instanceId, heartbeatMs: 100 },
        }),
      );
    }
  }
  return instances.map((i) => i.url);
}

async function connect(
  route?: (method: string, attempt: number) => number,
  events: { notifications?: JsonRpcNotification[]; elicited?: number } = {},
) {
  const urls = await start();
  const spread = spreadingFetch(urls, route);
  const transport = new StreamableHttpClientTransport(urls[0] as string, { fetch: spread.fetch });
  const client = new Client(
    { name: 'cluster-test', version: '1' },
    {
      era: 'stateful',
      onToolsChanged: () =>
        events.notifications?.push({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }),
      onResourceUpdated: (uri) =>
        events.notifications?.push({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri },
        }),
      elicitation: async () => {
        events.elicited = (events.elicited ?? 0) + 1;
        return { action: 'accept', content: { name: 'Ada' } };
      },
    },
  );
  await client.connect(transport);
  return { client, transport, picks: spread.picks };
}

function text(result: { content: unknown[] }): string {
  const first = result.content[0] as { text?: string } | undefined;
  return first?.text ?? '';
}

test(
  'a stateful session whose requests land on every instance in turn is answered by all three',
  T,
  async () => {
    const { client, picks } = await connect();
    try {
      const answered = new Set<string>();
      for (let n = 0; n < 6; n++) answered.add(text(await client.callTool('cluster_instance', {})));
      assert.deepEqual([...answered].sort(), IDS);
      await client.setLoggingLevel('error');
      assert.ok((await client.listTools()).some((t) => t.name === 'ask'));
      const posts = new Set(picks.filter((p) => p.method === 'POST').map((p) => p.instance));
      assert.equal(posts.size, 3);
    } finally {
      await client.close();
    }
  },
);

test('an elicitation asked by a handler on one instance is answered through another', T, async () => {
  const events: { elicited?: number } = {};
  // POSTs alternate between the first two instances: the answer's POST never reaches the instance that asked.
  const { client } = await connect((method, n) => (method === 'GET' ? 2 : n % 2), events);
  try {
    const result = await client.callTool('ask', {});
    assert.match(text(result), /^inst-(aaa|bbb) heard \{"name":"Ada"\}$/);
    assert.equal(events.elicited, 1);
  } finally {
    await client.close();
  }
});

test(
  'list changes and resource updates raised on one instance reach the GET stream another holds',
  T,
  async () => {
    const notifications: JsonRpcNotification[] = [];
    // The GET stream on the third instance; every POST on the first two.
    const { client, picks } = await connect((method, n) => (method === 'GET' ? 2 : n % 2), { notifications });
    try {
      await eventually(() => picks.some((p) => p.method === 'GET'), 'the GET stream');
      await client.subscribeResource('test://watched');
      // A notification reaches the session once its GET stream is attached: repeat until one arrives.
      await eventually(async () => {
        await client.callTool('grow', {});
        return notifications.some((n) => n.method === 'notifications/tools/list_changed');
      }, 'tools/list_changed on the GET stream');
      await eventually(async () => {
        await client.callTool('touch', {});
        return notifications.some((n) => n.method === 'notifications/resources/updated');
      }, 'resources/updated on the GET stream');
    } finally {
      await client.close();
    }
  },
);

test(
  'a response stream cut by its instance is resumed on another one: every progress event once, in order',
  T,
  async () => {
    const progress: number[] = [];
    const urls = await start();
    // The call's POST on the first instance; the resumption (GET with Last-Event-ID) on the second.
    const spread = spreadingFetch(urls, (method) => (method === 'GET' ? 1 : 0));
    const transport = new StreamableHttpClientTransport(urls[0] as string, { fetch: spread.fetch });
    const client = new Client({ name: 'cluster-test', version: '1' }, { era: 'stateful' });
    await client.connect(transport);
    try {
      const result = await client.callTool(
        'cluster_progress',
        { count: 300, delayMs: 1, closeAfter: 50 },
        { onprogress: (p) => progress.push(p.progress) },
      );
      assert.equal(text(result), '300 steps done by inst-aaa');
      assert.deepEqual(
        progress,
        Array.from({ length: 300 }, (_, i) => i + 1),
      );
    } finally {
      await client.close();
    }
  },
);

test('a session ended with DELETE on one instance is gone on all', T, async () => {
  const { client, transport } = await connect();
  const id = transport.sessionId;
  assert.ok(id);
  await client.close();
  const urls = await start();
  for (const url of urls) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(res.status, 404, url);
  }
});
