// The real topology: a redis-server (appendfsync always), three instances of the everything example server started
// with `--http PORT --redis URL`, and nginx round robin in front, no affinity. With mcpkit's client, the official
// SDK 1.x client and raw HTTP: a session served by every instance, an elicitation answered through another
// instance, notifications and listen streams across instances, kill -9 of the instance holding a stream in the
// middle of 1,000 progress events, requests of a killed instance failing at the client, and a Redis restart under
// load losing no stored event. The legacy HTTP+SSE transport too (our client and the SDK's SSEClientTransport): its
// POSTs land anywhere and are handed to the instance holding the stream.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport as SdkSseTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Topology } from '../../examples/cluster/topology.js';
import { Client } from '../../src/client/client.js';
import type { SseEvent } from '../../src/framing/sse.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/types.js';
import { SseLegacyClientTransport } from '../../src/transport/http-client/legacy-sse.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import {
  initSession,
  openGet,
  openPost,
  post,
  resultText,
  type SseConnection,
  toolCall,
} from '../http-server/helpers.js';
import { eventually, sleep } from './helpers.js';

let top: Topology;
/** Instance id (the `mcpkit-instance` header) → index in the topology. */
const indexOf = new Map<string, number>();
const T = { timeout: 90_000 };

before(async () => {
  top = await Topology.start({ instances: 3 });
  await mapInstances();
});

after(async () => {
  await top?.stop();
});

/** Learns each instance's id by asking it directly. */
async function mapInstances(): Promise<void> {
  indexOf.clear();
  for (let i = 0; i < top.instances.length; i++) {
    const { sessionId } = await initSession(top.instanceUrl(i));
    const res = await post(top.instanceUrl(i), sessionId, toolCall(1, 'cluster_instance'));
    const id = String(res.headers['mcpkit-instance']);
    indexOf.set(id, i);
  }
}

/** A fetch that records the instance answering each request (the `mcpkit-instance` response header). */
function recordingFetch() {
  const log: { method: string; body: string; instance: string | null }[] = [];
  const record = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    log.push({
      method: init?.method ?? 'GET',
      body: typeof init?.body === 'string' ? init.body : '',
      instance: res.headers.get('mcpkit-instance'),
    });
    return res;
  };
  return { fetch: record as typeof fetch, log };
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text?: string } | undefined)?.text ?? '';
}

const USER = { username: 'ada', email: 'ada@example.com' };

