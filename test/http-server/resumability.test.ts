// Resumable SSE streams over real sockets: a stream cut mid-response and resumed with GET + Last-Event-ID gets
// exactly what it missed; Last-Event-IDs of other sessions and streams replay nothing; SSE polling with
// ctx.closeStream(); the standalone stream resumes too; event stores that are asynchronous or bounded.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { SseEvent } from '../../src/framing/sse.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/types.js';
import { type EventStore, MemoryEventStore, type StoredEvent } from '../../src/store/event-store.js';
import {
  callTool,
  initSession,
  isNotification,
  isResponse,
  openGet,
  openPost,
  paramsOf,
  parseSse,
  raw,
  resultText,
  Servers,
  type SseConnection,
  sleep,
  TEST_TIMEOUT,
  toolCall,
} from './helpers.js';

const servers = new Servers();
after(() => servers.closeAll());

const T = { timeout: TEST_TIMEOUT };

/** Resumes with GET + Last-Event-ID; retries while the server has not yet noticed the old connection is gone. */
async function resume(url: string, sessionId: string, lastEventId: string): Promise<SseConnection> {
  for (let attempt = 0; ; attempt++) {
    const conn = await openGet(url, sessionId, lastEventId);
    if (conn.status !== 409 || attempt >= 50) return conn;
    await conn.waitEnd();
    await sleep(20);
  }
}

/** The id of the last event that carried one. */
function lastId(events: readonly SseEvent[]): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const id = events[i]?.id;
    if (id !== undefined && id !== '') return id;
  }
  throw new Error('no event carried an id');
}

/** A compact label of a message, for comparing sequences. */
function label(m: JsonRpcMessage): string {
  if (!('method' in m)) return `response:${String(m.id)}`;
  if (m.method === 'notifications/progress') return `progress:${paramsOf<{ progress: number }>(m).progress}`;
  return m.method;
}

describe('a stream cut mid-response', () => {
  test(
    'resumed with GET + Last-Event-ID delivers exactly the missed events, then the response',
    T,
    async () => {
      const { url } = await servers.start();
      const { sessionId } = await initSession(url);
      const call = await openPost(
        url,
        sessionId,
        toolCall(1, 'slow_progress', { steps: 5, delayMs: 50 }, 'cut'),
      );
      assert.match(String(call.headers['content-type']), /^text\/event-stream/);
      await call.messagesAtLeast(2);
      call.cut();
      const before = [...call.events];
      const seen = call.messages.map(label);
      assert.ok(seen.length >= 2 && seen.length < 6, `cut mid-response (saw ${seen.join(', ')})`);

      const resumed = await resume(url, sessionId, lastId(before));
      assert.equal(resumed.status, 200);
      assert.match(String(resumed.headers['content-type']), /^text\/event-stream/);
      await resumed.waitEnd();
      const missed = resumed.messages.map(label);
      assert.deepEqual(
        [...seen, ...missed],
        ['progress:1', 'progress:2', 'progress:3', 'progress:4', 'progress:5', 'response:1'],
        'nothing lost, nothing duplicated, in order',
      );
      assert.equal(resultText(resumed.messages.find(isResponse(1))), 'done after 5 steps');
      assert.equal(resumed.complete, true, 'the resumed stream ends properly after the response');
    },
  );

  test('a resumed stream replays only its own events, not those of a concurrent stream', T, async () => {
    const { url, gates } = await servers.start();
    const { sessionId } = await initSession(url);
    // In 'auto' mode the reply's headers go out with the first progress: open the gates before awaiting them.
    const pendingA = openPost(url, sessionId, toolCall('a', 'gated', { key: 'a', steps: 2 }, 'ta'));
    const pendingB = openPost(url, sessionId, toolCall('b', 'gated', { key: 'b', steps: 2 }, 'tb'));
    await gates.arrived('a');
    await gates.arrived('b');
    gates.release('a');
    gates.release('b');
    const a = await pendingA;
    const b = await pendingB;
    await a.messagesAtLeast(1);
    await b.messagesAtLeast(1);
    a.cut();
    const lastA = lastId(a.events);
    gates.release('b', 2); // b: progress 2 and its answer, while a is disconnected
    gates.release('a'); // a: progress 2, kept for resumption
    await b.waitEnd();
    const resumed = await resume(url, sessionId, lastA);
    assert.equal(resumed.status, 200);
    gates.release('a'); // a's answer
    await resumed.waitEnd();
    assert.deepEqual(resumed.messages.map(label), ['progress:2', 'response:a']);
    for (const m of resumed.messages) {
      if ('method' in m) assert.equal(paramsOf<{ progressToken: string }>(m).progressToken, 'ta');
    }
  });

  test(
    'event ids are never reused in a session: a second cut right after resuming replays nothing twice',
    T,
    async () => {
      const { url, gates } = await servers.start();
      const { sessionId } = await initSession(url);
      const pending = openPost(url, sessionId, toolCall(1, 'gated', { key: 'g', steps: 3 }, 'tok'));
      await gates.arrived('g');
      gates.release('g', 2);
      const call = await pending;
      await call.messagesAtLeast(2);
      call.cut();
      const allIds = call.events.map((e) => e.id).filter((id) => id !== undefined);

      // Resume, and lose the connection again right after its first event (before anything new happened).
      const second = await resume(url, sessionId, lastId(call.events));
      assert.equal(second.status, 200);
      await second.next();
      second.cut();
      for (const e of second.events) if (e.id !== undefined) allIds.push(e.id);

      // A client resumes from the last id it saw on any connection (the SSE last-event-id buffer persists).
      const third = await resume(url, sessionId, lastId([...call.events, ...second.events]));
      assert.equal(third.status, 200);
      gates.release('g', 2); // progress 3 and the answer
      await third.waitEnd();
      for (const e of third.events) if (e.id !== undefined) allIds.push(e.id);
      const delivered = [...call.messages, ...second.messages, ...third.messages].map(label);
      assert.deepEqual(delivered, ['progress:1', 'progress:2', 'progress:3', 'response:1'], 'no duplicates');
      assert.equal(
        new Set(allIds).size,
        allIds.length,
        `event ids unique in the session: ${allIds.join(' ')}`,
      );
    },
  );
});

