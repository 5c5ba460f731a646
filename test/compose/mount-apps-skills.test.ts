// An App server mounted under a prefix (and behind a proxy): the tool names its App's resource by the URI the parent
// serves it at, so a host reads the App it is told of; the mounted (or proxied) server's skills are listed, got and
// read through the parent, under the parent's URIs, digests intact.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  APP_RESOURCE_URI_KEY,
  appResourceUriOf,
  appToolMeta,
  createLinkedTransports,
  createProxy,
  McpServer,
  registerAppResource,
} from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';

const SKILL =
  '---\nname: refunds\ndescription: How refunds are done\n---\n# Refunds\n\nSee templates/email.md.\n';

function shop(): McpServer {
  const server = new McpServer({ name: 'shop', version: '1.0.0' });
  registerAppResource(server, 'ui://shop/cart.html', { name: 'cart', html: '<!doctype html><p>cart</p>' });
  server.tool(
    'show_cart',
    { description: 'Shows the cart', _meta: appToolMeta('ui://shop/cart.html') },
    () => ({
      content: [{ type: 'text', text: 'cart' }],
    }),
  );
  server.skill({
    path: 'billing/refunds',
    files: { 'SKILL.md': SKILL, 'templates/email.md': 'Dear customer,\n' },
  });
  return server;
}

test('a mounted App tool names its resource under the prefix, and that URI reads the App', async () => {
  const parent = new McpServer({ name: 'parent', version: '1.0.0' });
  parent.mount('store', shop());
  const { client } = await connectInMemory(parent);
  try {
    const tool = (await client.listTools()).find((t) => t.name === 'store_show_cart');
    assert.ok(tool);
    const uri = appResourceUriOf(tool);
    assert.equal(uri, 'ui://store/shop/cart.html');
    assert.equal(tool._meta?.[APP_RESOURCE_URI_KEY], 'ui://store/shop/cart.html');
    const [content] = (await client.readResource(uri as string)).contents;
    assert.ok(content && 'text' in content && content.text.includes('<p>cart</p>'));
    assert.equal(content.uri, uri);
  } finally {
    await client.close();
  }
});

test("a mounted server's skills: listed, got and read through the parent under its URIs, digests kept", async () => {
  const parent = new McpServer({ name: 'parent', version: '1.0.0' });
  parent.mount('store', shop());
  const { client } = await connectInMemory(parent);
  try {
    const skills = await client.listSkills();
    assert.deepEqual(
      skills.map((s) => s.uri),
      ['skill://store/billing/refunds/SKILL.md'],
    );
    const entry = await client.getSkill('skill://store/billing/refunds/SKILL.md');
    const files = entry.resources === 'dynamic' ? [] : entry.resources.map((r) => r.uri).sort();
    assert.deepEqual(files, [
      'skill://store/billing/refunds/SKILL.md',
      'skill://store/billing/refunds/templates/email.md',
    ]);
    // Read and checked against the digest the entry gives: the bytes are the mounted server's own.
    const read = await client.readSkillFile(entry, 'skill://store/billing/refunds/templates/email.md');
    assert.equal(read.text, 'Dear customer,\n');
    const dir = await client.readDirectory('skill://store/billing/refunds');
    assert.deepEqual(dir.map((r) => r.uri).sort(), [
      'skill://store/billing/refunds/SKILL.md',
      'skill://store/billing/refunds/templates',
    ]);
  } finally {
    await client.close();
  }
});

test("a proxy forwards the skills of the server behind it, and its App's resource", async () => {
  const [clientSide, serverSide] = createLinkedTransports();
  await shop().connect(serverSide);
  const proxy = await createProxy(clientSide);
  const { client } = await connectInMemory(proxy);
  try {
    const tool = (await client.listTools()).find((t) => t.name === 'show_cart');
    const uri = appResourceUriOf(tool ?? {});
    assert.equal(uri, 'ui://shop/cart.html');
    const [content] = (await client.readResource(uri as string)).contents;
    assert.ok(content && 'text' in content && content.text.includes('<p>cart</p>'));
    const [skill] = await client.listSkills();
    assert.equal(skill?.uri, 'skill://billing/refunds/SKILL.md');
    const entry = await client.getSkill('skill://billing/refunds/SKILL.md');
    assert.equal((await client.readSkillFile(entry)).text, SKILL);
    assert.deepEqual((await client.readDirectory('skill://billing/refunds')).map((r) => r.uri).sort(), [
      'skill://billing/refunds/SKILL.md',
      'skill://billing/refunds/templates',
    ]);
  } finally {
    await client.close();
    await proxy.close();
  }
});
