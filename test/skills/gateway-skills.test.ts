// The gateway offers the host's skills as host.chat() does (`load_skill`), each first load approved by the person
// behind the connecting client (an elicitation), bound to the manifest: a client that cannot ask loads only what was
// approved before.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createEverythingServer } from '../../examples/everything/everything.js';
import { Host } from '../../src/host.js';
import { createLinkedTransports, type McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';

let host: Host;
let gateway: McpServer;

before(async () => {
  const server = createEverythingServer();
  host = new Host(
    [
      {
        name: 'example',
        transport: { type: 'stdio', command: 'never-spawned', args: [], env: {}, namedEnv: [] },
        disabled: false,
        trusted: false,
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
  await host.start();
  gateway = host.toServer();
});

after(() => host.close());

function text(result: { content: unknown[] }): string {
  return result.content.map((c) => (c as { text?: string }).text ?? '').join('');
}

function answering(decision: string, asked: string[]) {
  return {
    elicitation: (params: { message: string }) => {
      asked.push(params.message);
      return { action: 'accept' as const, content: { decision } };
    },
  };
}

test('load_skill is listed as host.chat() offers it; a client that cannot ask loads nothing not yet approved', async () => {
  const { client } = await connectInMemory(gateway);
  try {
    const load = (await client.listTools()).find((t) => t.name === 'load_skill');
    assert.match(load?.description ?? '', /example\/add-numbers: /);
    const refused = await client.callTool('load_skill', { name: 'example/add-numbers' });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /needs the person's approval, and this host cannot ask/);
  } finally {
    await client.close();
  }
});

test('the person behind the client decides: denied is not loaded, allowed is loaded and pinned', async () => {
  const asked: string[] = [];
  const denying = await connectInMemory(gateway, answering('Deny', asked));
  try {
    const denied = await denying.client.callTool('load_skill', { name: 'example/add-numbers' });
    assert.equal(denied.isError, true);
    assert.match(text(denied), /did not approve loading example\/add-numbers/);
    assert.match(asked[0] ?? '', /Load the skill example\/add-numbers \(server example: .*SKILL\.md/);
  } finally {
    await denying.client.close();
  }
  const allowing = await connectInMemory(gateway, answering('Allow', asked));
  try {
    const loaded = await allowing.client.callTool('load_skill', { name: 'example/add-numbers' });
    assert.notEqual(loaded.isError, true, text(loaded));
    assert.match(text(loaded), /\[Skill "example\/add-numbers" from the server "example"/);
    assert.equal(asked.length, 2);
  } finally {
    await allowing.client.close();
  }
  // Approved in this manifest: a client that cannot ask now loads it, as the host's own chat would.
  const { client } = await connectInMemory(gateway);
  try {
    assert.match(
      text(await client.callTool('load_skill', { name: 'example/add-numbers' })),
      /# Adding numbers/,
    );
  } finally {
    await client.close();
  }
});
