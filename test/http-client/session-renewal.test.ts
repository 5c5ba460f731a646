// A client that only listens must not go deaf when the server expires its session: the standalone GET stream's 404
// starts a new session (and a new GET stream), and server notifications arrive again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { serve } from '../../src/node.js';
import { McpServer } from '../../src/server/server.js';
import type { Tool } from '../../src/spec/types.js';
import { StreamableHttpClientTransport } from '../../src/transport/streamable-http-client.js';
import { sleep } from './mock-server.js';

async function eventually(check: () => boolean, what: string, ms = 8_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('a session expired under the standalone GET stream is renewed, and notifications arrive again', async () => {
  const server = new McpServer(
    { name: 'renewal', version: '1' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.tool('first', {}, () => 'x');
  const running = await serve(server, { sessionIdleTimeoutMs: 300, legacySse: false });
  const transport = new StreamableHttpClientTransport(running.url, { reconnect: { initialDelayMs: 20 } });
  const changed: (Tool[] | undefined)[] = [];
  const errors: Error[] = [];
  const client = new Client(
    { name: 'listener', version: '1' },
    { era: 'stateful', onToolsChanged: (tools) => changed.push(tools), onerror: (e) => errors.push(e) },
  );
  try {
    await client.connect(transport);
    const first = transport.sessionId;
    assert.ok(first);
    await eventually(
      () => transport.sessionId !== undefined && transport.sessionId !== first,
      'a new session',
    );
    await eventually(() => running.streamable.sessionCount === 1, 'the new session alone on the server');
    server.tool('second', {}, () => 'y');
    await eventually(() => changed.length > 0, 'list_changed on the new GET stream');
    assert.deepEqual(
      changed.at(-1)?.map((t) => t.name),
      ['first', 'second'],
    );
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
    await running.close();
  }
});
