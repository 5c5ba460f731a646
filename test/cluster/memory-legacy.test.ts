// The legacy HTTP+SSE transport (2024-11-05) across two endpoints of one process joined by the in-memory cluster
// stores, no affinity: every POST may land on the instance that does not hold the session's GET stream, and is handed
// to the one that does. Requests answered on the stream, progress, an elicitation answered through the other
// instance, list changes made elsewhere, the session's record in the shared store, and 404 for sessions that are
// unknown, ended, or whose instance is gone.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { type RunningServer, serve } from '../../src/node.js';
import { MemoryBus } from '../../src/store/bus.js';
import { MemorySessionStore } from '../../src/store/session-store.js';
import { MemorySharedEventStore } from '../../src/store/shared-event-store.js';
import { SseLegacyClientTransport } from '../../src/transport/http-client/legacy-sse.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import { clusterServer, eventually, spreadingFetch } from './helpers.js';

const IDS = ['leg-aaaa', 'leg-bbbb'];
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

/** The two instances' legacy SSE URLs (started once). */
async function start(): Promise<string[]> {
  if (instances.length === 0) {
    for (const instanceId of IDS)
      instances.push(
        await serve(clusterServer(instanceId), { cluster: { ...stores, instanceId, heartbeatMs: 100 } }),
      );
  }
  return instances.map((i) => i.sseUrl as string);
}

/** A legacy client whose GET stream is on the first instance and whose POSTs all go to the second. */
async function connect(events: { elicited?: number; changes?: number } = {}) {
  const urls = await start();
  const spread = spreadingFetch(urls, (method) => (method === 'GET' ? 0 : 1));
  // The session id is in the URL the client POSTs to (the `endpoint` event's).
  const session = { id: '' };
  const recording = (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    session.id ||= url.searchParams.get('sessionId') ?? '';
    return spread.fetch(input, init);
  };
  const transport = new SseLegacyClientTransport(urls[0] as string, { fetch: recording as typeof fetch });
  const client = new Client(
    { name: 'legacy-cluster', version: '1' },
    {
      era: 'stateful',
      autoRefresh: false,
      onToolsChanged: () => {
        events.changes = (events.changes ?? 0) + 1;
      },
      elicitation: async () => {
        events.elicited = (events.elicited ?? 0) + 1;
        return { action: 'accept', content: { name: 'Ada' } };
      },
    },
  );
  await client.connect(transport);
  return { client, session, picks: spread.picks };
}

function text(result: { content: unknown[] }): string {
  const first = result.content[0] as { text?: string } | undefined;
  return first?.text ?? '';
}

async function postMessage(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

test('requests POSTed to the other instance are answered on the stream, with progress', T, async () => {
  const { client, session, picks } = await connect();
  try {
    assert.ok((await client.listTools()).some((t) => t.name === 'cluster_progress'));
    // Every request runs where the stream is.
    assert.equal(text(await client.callTool('cluster_instance', {})), 'leg-aaaa');
    const progress: number[] = [];
    const result = await client.callTool(
      'cluster_progress',
      { count: 50, delayMs: 0 },
      { onprogress: (p) => progress.push(p.progress) },
    );
    assert.equal(text(result), '50 steps done by leg-aaaa');
    assert.deepEqual(
      progress,
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    await client.setLoggingLevel('error');
    const posts = picks.filter((p) => p.method === 'POST');
    assert.ok(posts.length >= 4 && posts.every((p) => p.instance === 1));
    // The session's record is in the shared store, naming the instance holding the stream.
    const id = session.id;
    const record = await stores.sessions.get(id);
    assert.equal(record?.stream, 'leg-aaaa');
    assert.equal(record?.logLevel, 'error');
    assert.equal(record?.clientInfo?.name, 'legacy-cluster');
    assert.equal(record?.protocolVersion, client.protocolVersion);
  } finally {
    await client.close();
  }
});

test('an elicitation asked on the stream is answered through the other instance', T, async () => {
  const events: { elicited?: number } = {};
  const { client } = await connect(events);
  try {
    assert.equal(text(await client.callTool('ask', {})), 'leg-aaaa heard {"name":"Ada"}');
    assert.equal(events.elicited, 1);
  } finally {
    await client.close();
  }
});

test('a list change made on the other instance reaches the legacy stream', T, async () => {
  const events: { changes?: number } = {};
  const { client } = await connect(events);
  const other = new Client({ name: 'grower', version: '1' }, { era: 'stateful' });
  await other.connect(new StreamableHttpClientTransport(instances[1]?.url as string));
  try {
    await client.listTools();
    await eventually(async () => {
      assert.equal(text(await other.callTool('grow', {})), 'leg-bbbb grew');
      return (events.changes ?? 0) > 0;
    }, 'tools/list_changed on the legacy stream');
  } finally {
    await other.close();
    await client.close();
  }
});

test(
  'a session is gone everywhere once its stream closes; unknown sessions are 404 on every instance',
  T,
  async () => {
    const { client, session } = await connect();
    const id = session.id;
    assert.ok(await stores.sessions.get(id));
    await client.close();
    await eventually(async () => (await stores.sessions.get(id)) === undefined, 'the record deleted');
    const urls = await start();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    for (const url of urls) {
      const messages = new URL(`/messages?sessionId=${id}`, url).href;
      assert.equal((await postMessage(messages, ping)).status, 404, messages);
      const unknown = new URL('/messages?sessionId=nope', url).href;
      assert.equal((await postMessage(unknown, ping)).status, 404, unknown);
    }
  },
);

test('a session whose instance is gone is 404 (the record outlives it until it expires)', T, async () => {
  const urls = await start();
  await stores.sessions.create(
    'ghost',
    {
      protocolVersion: '2024-11-05',
      clientCapabilities: {},
      serverCapabilities: {},
      logLevel: 'info',
      subscriptions: [],
      tag: '',
      stream: 'dead-ins',
    },
    60_000,
  );
  const res = await postMessage(new URL('/messages?sessionId=ghost', urls[1]).href, {
    jsonrpc: '2.0',
    id: 1,
    method: 'ping',
  });
  assert.equal(res.status, 404);
  assert.match(await res.text(), /Session not found/);
});

test('a legacy session is not a Streamable HTTP session on any instance', T, async () => {
  const { client, session } = await connect();
  try {
    for (const running of instances) {
      const res = await fetch(running.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session.id,
          'mcp-protocol-version': '2024-11-05',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      assert.equal(res.status, 404, running.url);
    }
  } finally {
    await client.close();
  }
});

test('the 202 comes from the POSTing instance only once the holder took the message', T, async () => {
  const { client, session } = await connect();
  try {
    const urls = await start();
    const res = await postMessage(new URL(`/messages?sessionId=${session.id}`, urls[1]).href, {
      jsonrpc: '2.0',
      method: 'notifications/roots/list_changed',
    });
    assert.equal(res.status, 202);
    assert.equal(res.headers.get('mcpkit-instance'), 'leg-bbbb');
    // A body that is no JSON-RPC message is refused where it was POSTed, never handed on.
    const bad = await fetch(new URL(`/messages?sessionId=${session.id}`, urls[1]).href, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"nope"',
    });
    assert.equal(bad.status, 400);
    assert.equal(await client.ping().then(() => 'alive'), 'alive');
  } finally {
    await client.close();
  }
});
