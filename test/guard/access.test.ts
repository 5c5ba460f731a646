// Access rules end to end, in both eras over the in-memory transport (an AuthInfo on every message) and over
// Streamable HTTP with bearer tokens: what a principal may not use is absent from its lists and refused when used
// (tools, prompts, fixed and templated resources, completions, subscriptions); lists vary by authorization, never
// by connection; a refusal is audited; rules given wrong are refused at start.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '../../src/client/client.js';
import type { AccessOptions } from '../../src/server/guard/access.js';
import { McpServer, type ServerOptions } from '../../src/server/server.js';
import { authOf, collect, ERAS, httpClient, memoryClient, principal, serveHttp } from './helpers.js';

const RULES: AccessOptions = {
  rules: [
    { effect: 'allow', tools: ['*'], scopes: ['admin'] },
    { effect: 'deny', tools: ['delete_*', 'shutdown'] },
    { effect: 'deny', prompts: ['secret_prompt'], principals: [principal('eve')] },
    { effect: 'deny', resources: ['mem://secret/*'], when: (auth) => !auth?.scopes.includes('admin') },
    { effect: 'deny', templates: ['vault://{id}'], when: (auth) => auth?.subject !== 'ops' },
  ],
};

function server(options: ServerOptions = { access: RULES }): McpServer {
  const s = new McpServer({ name: 'guarded', version: '1' }, options);
  for (const name of ['read', 'delete_all', 'shutdown']) s.tool(name, {}, () => `${name} done`);
  s.prompt('secret_prompt', {}, () => 'secret');
  s.prompt('open_prompt', {}, () => 'open');
  s.resource('mem://secret/1', { name: 's' }, () => 'classified');
  s.resource('mem://public/1', { name: 'p' }, () => 'public');
  s.resourceTemplate(
    'vault://{id}',
    { name: 'vault', complete: { id: () => ['1', '2'] } },
    (_uri, { id }) => `vault ${id}`,
  );
  return s;
}

async function view(client: Client) {
  return {
    tools: (await client.listTools()).map((t) => t.name),
    prompts: (await client.listPrompts()).map((p) => p.name),
    resources: (await client.listResources()).map((r) => r.uri),
    templates: (await client.listResourceTemplates()).map((t) => t.uriTemplate),
  };
}

