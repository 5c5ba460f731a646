// A mounted server and a proxy mounted next to it, served over stdio (test/compose/fixtures/composed-stdio.ts):
// our client in both eras and the official SDK 1.x client see the prefixed names, the list changes of the mounted
// server and of the server behind the proxy, and a sampling request crossing the proxy and the mount to them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client, type CreateMessageResult } from '../../src/index.js';
import { StdioClientTransport } from '../../src/stdio.js';
import { eventually } from '../eras/helpers.js';

const COMPOSED = fileURLToPath(new URL('./fixtures/composed-stdio.js', import.meta.url));
const CALL = { timeout: 20_000 };

const answer = (text: string): CreateMessageResult => ({
  role: 'assistant',
  content: { type: 'text', text },
  model: 'stub',
});

function texts(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((c) => (c.type === 'text' ? c.text : `[${c.type}]`))
    .join(' ');
}

describe('a composed server over stdio', { timeout: 120_000 }, () => {
  for (const era of ['stateful', 'stateless'] as const) {
    test(`our client (${era}): names, list changes through the mount and the proxy, sampling across both`, async () => {
      const seen: string[][] = [];
      const client = new Client(
        { name: 'ours', version: '1.0.0' },
        {
          era,
          sampling: () => answer(`sampled by the ${era} client`),
          onToolsChanged: (tools) => seen.push((tools ?? []).map((t) => t.name)),
        },
      );
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [COMPOSED] }), CALL);
      try {
        assert.equal(client.era, era);
        const names = (await client.listTools(CALL)).map((t) => t.name);
        assert.ok(names.includes('notes_grow') && names.includes('example_simple'), names.join(' '));
        assert.match(texts(await client.callTool('example_simple', {}, CALL)), /simple text/i);
        const sampled = await client.callTool('example_test_sampling', { prompt: 'hi' }, CALL);
        assert.match(texts(sampled), new RegExp(`LLM response: sampled by the ${era} client`));
        if (era === 'stateless') {
          assert.ok(client.listChanges, 'the client listens for list changes');
          await client.listChanges.honoured;
        }
        await client.callTool('notes_grow', {}, CALL);
        await eventually(() => seen.some((l) => l.includes('notes_grown_1')), 'notes_grown_1 listed', 20_000);
        await client.callTool('example_toggle_feature', { enabled: true }, CALL);
        await eventually(
          () => seen.some((l) => l.includes('example_dynamic_tool')),
          'example_dynamic_tool',
          20_000,
        );
        assert.match(texts(await client.callTool('example_dynamic_tool', {}, CALL)), /enabled and answering/);
      } finally {
        await client.close();
      }
    });
  }

  test('the official SDK 1.x client over stdio', async () => {
    const sdk = new SdkClient({ name: 'sdk', version: '1.0.0' }, { capabilities: { sampling: {} } });
    sdk.setRequestHandler(CreateMessageRequestSchema, () => answer('sampled by the SDK client'));
    const lists: string[][] = [];
    sdk.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      lists.push((await sdk.listTools()).tools.map((t) => t.name));
    });
    await sdk.connect(new SdkStdio({ command: process.execPath, args: [COMPOSED] }));
    try {
      const names = (await sdk.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('notes_grow') && names.includes('example_simple'), names.join(' '));
      const sampled = await sdk.callTool(
        { name: 'example_test_sampling', arguments: { prompt: 'x' } },
        undefined,
        CALL,
      );
      assert.match(texts(sampled), /LLM response: sampled by the SDK client/);
      await sdk.callTool({ name: 'notes_grow', arguments: {} }, undefined, CALL);
      await eventually(() => lists.some((l) => l.includes('notes_grown_1')), 'notes_grown_1 listed', 20_000);
    } finally {
      await sdk.close();
    }
  });
});
