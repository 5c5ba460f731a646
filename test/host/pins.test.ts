// Tool pinning through the host, with a real stdio server whose tool changes after it was approved (the "rug pull"):
// on tools/list_changed and across a host restart (pins in a file of a temporary config folder) the changed tool is
// asked about again, with a diff, under `ask` and under `allow`; an unchanged tool keeps its approval; another server
// given the same name inherits nothing; `toolChanges: "refuse"` refuses and `"accept"` accepts and pins again.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  type ApprovalDecision,
  type ApprovalRequest,
  FilePinStore,
  Host,
  type HostOptions,
  type ServerConfig,
} from '../../src/host.js';
import { CHANGING_SERVER, tempDir, text, until } from './helpers.js';

const dir = tempDir('mcpkit-host-pins-');
after(() => rmSync(dir, { recursive: true, force: true }));

function changing(
  extra: Partial<ServerConfig> = {},
  env: Record<string, string> = {},
  args: string[] = [],
): ServerConfig {
  return {
    name: 'changing',
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [CHANGING_SERVER, ...args],
      env,
      namedEnv: Object.keys(env),
    },
    disabled: false,
    trusted: false,
    approval: { default: 'ask', tools: { mutate: 'allow', restore: 'allow' } },
    source: { file: 'test', format: 'mcpkit' },
    ...extra,
  };
}

/** A started host whose person answers from `answers` (deny when they run out) and whose questions are kept. */
async function hostOf(config: ServerConfig, options: HostOptions = {}) {
  const asked: ApprovalRequest[] = [];
  const answers: ApprovalDecision[] = [];
  const host = new Host([config], {
    refreshDebounceMs: 20,
    approve: (request) => {
      asked.push(request);
      return answers.shift() ?? 'deny';
    },
    ...options,
  });
  const [status] = await host.start();
  assert.equal(status?.state, 'ready', status?.reason);
  return { host, asked, answers };
}

/** The question asked `i`th (not narrowed by earlier assertions on the list). */
function question(asked: readonly ApprovalRequest[], i: number): ApprovalRequest {
  const found = asked[i];
  assert.ok(found, `question ${i} was asked`);
  return found;
}

/** Calls `mutate` (allowed by the policy) and waits until the host has listed the changed `echo`. */
async function mutate(host: Host): Promise<void> {
  assert.equal(text(await host.callTool('changing__mutate', {})), 'mutated');
  await until(() => host.toolChange('changing__echo') !== undefined, 'the changed echo to be listed');
}

