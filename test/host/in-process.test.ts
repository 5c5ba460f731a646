// transportFor: a server of the app's own, in-process over the in-memory transport, in the same registry and
// under the same approval and log as the configured ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEverythingServer } from '../../examples/everything/everything.js';
import { Host } from '../../src/host.js';
import { createLinkedTransports } from '../../src/index.js';
import { text } from './helpers.js';

test('an in-process server through transportFor is routed, approved and logged like any other', async () => {
  const server = createEverythingServer();
  const host = new Host(
    [
      {
        name: 'inproc',
        transport: { type: 'stdio', command: 'never-spawned', args: [], env: {}, namedEnv: [] },
        disabled: false,
        trusted: false,
        approval: { tools: { echo: 'allow' } },
        source: { file: 'test', format: 'mcpkit' },
      },
    ],
    {
      transportFor: () => {
        const [clientSide, serverSide] = createLinkedTransports();
        void server.connect(serverSide);
        return clientSide;
      },
    },
  );
  try {
    await host.start();
    assert.equal(host.server('inproc')?.state, 'ready', host.server('inproc')?.reason);
    assert.equal(text(await host.callTool('inproc__echo', { text: 'here' })), 'echo: here');
    const other = host.tools().find((t) => t.name !== 'inproc__echo');
    assert.ok(other);
    const denied = await host.callTool(other.name, {});
    assert.match(text(denied), /no one is there to approve it/);
    assert.ok(
      host.log.entries().some((e) => e.kind === 'tool' && e.name === 'inproc__echo' && e.outcome === 'ok'),
    );
  } finally {
    await host.close();
  }
});