describe('access rules', { timeout: 60_000 }, () => {
  for (const era of ERAS) {
    test(`${era}: denied entries are absent from lists and refused on use; an admin sees and uses them`, async () => {
      const { records, sink } = collect();
      const s = server({ access: RULES, audit: { sink } });
      const eve = await memoryClient(s, era, authOf('eve'));
      const admin = await memoryClient(s, era, authOf('root', ['admin']));
      const ops = await memoryClient(s, era, authOf('ops'));
      try {
        assert.deepEqual(await view(eve), {
          tools: ['read'],
          prompts: ['open_prompt'],
          resources: ['mem://public/1'],
          templates: [],
        });
        await assert.rejects(eve.callTool('delete_all'), /Forbidden: the tool delete_all is not available/);
        await assert.rejects(eve.callTool('shutdown'), /Forbidden/);
        await assert.rejects(eve.getPrompt('secret_prompt'), /Forbidden: the prompt secret_prompt/);
        await assert.rejects(eve.readResource('mem://secret/1'), /Forbidden: the resource mem:\/\/secret\/1/);
        await assert.rejects(eve.readResource('vault://7'), /Forbidden/);
        await assert.rejects(
          eve.complete({ type: 'ref/resource', uri: 'vault://{id}' }, { name: 'id', value: '' }),
          /Forbidden/,
        );
        assert.deepEqual((await eve.callTool('read')).content, [{ type: 'text', text: 'read done' }]);

        const all = await view(admin);
        assert.deepEqual(all.tools, ['read', 'delete_all', 'shutdown']);
        assert.deepEqual(all.resources, ['mem://secret/1', 'mem://public/1']);
        assert.deepEqual((await admin.callTool('delete_all')).content, [
          { type: 'text', text: 'delete_all done' },
        ]);
        assert.equal((await admin.readResource('mem://secret/1')).contents.length, 1);
        assert.deepEqual(all.templates, [], 'the template rule is by subject, not scope');
        assert.deepEqual((await view(ops)).templates, ['vault://{id}']);
        assert.equal((await ops.readResource('vault://7')).contents.length, 1);

        const denied = records.filter((r) => r.outcome === 'denied');
        assert.deepEqual(
          denied.map((r) => [r.kind, r.name, r.principal]),
          [
            ['tool', 'delete_all', principal('eve')],
            ['tool', 'shutdown', principal('eve')],
            ['prompt', 'secret_prompt', principal('eve')],
            ['resource', 'mem://secret/1', principal('eve')],
            ['resource', 'vault://7', principal('eve')],
          ],
        );
      } finally {
        await eve.close();
        await admin.close();
        await ops.close();
      }
    });
  }

  for (const [label, era, sessions] of [
    ['stateful sessions', 'stateful', true],
    ['legacy stateless', 'stateful', false],
    ['2026-07-28', 'stateless', true],
  ] as const) {
    test(`over HTTP (${label}): two principals on one server see different lists; the same principal the same`, async () => {
      const running = await serveHttp(server(), { auth: true, sessions });
      const eve = await httpClient(running.url, era, 'eve');
      const eve2 = await httpClient(running.url, era, 'eve');
      const admin = await httpClient(running.url, era, 'admin-1');
      try {
        assert.deepEqual((await view(eve)).tools, ['read']);
        assert.deepEqual(await view(eve2), await view(eve), 'by authorization, never by connection');
        assert.deepEqual((await view(admin)).tools, ['read', 'delete_all', 'shutdown']);
        await assert.rejects(eve.callTool('shutdown'), /Forbidden/);
        assert.deepEqual((await admin.callTool('shutdown')).content, [
          { type: 'text', text: 'shutdown done' },
        ]);
      } finally {
        await eve.close();
        await eve2.close();
        await admin.close();
        await running.close();
      }
    });
  }

  test('default "deny": only what a rule allows is listed; an unauthenticated caller is governed too', async () => {
    const s = server({
      access: { default: 'deny', rules: [{ effect: 'allow', tools: ['read'], prompts: ['open_prompt'] }] },
    });
    const anonymous = await memoryClient(s, 'stateful');
    try {
      const seen = await view(anonymous);
      assert.deepEqual(seen, { tools: ['read'], prompts: ['open_prompt'], resources: [], templates: [] });
      await assert.rejects(anonymous.callTool('delete_all'), /Forbidden/);
    } finally {
      await anonymous.close();
    }
  });

  test('a subscription to a denied resource is refused', async () => {
    const s = server();
    const eve = await memoryClient(s, 'stateful', authOf('eve'));
    try {
      await assert.rejects(eve.subscribeResource('mem://secret/1'), /Forbidden/);
      await eve.subscribeResource('mem://public/1');
    } finally {
      await eve.close();
    }
  });
});

describe('access rules given wrong', () => {
  const make = (access: unknown) => () =>
    new McpServer({ name: 'x', version: '1' }, { access: access as never });
  test('refused when the server is made, naming the rule', () => {
    assert.throws(make({ rules: [{ effect: 'permit', tools: ['a'] }] }), /access\.rules\[0\]\.effect/);
    assert.throws(make({ rules: [{ effect: 'allow' }] }), /access\.rules\[0\]: names nothing/);
    assert.throws(
      make({ rules: [{ effect: 'allow', tools: 'read' }] }),
      /access\.rules\[0\]\.tools: must be an array/,
    );
    assert.throws(make({ rules: [{ effect: 'allow', tools: ['read'], when: 'yes' }] }), /\.when/);
    assert.throws(make({ default: 'maybe', rules: [] }), /access\.default/);
    assert.throws(make({}), /access: must be \{ rules/);
  });

  test('a tool, prompt or template name that is not registered is refused at start', async () => {
    for (const rule of [
      { effect: 'deny', tools: ['raed'] },
      { effect: 'deny', prompts: ['nope'] },
      { effect: 'deny', templates: ['vault://{name}'] },
    ] as const) {
      const s = server({ access: { rules: [rule] } });
      await assert.rejects(memoryClient(s, 'stateless'), /access\.rules\[0\]\.\w+: no \w+ named/);
    }
  });
});
