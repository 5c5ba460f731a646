// A listen stream (2026-07-28) whose connection drops is opened again: the client re-subscribes with backoff, the
// server holds one live subscription again, and changes reach the client's callbacks after the drop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { serve } from '../../src/node.js';
import { McpServer } from '../../src/server/server.js';
import type { Tool } from '../../src/spec/types.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';
import { eventually, sleep } from './mock-server.js';

/** How long a reconnection may take on a loaded machine. */
const WAIT_MS = 8_000;

test('a dropped subscriptions/listen connection is re-subscribed and changes arrive again', async () => {
  const server = new McpServer(
    { name: 'listen', version: '1' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.tool('first', {}, () => 'x');
  const running = await serve(server, { legacySse: false });
  // A fetch that can cut the body of each listen response, as a dropped connection would.
  const drops: (() => void)[] = [];
  let listens = 0;
  const cuttable = async (url: URL, init: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    if (typeof init.body !== 'string' || !init.body.includes('"subscriptions/listen"') || !response.body) {
      return response;
    }
    listens++;
    const reader = response.body.getReader();
    let control!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        control = c;
      },
      async pull(c) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done) c.close();
        else c.enqueue(chunk.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    drops.push(() => {
      control.error(new Error('connection dropped'));
      void reader.cancel().catch(() => undefined);
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const changed: (Tool[] | undefined)[] = [];
  const client = new Client(
    { name: 'listener', version: '1' },
    { era: 'stateless', onToolsChanged: (tools) => changed.push(tools), onerror: () => {} },
  );
  try {
    await client.connect(new StreamableHttpClientTransport(running.url, { fetch: cuttable }));
    // The server may register the subscription before the client's fetch has its response headers.
    await eventually(() => server.subscriptions.size === 1 && listens > 0, 'the first subscription', WAIT_MS);
    assert.equal(listens, 1);
    drops[0]?.();
    await eventually(() => listens === 2, 'a second subscriptions/listen', WAIT_MS);
    await eventually(
      () => server.subscriptions.size === 1 && drops.length === 2,
      'one live subscription again',
      WAIT_MS,
    );
    // Changes reach the client through the new stream (keep changing until one is heard: it may still be opening).
    for (let n = 0; changed.length === 0 && n < 80; n++) {
      server.tool(`added_${n}`, {}, () => 'y');
      await sleep(100);
    }
    assert.ok(changed.length > 0, 'list_changed arrived after the re-subscription');
  } finally {
    await client.close();
    await running.close();
  }
});