describe('Last-Event-IDs that are not this stream', () => {
  test('an id from another session is refused (4xx) and replays nothing of that session', T, async () => {
    const { url } = await servers.start();
    const a = await initSession(url);
    const b = await initSession(url);
    const res = await raw(url, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-session-id': a.sessionId,
      },
      body: toolCall(1, 'slow_progress', { steps: 3, delayMs: 5, tag: 'SECRET-A:' }, 'ta'),
    });
    const events = parseSse(res.body);
    const aId = lastId(events);
    const stolen = await openGet(url, b.sessionId, aId);
    await stolen.waitEnd().catch(() => stolen.cut());
    assert.ok(stolen.status >= 400 && stolen.status < 500, `refused, got ${stolen.status}`);
    assert.ok(!stolen.text.includes('SECRET-A'), 'nothing of session A is replayed');
    // Session B is unharmed.
    assert.equal((await callTool(url, b.sessionId, 2, 'echo', { text: 'b ok' })).text, 'echo: b ok');
  });

  test('an id from another session never replays that session, even where the ids collide', T, async () => {
    const { url } = await servers.start();
    const a = await initSession(url);
    const b = await initSession(url);
    const callA = await openPost(
      url,
      a.sessionId,
      toolCall(1, 'slow_progress', { steps: 4, delayMs: 5, tag: 'SECRET-A:' }, 'ta'),
    );
    await callA.waitEnd();
    const callB = await openPost(
      url,
      b.sessionId,
      toolCall(1, 'slow_progress', { steps: 4, delayMs: 5, tag: 'b:' }, 'tb'),
    );
    await callB.waitEnd();
    const aId = callA.events.find((e) => e.data !== '')?.id;
    assert.ok(aId);
    const replay = await openGet(url, b.sessionId, aId);
    await replay.waitEnd().catch(() => replay.cut());
    assert.ok(!replay.text.includes('SECRET-A'), 'no event of session A reaches session B');
  });

  test('a malformed or unknown Last-Event-ID is refused with 4xx', T, async () => {
    const { url } = await servers.start();
    const { sessionId } = await initSession(url);
    for (const id of ['garbage', '99.1', '', '1.999999']) {
      const conn = await openGet(url, sessionId, id === '' ? ' ' : id);
      conn.cut();
      assert.ok(
        conn.status >= 400 && conn.status < 500,
        `Last-Event-ID ${JSON.stringify(id)} answered ${conn.status}`,
      );
    }
  });

  test('after DELETE a Last-Event-ID of that session gets 404', T, async () => {
    const { url } = await servers.start();
    const { sessionId } = await initSession(url);
    const call = await openPost(url, sessionId, toolCall(1, 'slow_progress', { steps: 2, delayMs: 5 }, 't'));
    await call.waitEnd();
    const del = await raw(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    assert.equal(del.status, 200);
    const conn = await openGet(url, sessionId, lastId(call.events));
    conn.cut();
    assert.equal(conn.status, 404);
  });
});