describe('mcpkit client through nginx', () => {
  test('a stateful session is served by every instance in turn', T, async () => {
    const recorder = recordingFetch();
    const client = new Client({ name: 'topology', version: '1' }, { era: 'stateful' });
    await client.connect(new StreamableHttpClientTransport(top.url, { fetch: recorder.fetch }));
    try {
      const answered = new Set<string>();
      for (let n = 0; n < 12 && answered.size < 3; n++)
        answered.add(text(await client.callTool('cluster_instance', {})));
      assert.equal(answered.size, 3, `answered by ${[...answered].join(', ')}`);
      await client.setLoggingLevel('debug');
      assert.ok((await client.listTools()).length > 5);
    } finally {
      await client.close();
    }
  });

  test('an elicitation asked on one instance is answered through another', T, async () => {
    const recorder = recordingFetch();
    const client = new Client(
      { name: 'topology', version: '1' },
      { era: 'stateful', elicitation: async () => ({ action: 'accept', content: USER }) },
    );
    await client.connect(new StreamableHttpClientTransport(top.url, { fetch: recorder.fetch }));
    try {
      // Round robin: within a few calls, the answer's POST reaches another instance than the one asking.
      let crossed = false;
      for (let n = 0; n < 6 && !crossed; n++) {
        const before = recorder.log.length;
        assert.match(text(await client.callTool('test_elicitation', { message: 'Who are you?' })), /ada/);
        const posts = recorder.log.slice(before).filter((r) => r.method === 'POST');
        const asker = posts.find((r) => r.body.includes('"tools/call"'))?.instance;
        const answerer = posts.find(
          (r) => r.body.includes('"result"') && !r.body.includes('"method"'),
        )?.instance;
        crossed = asker != null && answerer != null && asker !== answerer;
      }
      assert.ok(crossed, 'an answer went through another instance');
    } finally {
      await client.close();
    }
  });

  test('notifications raised on one instance reach the GET stream another holds', T, async () => {
    const recorder = recordingFetch();
    let changes = 0;
    const client = new Client(
      { name: 'topology', version: '1' },
      { era: 'stateful', autoRefresh: false, onToolsChanged: () => changes++ },
    );
    await client.connect(new StreamableHttpClientTransport(top.url, { fetch: recorder.fetch }));
    try {
      await eventually(
        () => recorder.log.some((r) => r.method === 'GET' && r.instance !== null),
        'the GET stream',
      );
      const holder = recorder.log.find((r) => r.method === 'GET' && r.instance !== null)?.instance;
      // Toggle until a change made on an instance that does not hold the GET stream has arrived on it.
      let crossed = false;
      for (let n = 0; n < 30 && !crossed; n++) {
        const before = changes;
        const from = recorder.log.length;
        await client.callTool('toggle_feature', {});
        const toggler = recorder.log.slice(from).find((r) => r.body.includes('toggle_feature'))?.instance;
        await sleep(100);
        crossed = toggler != null && toggler !== holder && changes > before;
      }
      assert.ok(crossed, 'a change made elsewhere reached the GET stream');
    } finally {
      await client.close();
    }
  });

  test('subscriptions/listen on one instance hears list changes made on another', T, async () => {
    const recorder = recordingFetch();
    let changes = 0;
    const listener = new Client(
      { name: 'listener', version: '1' },
      { era: 'stateless', autoRefresh: false, onToolsChanged: () => changes++ },
    );
    await listener.connect(new StreamableHttpClientTransport(top.url, { fetch: recorder.fetch }));
    try {
      await eventually(
        () => recorder.log.some((r) => r.body.includes('subscriptions/listen')),
        'the listen stream',
      );
      // Changes made directly on each instance in turn: the ones not holding the stream are heard too.
      for (let i = 0; i < 3; i++) {
        const toggler = new Client({ name: 'toggler', version: '1' }, { era: 'stateless' });
        await toggler.connect(new StreamableHttpClientTransport(top.instanceUrl(i)));
        const before = changes;
        await eventually(async () => {
          await toggler.callTool('toggle_feature', {});
          await sleep(50);
          return changes > before;
        }, `a change made on instance ${i}`);
        await toggler.close();
      }
    } finally {
      await listener.close();
    }
  });
});

describe('the official SDK 1.x client through nginx', () => {
  test('one session on every instance, an elicitation and list changes across instances', T, async () => {
    const client = new SdkClient(
      { name: 'sdk-topology', version: '1' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: USER }));
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    await client.connect(new SdkTransport(new URL(top.url)));
    try {
      const answered = new Set<string>();
      for (let n = 0; n < 12 && answered.size < 3; n++) {
        const result = await client.callTool({ name: 'cluster_instance', arguments: {} });
        answered.add(text(result as { content: unknown[] }));
      }
      assert.equal(answered.size, 3);
      for (let n = 0; n < 3; n++) {
        const result = await client.callTool({
          name: 'test_elicitation',
          arguments: { message: 'Who are you?' },
        });
        assert.match(text(result as { content: unknown[] }), /ada/);
      }
      await eventually(async () => {
        await client.callTool({ name: 'toggle_feature', arguments: {} });
        return changes > 0;
      }, 'tools/list_changed on the SDK client');
    } finally {
      await client.close();
    }
  });
});

type Recorded = ReturnType<typeof recordingFetch>['log'];

/** The instance holding a legacy session's GET stream, and whether a POST of `kind` went through another one. */
function legacyCrossing(log: Recorded, from: number, kind: (body: string) => boolean) {
  const holder = log.find((r) => r.method === 'GET' && r.instance !== null)?.instance;
  const posts = log.slice(from).filter((r) => r.method === 'POST' && kind(r.body));
  return { holder, crossed: posts.some((r) => r.instance !== null && r.instance !== holder) };
}

/** A POST carrying the client's answer to a server request. */
const isAnswer = (body: string) => body.includes('"result"') && !body.includes('"method"');

