// A client that only listens must not go deaf when the server ends its session (idle expiry, eviction): the
// standalone GET stream's 404 starts a new session (and a new GET stream), and server notifications arrive again.
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

test('a session ended by the server under the standalone GET stream is renewed, and notifications arrive again', async () => {
  const server = new McpServer(
    { name: 'renewal', version: '1' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.tool('first', {}, () => 'x');
  const running = await serve(server, { legacySse: false, retryMs: 20 });
  const transport = new StreamableHttpClientTransport(running.url);
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
    // A notification reaches a session only once its GET stream is attached: keep changing the list until one does.
    const changeUntilHeard = async (prefix: string) => {
      changed.length = 0;
      for (let n = 0; changed.length === 0 && n < 80; n++) {
        server.tool(`${prefix}_${n}`, {}, () => 'y');
        await sleep(100);
      }
      assert.ok(changed.length > 0, `list_changed (${prefix}) arrived on the GET stream`);
    };
    await changeUntilHeard('before');
    // The server ends the session (as idle expiry or eviction would): its GET stream ends, its id gets 404.
    const session = [...server.sessions].find((s) => s.id === first);
    assert.ok(session);
    await session.close();
    await eventually(
      () => transport.sessionId !== undefined && transport.sessionId !== first,
      'a new session',
      WAIT_MS,
    );
    await changeUntilHeard('after');
    assert.ok(changed.at(-1)?.some((t) => t.name === 'after_0'));
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
    await running.close();
  }
});