describe('SSE polling (ctx.closeStream)', () => {
  test(
    'the POST stream has a priming event with retry and closes before the result; GET + Last-Event-ID delivers it',
    T,
    async () => {
      const { url } = await servers.start({ retryMs: 200 });
      const { sessionId } = await initSession(url);
      const call = await openPost(url, sessionId, toolCall(1, 'reconnect', { delayMs: 100 }));
      assert.equal(call.status, 200);
      assert.match(String(call.headers['content-type']), /^text\/event-stream/);
      await call.waitEnd();
      const first = call.events[0];
      assert.ok(first, 'a priming event');
      assert.ok(first.id !== undefined && first.id !== '', 'the priming event has an id');
      assert.equal(first.data, '');
      assert.equal(first.retry, 200);
      assert.ok(!call.messages.some(isResponse(1)), 'the result is not on the closed POST stream');

      await sleep(first.retry ?? 0); // the client waits `retry` ms, as it must
      const resumed = await resume(url, sessionId, lastId(call.events));
      assert.equal(resumed.status, 200);
      const response = await resumed.waitForMessage(isResponse(1), 'the tool result');
      assert.equal(resultText(response), 'reconnected');
      await resumed.waitEnd();
      assert.equal(resumed.messages.filter(isResponse(1)).length, 1);
    },
  );

  test(
    'a client that polls back before the result exists (after `retry` ms) is held open until the result comes',
    T,
    async () => {
      const { url } = await servers.start({ retryMs: 10 });
      const { sessionId } = await initSession(url);
      const call = await openPost(url, sessionId, toolCall(1, 'reconnect', { delayMs: 400 }));
      await call.waitEnd();
      const priming = call.events[0];
      assert.equal(priming?.retry, 10);
      await sleep(10);
      const resumed = await resume(url, sessionId, lastId(call.events));
      assert.equal(
        resumed.status,
        200,
        `resuming from the priming event answered ${resumed.status}: ${resumed.text}`,
      );
      const response = await resumed.waitForMessage(isResponse(1), 'the tool result');
      assert.equal(resultText(response), 'reconnected');
    },
  );

  test(
    'without an event store nothing promises a resumption: no priming, no ids, and the result on the open stream',
    T,
    async () => {
      const { url } = await servers.start({ eventStore: false, responseMode: 'sse', retryMs: 10 });
      const { sessionId } = await initSession(url);
      const call = await openPost(url, sessionId, toolCall(1, 'reconnect', { delayMs: 50 }));
      await call.waitEnd();
      assert.ok(call.messages.some(isResponse(1)), 'the result came on the POST stream');
      assert.deepEqual(
        call.events.filter((e) => e.id !== undefined || e.retry !== undefined),
        [],
        'no event id or retry interval',
      );
    },
  );

  test(
    'the standalone GET stream can be resumed from its priming event before anything was sent on it',
    T,
    async () => {
      const { url, target } = await servers.start();
      const { sessionId } = await initSession(url);
      const get = await openGet(url, sessionId);
      const priming = await get.next();
      get.cut();
      const resumed = await resume(url, sessionId, priming.id ?? '');
      assert.equal(resumed.status, 200, `answered ${resumed.status}: ${resumed.text}`);
      target.disable();
      await resumed.waitForMessage(isNotification('notifications/tools/list_changed'), 'list_changed');
      resumed.cut();
    },
  );
});

describe('the standalone GET stream', () => {
  test('notifications sent while it was disconnected are replayed on resumption, once', T, async () => {
    const { url, target } = await servers.start();
    const { sessionId } = await initSession(url);
    const get = await openGet(url, sessionId);
    await get.next();
    target.disable();
    await get.waitForMessage(isNotification('notifications/tools/list_changed'), 'first list_changed');
    get.cut();
    const last = lastId(get.events);
    await sleep(20);
    target.enable(); // sent while nobody listens: kept for resumption
    const other = await initSession(url); // a barrier: the change has been flushed by now
    assert.ok(other.sessionId);
    const resumed = await resume(url, sessionId, last);
    assert.equal(resumed.status, 200);
    await resumed.messagesAtLeast(1);
    await callTool(url, sessionId, 1, 'echo', { text: 'barrier' });
    assert.deepEqual(resumed.messages.map(label), ['notifications/tools/list_changed']);
    assert.ok(!resumed.messages.some((m) => !('method' in m)), 'no response on the GET stream');
    resumed.cut();
  });
});

