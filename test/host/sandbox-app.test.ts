// The sandbox through the Host API: a host-wide default (`HostOptions.sandbox`) sandboxes the stdio servers that set
// none; an app's own transport cannot be sandboxed, so a server configured sandboxed on one fails (never runs
// unsandboxed) while the host-wide default leaves it shown as not sandboxed; a bad setting is refused at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEverythingServer } from '../../examples/everything/everything.js';
import { Host } from '../../src/host.js';
import { createLinkedTransports, type Transport } from '../../src/index.js';
import { alive, oddServer } from './helpers.js';

function inProcess(): Transport {
  const [clientSide, serverSide] = createLinkedTransports();
  void createEverythingServer().connect(serverSide);
  return clientSide;
}

test('HostOptions.sandbox: stdio servers that set none run sandboxed; their own false wins', async () => {
  const host = new Host([oddServer('boxed'), oddServer('mine', [], { sandbox: false })], { sandbox: true });
  try {
    const [boxed, mine] = await host.start();
    assert.equal(boxed?.state, 'ready', boxed?.reason);
    assert.equal(boxed?.sandbox?.sandboxed, true);
    assert.equal(mine?.sandbox?.sandboxed, false);
  } finally {
    const pids = host.servers.map((s) => host.pidOf(s.name));
    await host.close();
    for (const pid of pids) if (pid !== undefined) assert.equal(alive(pid), false);
  }
});

test('an app’s own transport: a server configured sandboxed fails; under the default it runs, shown unsandboxed', async () => {
  const host = new Host([oddServer('own', [], { sandbox: true }), oddServer('app')], {
    sandbox: true,
    transportFor: () => inProcess(),
  });
  try {
    const [own, app] = await host.start();
    assert.equal(own?.state, 'failed');
    assert.match(
      own?.reason ?? '',
      /configured sandboxed, but the app gives its own transport, which mcpkit cannot sandbox/,
    );
    assert.equal(app?.state, 'ready');
    assert.deepEqual(app?.sandbox, {
      sandboxed: false,
      summary: 'not sandboxed (the app gives its own transport)',
    });
  } finally {
    await host.close();
  }
});

test('a bad sandbox setting is refused: the host-wide one at construction, a server’s one as that server’s failure', async () => {
  assert.throws(
    () => new Host([], { sandbox: { read: ['relative'] } }),
    /The host's sandbox, read\[0\]: "relative" is relative/,
  );
  const host = new Host([oddServer('bad', [], { sandbox: { write: ['/'] } })]);
  try {
    const [bad] = await host.start();
    assert.equal(bad?.state, 'failed');
    assert.match(bad?.reason ?? '', /the sandbox of "bad", write\[0\]: "\/" is the whole file system/);
    assert.equal(host.pidOf('bad'), undefined, 'nothing was spawned');
  } finally {
    await host.close();
  }
});
