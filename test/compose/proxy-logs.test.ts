// Log routing through the proxy (review finding M4): a log message the server behind relates to a forwarded request
// reaches only the client whose request it was, at that client's log level (logging/setLevel per session, the
// request's logLevel in the stateless revision), with several calls in flight at once; one related to no request
// goes to every stateful session whose level it meets, never to the one caller in flight. The server behind is in
// memory or over Streamable HTTP, in each era; the proxy's clients are in memory (stateful) and over HTTP (both
// eras).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  Client,
  type ClientOptions,
  createProxy,
  HttpClientTransport,
  McpServer,
  type ProxyServer,
} from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { connectInMemory, createLinkedTransports } from '../../src/testing.js';
import { eventually } from '../eras/helpers.js';

type Era = 'stateful' | 'stateless';

/** A server whose tool `chatty` logs who called it (info, then warning) once `expected` calls are all running. */
function chattyServer(expected: number) {
  const server = new McpServer(
    { name: 'chatty', version: '1.0.0' },
    { capabilities: { tools: {}, logging: {} } },
  );
  let running = 0;
  let release: () => void = () => {};
  const together = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.tool(
    'chatty',
    { inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] } },
    async (args: Record<string, unknown>, ctx) => {
      if (++running >= expected) release();
      await together;
      await ctx.log('info', `info for ${String(args.who)}`);
      await ctx.log('warning', `warning for ${String(args.who)}`);
      return `done for ${String(args.who)}`;
    },
  );
  return server;
}

async function proxyBehind(server: McpServer, era: Era, over: 'memory' | 'http') {
  if (over === 'memory') {
    const [clientSide, serverSide] = createLinkedTransports();
    await server.connect(serverSide);
    return { proxy: await createProxy(clientSide, { era, onerror: () => {} }), close: async () => {} };
  }
  const http = await serve(server, { port: 0, host: '127.0.0.1' });
  return { proxy: await createProxy(http.url, { era, onerror: () => {} }), close: () => http.close() };
}

/** A client of the proxy recording the log data it gets. */
async function logged(proxy: ProxyServer, over: 'memory' | Era, url?: URL | string) {
  const logs: string[] = [];
  const options: ClientOptions = { onlog: (l) => logs.push(String(l.data)) };
  if (over === 'memory') return { client: (await connectInMemory(proxy, options)).client, logs };
  const client = new Client({ name: over, version: '1.0.0' }, { ...options, era: over });
  await client.connect(new HttpClientTransport(url ?? ''));
  return { client, logs };
}

for (const behind of ['stateful', 'stateless'] as const)
  for (const over of ['memory', 'http'] as const)
    describe(`log routing through the proxy (${behind} server behind it, ${over})`, () => {
      test('concurrent calls: each client gets only the log messages of its own call, at its own level', async () => {
        const server = chattyServer(3);
        const { proxy, close } = await proxyBehind(server, behind, over);
        const http: RunningServer = await serve(proxy, { port: 0, host: '127.0.0.1' });
        const first = await logged(proxy, 'memory');
        const second = await logged(proxy, 'memory');
        const third = await logged(proxy, 'stateless', http.url);
        try {
          await first.client.setLoggingLevel('warning');
          const results = await Promise.all([
            first.client.callTool('chatty', { who: 'first' }),
            second.client.callTool('chatty', { who: 'second' }),
            third.client.callTool('chatty', { who: 'third' }),
          ]);
          assert.equal(results.length, 3);
          await eventually(() => second.logs.length >= 2 && third.logs.length >= 2, 'the log messages');
          assert.deepEqual(first.logs, ['warning for first']);
          assert.deepEqual(second.logs, ['info for second', 'warning for second']);
          assert.deepEqual(third.logs, ['info for third', 'warning for third']);
        } finally {
          await Promise.all([first, second, third].map((c) => c.client.close()));
          await http.close();
          await proxy.close();
          await close();
          await server.close();
        }
      });
    });

describe('a log message the server behind relates to no request', () => {
  test('goes to every stateful session at its level, not to the one caller in flight', async () => {
    const server = new McpServer(
      { name: 'behind', version: '1.0.0' },
      { capabilities: { tools: {}, logging: {} } },
    );
    let entered: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    server.tool('wait', {}, async () => {
      entered();
      await finished;
      return 'done';
    });
    const [clientSide, serverSide] = createLinkedTransports();
    const session = await server.connect(serverSide);
    const proxy = await createProxy(clientSide, { era: 'stateful', onerror: () => {} });
    const caller = await logged(proxy, 'memory');
    const watcher = await logged(proxy, 'memory');
    const quiet = await logged(proxy, 'memory');
    try {
      await quiet.client.setLoggingLevel('error');
      const call = caller.client.callTool('wait');
      await running;
      // The server's own message, on no request's behalf (as a stdio server's every message is).
      await session.notify('notifications/message', { level: 'warning', data: 'the server itself' });
      await eventually(
        () => caller.logs.length > 0 && watcher.logs.length > 0,
        'the message at both sessions at its level',
      );
      finish();
      await call;
      assert.deepEqual(caller.logs, ['the server itself']);
      assert.deepEqual(watcher.logs, ['the server itself']);
      assert.deepEqual(quiet.logs, []);
    } finally {
      finish();
      await Promise.all([caller, watcher, quiet].map((c) => c.client.close()));
      await proxy.close();
      await server.close();
    }
  });
});