/** An event store that records asynchronously (as a networked store would), delegating to the memory store. */
class AsyncEventStore implements EventStore {
  readonly inner = new MemoryEventStore();
  append(sessionKey: string, streamId: string, message: JsonRpcMessage): Promise<string> {
    return new Promise((resolve) =>
      setImmediate(() => resolve(this.inner.append(sessionKey, streamId, message))),
    );
  }
  streamOf(eventId: string): string | undefined {
    return this.inner.streamOf(eventId);
  }
  async replayAfter(sessionKey: string, eventId: string): Promise<StoredEvent[] | undefined> {
    await new Promise((resolve) => setImmediate(resolve));
    return this.inner.replayAfter(sessionKey, eventId);
  }
  async dropSession(sessionKey: string): Promise<void> {
    this.inner.dropSession(sessionKey);
  }
}

/** A memory store whose replay is read at once but delivered only when the test says so (a slow network store). */
class SlowReplayStore implements EventStore {
  readonly inner = new MemoryEventStore();
  readonly replayStarted: Promise<void>;
  #started!: () => void;
  #finish!: () => void;
  readonly #finished = new Promise<void>((resolve) => {
    this.#finish = resolve;
  });
  constructor() {
    this.replayStarted = new Promise((resolve) => {
      this.#started = resolve;
    });
  }
  finishReplay(): void {
    this.#finish();
  }
  append(sessionKey: string, streamId: string, message: JsonRpcMessage): string {
    return this.inner.append(sessionKey, streamId, message);
  }
  streamOf(eventId: string): string | undefined {
    return this.inner.streamOf(eventId);
  }
  async replayAfter(sessionKey: string, eventId: string): Promise<StoredEvent[] | undefined> {
    const snapshot = this.inner.replayAfter(sessionKey, eventId);
    this.#started();
    await this.#finished;
    return snapshot;
  }
  dropSession(sessionKey: string): void {
    this.inner.dropSession(sessionKey);
  }
}

/** A memory store that records which of its methods the transport called, per stream. */
class CallLog implements EventStore {
  readonly inner = new MemoryEventStore();
  readonly calls = new Map<string, string[]>();
  appendLast(
    sessionKey: string,
    streamId: string,
    message: JsonRpcMessage,
    size?: number,
    data?: string,
  ): string {
    this.#log(streamId, 'appendLast');
    return this.inner.appendLast(sessionKey, streamId, message, size, data);
  }
  #log(streamId: string, call: string): void {
    this.calls.set(streamId, [...(this.calls.get(streamId) ?? []), call]);
  }
  append(
    sessionKey: string,
    streamId: string,
    message: JsonRpcMessage,
    size?: number,
    data?: string,
  ): string {
    this.#log(streamId, 'append');
    return this.inner.append(sessionKey, streamId, message, size, data);
  }
  streamEnded(sessionKey: string, streamId: string): void {
    this.#log(streamId, 'streamEnded');
    this.inner.streamEnded(sessionKey, streamId);
  }
  streamOf(eventId: string): string | undefined {
    return this.inner.streamOf(eventId);
  }
  replayAfter(sessionKey: string, eventId: string): StoredEvent[] | undefined {
    return this.inner.replayAfter(sessionKey, eventId);
  }
  dropSession(sessionKey: string): void {
    this.inner.dropSession(sessionKey);
  }
}