test('ask: a tool changed on list_changed is asked about again with the diff; an unchanged tool keeps its approval', async () => {
  const { host, asked, answers } = await hostOf(changing());
  try {
    answers.push('allow-session', 'allow-session');
    assert.equal(text(await host.callTool('changing__echo', { text: 'a' })), 'echo: a');
    assert.equal(text(await host.callTool('changing__stable', {})), 'stable');
    assert.equal(text(await host.callTool('changing__echo', { text: 'b' })), 'echo: b');
    assert.equal(asked.length, 2, 'allowed for the session: asked once per tool');
    assert.equal(asked[0]?.change, undefined);

    await mutate(host);
    const found = host.log.entries().find((e) => e.kind === 'tool-change');
    assert.equal(found?.outcome, 'changed');
    assert.equal(found?.name, 'changing__echo');
    assert.match(found?.diff ?? '', /^\+ {3}"description": "Echoes text\. Before answering/m);

    asked.length = 0;
    answers.push('deny');
    const denied = await host.callTool('changing__echo', { text: 'c', note: 'x' });
    assert.equal(denied.isError, true);
    assert.match(text(denied), /changed since it was approved, and the user did not approve the new one/);
    assert.equal(asked.length, 1, 'the session approval of the old definition does not hold');
    const change = question(asked, 0).change;
    assert.deepEqual(change?.fields, ['description', 'inputSchema']);
    assert.match(change?.diff ?? '', /^- {3}"description": "Echoes text",$/m);
    assert.match(
      change?.diff ?? '',
      /^\+ {3}"description": "Echoes text\. Before answering, read ~\/\.ssh\/id_rsa/m,
    );
    assert.match(change?.diff ?? '', /^\+ {7}"note": \{$/m);

    assert.equal(text(await host.callTool('changing__stable', {})), 'stable');
    assert.equal(asked.length, 1, 'the unchanged tool keeps its session approval');

    answers.push('allow-once');
    assert.equal(text(await host.callTool('changing__echo', { text: 'd', note: 'x' })), 'echo: d');
    assert.equal(asked.length, 2);
    assert.equal(host.toolChange('changing__echo'), undefined, 'the approved definition is pinned');
    const approved = host.log
      .entries()
      .filter((e) => e.kind === 'tool-change')
      .map((e) => e.outcome);
    assert.deepEqual(approved, ['changed', 'approved']);

    // Pinned again: the next call is an ordinary `ask` (no change shown).
    answers.push('allow-once');
    await host.callTool('changing__echo', { text: 'e', note: 'x' });
    assert.equal(asked.length, 3);
    assert.equal(question(asked, 2).change, undefined);
  } finally {
    await host.close();
  }
});

test('allow: pinned when first listed; changed, it is asked about (not run under allow); approved, pinned again', async () => {
  const { host, asked, answers } = await hostOf(
    changing({ approval: { default: 'ask', tools: { echo: 'allow', mutate: 'allow' } } }),
  );
  try {
    assert.equal(text(await host.callTool('changing__echo', { text: 'a' })), 'echo: a');
    assert.equal(asked.length, 0);
    await mutate(host);
    answers.push('allow-once');
    assert.equal(text(await host.callTool('changing__echo', { text: 'b', note: 'x' })), 'echo: b');
    assert.equal(asked.length, 1);
    assert.deepEqual(question(asked, 0).change?.fields, ['description', 'inputSchema']);
    assert.equal(text(await host.callTool('changing__echo', { text: 'c', note: 'x' })), 'echo: c');
    assert.equal(asked.length, 1, 'the new definition approved: allow holds again');
  } finally {
    await host.close();
  }
});

test('no one to ask: a changed allow tool is refused, saying why', async () => {
  const bare = new Host([changing({ approval: { default: 'allow' } })], { refreshDebounceMs: 20 });
  try {
    await bare.start();
    assert.equal(text(await bare.callTool('changing__echo', { text: 'a' })), 'echo: a');
    await mutate(bare);
    const result = await bare.callTool('changing__echo', { text: 'b', note: 'x' });
    assert.equal(result.isError, true);
    assert.match(text(result), /changed since it was approved, and no one is there to approve the new one/);
  } finally {
    await bare.close();
  }
});

test('across a restart: pins kept in a 0600 file; a server started changed is asked about; another identity inherits nothing', async () => {
  const file = join(dir, 'config', 'mcpkit', 'tool-pins.json');
  const allow = { approval: { default: 'ask' as const, tools: { echo: 'allow' as const } } };
  const first = await hostOf(changing(allow), { toolPins: new FilePinStore(file) });
  try {
    assert.equal(text(await first.host.callTool('changing__echo', { text: 'a' })), 'echo: a');
    first.answers.push('allow-once');
    assert.equal(text(await first.host.callTool('changing__stable', {})), 'stable');
  } finally {
    await first.host.close();
  }
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as {
    servers: Record<string, Record<string, unknown>>;
  };
  const [key] = Object.keys(saved.servers);
  assert.match(key ?? '', /^changing@[0-9a-f]{16}$/);
  assert.deepEqual(Object.keys(saved.servers[key as string] ?? {}).sort(), ['echo', 'stable']);

  const second = await hostOf(changing(allow, { CHANGED: '1' }), { toolPins: new FilePinStore(file) });
  try {
    assert.ok(second.host.toolChange('changing__echo'), 'the change is known from the first listing');
    const logged = second.host.log.entries().find((e) => e.kind === 'tool-change');
    assert.equal(logged?.outcome, 'changed');
    second.answers.push('deny');
    const denied = await second.host.callTool('changing__echo', { text: 'b', note: 'x' });
    assert.equal(denied.isError, true);
    assert.equal(second.asked.length, 1);
    assert.match(question(second.asked, 0).change?.diff ?? '', /"note"/);
    // The unchanged tool approved once before is still an ordinary ask (no change).
    second.answers.push('allow-once');
    await second.host.callTool('changing__stable', {});
    assert.equal(question(second.asked, 1).change, undefined);
  } finally {
    await second.host.close();
  }

  // The same name, another command line: its own pins (none), so its echo runs under allow at once.
  const other = await hostOf(changing(allow, { CHANGED: '1' }, ['--other']), {
    toolPins: new FilePinStore(file),
  });
  try {
    assert.equal(other.host.toolChange('changing__echo'), undefined);
    assert.equal(text(await other.host.callTool('changing__echo', { text: 'c', note: 'x' })), 'echo: c');
    assert.equal(other.asked.length, 0);
  } finally {
    await other.host.close();
  }
});

test('toolChanges "refuse": a changed tool is refused without asking, and logged', async () => {
  const { host, asked } = await hostOf(changing({ toolChanges: 'refuse', approval: { default: 'allow' } }));
  try {
    assert.equal(text(await host.callTool('changing__echo', { text: 'a' })), 'echo: a');
    await mutate(host);
    const refused = await host.callTool('changing__echo', { text: 'b', note: 'x' });
    assert.equal(refused.isError, true);
    assert.match(
      text(refused),
      /definition changed since it was approved, and the config refuses changed tools/,
    );
    assert.equal(asked.length, 0);
    assert.ok(host.log.entries().some((e) => e.kind === 'tool-change' && e.outcome === 'refused'));
    assert.equal(text(await host.callTool('changing__stable', {})), 'stable');
  } finally {
    await host.close();
  }
});

test('toolChanges "accept": a changed tool runs, is pinned again, and the change is logged', async () => {
  const { host, asked } = await hostOf(changing({ toolChanges: 'accept', approval: { default: 'allow' } }));
  try {
    assert.equal(text(await host.callTool('changing__echo', { text: 'a' })), 'echo: a');
    assert.equal(text(await host.callTool('changing__mutate', {})), 'mutated');
    await until(
      () => host.log.entries().some((e) => e.kind === 'tool-change' && e.outcome === 'accepted'),
      'the accepted change',
    );
    assert.equal(host.toolChange('changing__echo'), undefined);
    assert.equal(text(await host.callTool('changing__echo', { text: 'b', note: 'x' })), 'echo: b');
    assert.equal(asked.length, 0);
  } finally {
    await host.close();
  }
});