describe('the legacy HTTP+SSE transport through nginx', () => {
  const sseUrl = () => new URL('/sse', top.url).href;

  test(
    'mcpkit legacy client: tools, progress, an elicitation answered through another instance',
    T,
    async () => {
      const recorder = recordingFetch();
      const client = new Client(
        { name: 'legacy-topology', version: '1' },
        { era: 'stateful', elicitation: async () => ({ action: 'accept', content: USER }) },
      );
      await client.connect(new SseLegacyClientTransport(sseUrl(), { fetch: recorder.fetch }));
      try {
        assert.ok((await client.listTools()).some((t) => t.name === 'test_elicitation'));
        const { holder } = legacyCrossing(recorder.log, 0, () => true);
        assert.ok(holder, 'the GET stream names its instance');
        const progress: number[] = [];
        const result = await client.callTool(
          'cluster_progress',
          { count: 30, delayMs: 1 },
          { onprogress: (p) => progress.push(p.progress) },
        );
        // Run where the stream is, whichever instance took the POST.
        assert.equal(text(result), `30 steps done by ${holder}`);
        assert.deepEqual(
          progress,
          Array.from({ length: 30 }, (_, i) => i + 1),
        );
        let crossed = false;
        for (let n = 0; n < 9 && !crossed; n++) {
          const from = recorder.log.length;
          assert.match(text(await client.callTool('test_elicitation', { message: 'Who are you?' })), /ada/);
          crossed = legacyCrossing(recorder.log, from, isAnswer).crossed;
        }
        assert.ok(crossed, 'an answer went through another instance than the one holding the stream');
      } finally {
        await client.close();
      }
    },
  );

  test(
    'official SDK 1.x SSEClientTransport: tools, progress, an elicitation answered through another instance',
    T,
    async () => {
      const recorder = recordingFetch();
      const client = new SdkClient(
        { name: 'sdk-legacy-topology', version: '1' },
        { capabilities: { elicitation: {} } },
      );
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: USER }));
      await client.connect(new SdkSseTransport(new URL(sseUrl()), { fetch: recorder.fetch }));
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'cluster_progress'));
        const { holder } = legacyCrossing(recorder.log, 0, () => true);
        assert.ok(holder, 'the GET stream names its instance');
        const progress: number[] = [];
        const result = await client.callTool(
          { name: 'cluster_progress', arguments: { count: 30, delayMs: 10 } },
          undefined,
          {
            onprogress: (p) => {
              progress.push(p.progress);
            },
          },
        );
        assert.equal(text(result as { content: unknown[] }), `30 steps done by ${holder}`);
        // In order, each once. The SDK runs notification handlers a microtask after they arrive and responses at
        // once, so the last progress events, read in the same chunk as the response, reach it after the call is
        // over and are dropped (our client above gets every one of them).
        assert.ok(progress.length > 0, 'progress events');
        assert.deepEqual(
          progress,
          Array.from({ length: progress.length }, (_, i) => i + 1),
        );
        let crossed = false;
        for (let n = 0; n < 9 && !crossed; n++) {
          const from = recorder.log.length;
          const answered = await client.callTool({
            name: 'test_elicitation',
            arguments: { message: 'Who are you?' },
          });
          assert.match(text(answered as { content: unknown[] }), /ada/);
          crossed = legacyCrossing(recorder.log, from, isAnswer).crossed;
        }
        assert.ok(crossed, 'an answer went through another instance than the one holding the stream');
        // Every POST of the session was taken, wherever it landed.
        const posts = recorder.log.filter((r) => r.method === 'POST');
        assert.ok(new Set(posts.map((r) => r.instance)).size >= 2);
      } finally {
        await client.close();
      }
    },
  );
});

/** The progress values and the response among SSE events. */
function progressOf(events: readonly SseEvent[]): {
  progress: number[];
  response: JsonRpcMessage | undefined;
} {
  const progress: number[] = [];
  let response: JsonRpcMessage | undefined;
  for (const e of events) {
    if (e.data === '') continue;
    const m = JSON.parse(e.data) as JsonRpcMessage;
    if ('method' in m && m.method === 'notifications/progress') progress.push(Number(m.params?.progress));
    else if (!('method' in m)) response = m;
  }
  return { progress, response };
}

function lastId(events: readonly SseEvent[], fallback: string): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const id = events[i]?.id;
    if (id !== undefined && id !== '') return id;
  }
  return fallback;
}

