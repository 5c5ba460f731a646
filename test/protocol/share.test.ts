import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../../src/client/client.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/types.js';
import { McpServer } from '../../src/server/server.js';
import type { ProgressParams } from '../../src/spec/types.js';
import { createLinkedTransports } from '../../src/transport/memory.js';
import { shareTransport } from '../../src/transport/share.js';

/** A server behind one linked pair, whose upstream end is shared; what the server received is recorded. */
async function sharedServer() {
  const server = new McpServer({ name: 'shared', version: '1.0.0' });
  server.tool('ask', { description: 'samples and says who answered' }, async (_args, ctx) => {
    await ctx.progress(1, 2, 'asking');
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'who?' } }],
      maxTokens: 5,
    });
    const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return content?.type === 'text' ? content.text : '?';
  });
  const [up, down] = createLinkedTransports();
  const received: JsonRpcMessage[] = [];
  const send = up.send.bind(up);
  up.send = (m, o) => {
    received.push(...(Array.isArray(m) ? m : [m]));
    return send(m, o);
  };
  await server.connect(down);
  return { shared: shareTransport(up), received };
}

function client(name: string) {
  return new Client(
    { name, version: '1.0.0' },
    {
      era: 'stateful',
      sampling: () => ({
        role: 'assistant',
        content: { type: 'text', text: name },
        model: 'm',
        stopReason: 'endTurn',
      }),
      onerror: () => undefined,
    },
  );
}

test('two clients on one upstream: ids renumbered, initialize once, server requests and progress to the asker', async () => {
  const { shared, received } = await sharedServer();
  const progressA: ProgressParams[] = [];
  const progressB: ProgressParams[] = [];
  const a = client('alice');
  const b = client('bob');
  await a.connect(shared.channel());
  await b.connect(shared.channel());
  assert.equal(shared.channels, 2);
  assert.equal(
    received.filter((m) => 'method' in m && m.method === 'initialize').length,
    1,
    'initialized once',
  );
  assert.equal(b.serverInfo?.name, 'shared', 'the second client got the cached initialize result');
  const first = await a.callTool('ask', {}, { onprogress: (p) => progressA.push(p) });
  const second = await b.callTool('ask', {}, { onprogress: (p) => progressB.push(p) });
  assert.deepEqual(first.content, [{ type: 'text', text: 'alice' }]);
  assert.deepEqual(second.content, [{ type: 'text', text: 'bob' }]);
  assert.equal(progressA.length, 1);
  assert.equal(progressB.length, 1);
  const ids = received.filter((m) => 'method' in m && 'id' in m).map((m) => (m as { id: unknown }).id);
  assert.equal(new Set(ids).size, ids.length, `every request id upstream is distinct: ${ids.join(',')}`);
  await a.close();
  assert.equal(shared.channels, 1);
  assert.equal((await b.listTools()).length, 1, 'the other client goes on');
  await shared.close();
  assert.equal(shared.closed, true);
});
