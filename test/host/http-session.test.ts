// An HTTP session that expires under the host: a stateful server (the official SDK's, as 2025-era servers are) ends
// its sessions and answers the old session id with 404, as the spec says. The next call still succeeds: the
// host's transport starts a new session (initialize again) and re-sends; the server stays ready.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Host } from '../../src/host.js';
import { type ExpiringServer, startExpiringServer } from './fixtures/expiring-http.js';
import { text } from './helpers.js';

test('an expired HTTP session is renewed: the host initializes again and the call succeeds', async () => {
  const upstream: ExpiringServer = await startExpiringServer();
  const host = new Host(
    [
      {
        name: 'web',
        transport: { type: 'http', url: upstream.url, headers: {} },
        disabled: false,
        trusted: false,
        approval: { default: 'allow' },
        source: { file: 'test', format: 'mcpkit' },
      },
    ],
    {},
  );
  const states: string[] = [];
  host.on('state', (s) => states.push(s.state));
  try {
    await host.start();
    assert.equal(host.server('web')?.state, 'ready', host.server('web')?.reason);
    assert.equal(host.clientOf('web')?.era, 'stateful', 'a session-based connection');
    assert.equal(text(await host.callTool('web__echo', { text: 'one' })), 'echo: one');
    assert.equal(upstream.started, 1);

    await upstream.expire();
    const result = await host.callTool('web__echo', { text: 'two' });
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.equal(text(result), 'echo: two');
    assert.equal(upstream.started, 2, 'the host initialized a new session');
    assert.equal(host.server('web')?.state, 'ready');
    assert.equal(text(await host.callTool('web__echo', { text: 'three' })), 'echo: three');
    // Expired again, while idle: still renewed on the next call, and the server never left `ready`.
    await upstream.expire();
    // Give the lost GET stream time to meet its 404 before the next call.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(text(await host.callTool('web__echo', { text: 'four' })), 'echo: four');
    assert.deepEqual(
      states.filter((s) => s !== 'starting'),
      ['ready'],
    );
  } finally {
    await host.close();
    await upstream.close();
  }
});