describe('failures', () => {
  test(
    'kill -9 of the instance holding the stream mid-response: 1,000 progress events, each once, in order',
    T,
    async () => {
      const { sessionId } = await initSession(top.url);
      const events: SseEvent[] = [];
      // 1,000 progress events; the running instance ends the connection after 100 (SSE polling).
      const first = await openPost(
        top.url,
        sessionId,
        toolCall(1, 'cluster_progress', { count: 1000, delayMs: 4, closeAfter: 100 }, 'p'),
      );
      const runner = String(first.headers['mcpkit-instance']);
      await first.waitEnd(30_000);
      events.push(...first.events);
      let last = lastId(events, '');
      // Resume through nginx until an instance other than the runner holds the stream.
      let held: SseConnection | undefined;
      for (let attempt = 0; attempt < 6 && held === undefined; attempt++) {
        const conn = await openGet(top.url, sessionId, last);
        assert.equal(conn.status, 200);
        if (String(conn.headers['mcpkit-instance']) !== runner) {
          held = conn;
          break;
        }
        await sleep(30);
        conn.cut();
        await conn.ended;
        events.push(...conn.events);
        last = lastId(events, last);
      }
      assert.ok(held, 'a resumption landed on another instance');
      const holder = indexOf.get(String(held.headers['mcpkit-instance']));
      assert.notEqual(holder, undefined);
      // Mid-response: kill the holder.
      await eventually(() => progressOf([...events, ...held.events]).progress.length > 300, '300 events');
      await top.kill(holder as number);
      await held.ended;
      events.push(...held.events);
      last = lastId(events, last);
      // Reconnect through nginx (it skips the dead instance) until the response arrives.
      for (let attempt = 0; attempt < 10 && progressOf(events).response === undefined; attempt++) {
        const conn = await openGet(top.url, sessionId, last);
        assert.equal(conn.status, 200, conn.text);
        await conn.waitEnd(60_000);
        events.push(...conn.events);
        last = lastId(events, last);
      }
      const { progress, response } = progressOf(events);
      assert.deepEqual(
        progress,
        Array.from({ length: 1000 }, (_, i) => i + 1),
      );
      assert.match(resultText(response), new RegExp(`1000 steps done by ${runner}`));
      await top.revive(holder as number);
      await mapInstances();
    },
  );

  test('a request running on a killed instance fails at the client with a clear error', T, async () => {
    const recorder = recordingFetch();
    const client = new Client({ name: 'topology', version: '1' }, { era: 'stateful' });
    await client.connect(new StreamableHttpClientTransport(top.url, { fetch: recorder.fetch }));
    try {
      let progressed = 0;
      const call = client.callTool(
        'cluster_progress',
        { count: 100_000, delayMs: 20 },
        { onprogress: () => progressed++, timeout: 120_000 },
      );
      call.catch(() => undefined);
      await eventually(() => progressed > 3, 'the call under way');
      const runner = recorder.log.filter((r) => r.body.includes('cluster_progress')).at(-1)?.instance;
      const index = indexOf.get(String(runner));
      assert.notEqual(index, undefined);
      await top.kill(index as number);
      await assert.rejects(call, /stopped before answering/);
      await top.revive(index as number);
      await mapInstances();
    } finally {
      await client.close();
    }
  });

  test('Redis restarted (kill -9) under load loses no stored event', T, async () => {
    const { sessionId } = await initSession(top.url);
    const conn = await openPost(
      top.url,
      sessionId,
      toolCall(7, 'cluster_progress', { count: 400, delayMs: 5 }, 'r'),
    );
    // Load beside the stream: other sessions calling through nginx.
    let stop = false;
    const load = (async () => {
      const { sessionId: other } = await initSession(top.url);
      let n = 100;
      while (!stop) await post(top.url, other, toolCall(n++, 'cluster_instance')).catch(() => undefined);
    })();
    await eventually(() => progressOf(conn.events).progress.length > 100, '100 events');
    await top.restartRedis(true);
    await conn.waitEnd(60_000);
    stop = true;
    await load;
    const stored = conn.events.filter((e) => e.id !== undefined && e.id !== '' && e.data !== '');
    assert.ok(stored.length > 100);
    const firstId = stored[0]?.id as string;
    // Every event that went out with an id (it was stored) is replayed after the restart.
    let replay: SseConnection | undefined;
    await eventually(
      async () => {
        replay = await openGet(top.url, sessionId, firstId);
        if (replay.status !== 200) return false;
        await replay.waitEnd(30_000);
        return true;
      },
      'a replay after the restart',
      30_000,
    );
    const replayed = new Set((replay as SseConnection).events.map((e) => e.id));
    const missing = stored.slice(1).filter((e) => !replayed.has(e.id));
    assert.deepEqual(
      missing.map((e) => e.id),
      [],
    );
  });
});