describe('event stores', () => {
  test(
    "a stream's last event and its end are recorded in one step by a store that has appendLast, else in two",
    T,
    async () => {
      for (const last of [true, false]) {
        const store = new CallLog();
        // Without appendLast: the store's other methods only.
        const eventStore: EventStore = last
          ? store
          : {
              append: (...a) => store.append(...a),
              streamEnded: (...a) => store.streamEnded(...a),
              streamOf: (...a) => store.streamOf(...a),
              replayAfter: (...a) => store.replayAfter(...a),
              dropSession: (...a) => store.dropSession(...a),
            };
        const { url } = await servers.start({ responseMode: 'sse', eventStore });
        const { sessionId } = await initSession(url);
        const echo = await openPost(url, sessionId, toolCall(1, 'echo', { text: 'one' }));
        await echo.waitEnd();
        const progress = await openPost(
          url,
          sessionId,
          toolCall(2, 'slow_progress', { steps: 2, delayMs: 1 }, 'tok'),
        );
        await progress.waitEnd();
        const streamOf = (events: readonly SseEvent[]) => store.streamOf(lastId(events)) as string;
        const end = last ? ['appendLast'] : ['append', 'streamEnded'];
        assert.deepEqual(store.calls.get(streamOf(echo.events)), end, `appendLast: ${last}`);
        assert.deepEqual(
          store.calls.get(streamOf(progress.events)),
          ['append', 'append', ...end],
          `appendLast: ${last}`,
        );
        // Either way the ended streams replay whole from their priming ids.
        for (const call of [echo, progress]) {
          const resumed = await resume(url, sessionId, `${streamOf(call.events)}.0`);
          await resumed.waitEnd();
          assert.deepEqual(resumed.messages, call.messages, `appendLast: ${last}`);
        }
      }
    },
  );

  test('with an asynchronous event store the response still arrives on the live POST stream', T, async () => {
    const { url } = await servers.start({ eventStore: new AsyncEventStore() });
    const { sessionId } = await initSession(url);
    const call = await openPost(
      url,
      sessionId,
      toolCall(1, 'slow_progress', { steps: 2, delayMs: 5 }, 'tok'),
    );
    await call.waitEnd();
    assert.deepEqual(call.messages.map(label), ['progress:1', 'progress:2', 'response:1']);
  });

  test('events sent while a resumption is still reading the store are not lost', T, async () => {
    const store = new SlowReplayStore();
    const { url, gates } = await servers.start({ eventStore: store });
    const { sessionId } = await initSession(url);
    const pending = openPost(url, sessionId, toolCall(1, 'gated', { key: 'g', steps: 3 }, 'tok'));
    await gates.arrived('g');
    gates.release('g');
    const call = await pending;
    await call.messagesAtLeast(1);
    call.cut();
    await sleep(100); // the server notices the closed connection
    const resuming = openGet(url, sessionId, lastId(call.events));
    await store.replayStarted;
    gates.release('g'); // progress 2, recorded while the replay is in flight
    await gates.arrived('g', 3);
    store.finishReplay();
    const resumed = await resuming;
    assert.equal(resumed.status, 200);
    gates.release('g', 2); // progress 3 and the answer
    await resumed.waitEnd();
    assert.deepEqual(resumed.messages.map(label), ['progress:2', 'progress:3', 'response:1']);
  });

  test(
    'when the store has dropped events the client missed, resumption is refused rather than silently skipping them',
    T,
    async () => {
      const { url, gates } = await servers.start({
        eventStore: new MemoryEventStore({ maxEventsPerStream: 2 }),
      });
      const { sessionId } = await initSession(url);
      const pending = openPost(url, sessionId, toolCall(1, 'gated', { key: 'g', steps: 5 }, 'tok'));
      await gates.arrived('g');
      gates.release('g');
      const call = await pending;
      await call.messagesAtLeast(1);
      call.cut();
      const last = lastId(call.events);
      await sleep(20);
      gates.release('g', 4); // progress 2..5; only the newest two stay in the store
      await gates.arrived('g', 6);
      const resumed = await resume(url, sessionId, last);
      gates.release('g'); // the answer
      if (resumed.status === 200) {
        await resumed.waitEnd();
        assert.deepEqual(
          resumed.messages.map(label),
          ['progress:2', 'progress:3', 'progress:4', 'progress:5', 'response:1'],
          'a replay must not have a gap',
        );
      } else {
        resumed.cut();
        assert.ok(resumed.status >= 400 && resumed.status < 500);
      }
    },
  );

  test(
    'a live stream stays resumable while many newer streams come and go (its ids are never reused)',
    T,
    async () => {
      const { url, gates } = await servers.start({
        responseMode: 'sse',
        eventStore: new MemoryEventStore({ maxStreamsPerSession: 3 }),
      });
      const { sessionId } = await initSession(url);
      const pending = openPost(url, sessionId, toolCall(1, 'gated', { key: 'g', steps: 3 }, 'tok'));
      await gates.arrived('g');
      gates.release('g', 2);
      const call = await pending;
      await call.messagesAtLeast(2);
      call.cut();
      const seenIds = call.events.map((e) => e.id);
      const last = lastId(call.events);
      for (let i = 0; i < 4; i++) {
        assert.equal(
          (await callTool(url, sessionId, 100 + i, 'echo', { text: `n${i}` })).text,
          `echo: n${i}`,
        );
      }
      const resumed = await resume(url, sessionId, last);
      assert.equal(resumed.status, 200, `resumption answered ${resumed.status}: ${resumed.text}`);
      gates.release('g', 2); // progress 3 and the answer
      await resumed.waitEnd();
      assert.deepEqual(resumed.messages.map(label), ['progress:3', 'response:1']);
      for (const e of resumed.events) {
        if (e.data !== '') assert.ok(!seenIds.includes(e.id), `event id ${String(e.id)} was used before`);
      }
    },
  );
});
