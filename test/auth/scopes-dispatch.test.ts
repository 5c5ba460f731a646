// requiredScopes without HTTP: a transport that authenticates by other means (here, every incoming message
// stamped with an AuthInfo) gets the same refusals and hidden entries from the dispatch itself, in both eras;
// an unauthenticated connection (stdio, in-memory) is not checked.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { connectInMemory } from '../../src/testing.js';
import { connect } from '../tasks/fixture.js';
import { protectedServer } from './helpers.js';

describe('requiredScopes in the dispatch', () => {
  for (const era of ['stateless', 'stateful'] as const) {
    test(`${era}: refused without the scope, hidden from lists, allowed with it`, async () => {
      const server = protectedServer();
      const { client } = await connect(server, {
        era,
        authInfo: { subject: 'reader', scopes: ['mcp:read'] },
      });
      try {
        assert.deepEqual(
          (await client.listTools()).map((t) => t.name),
          ['whoami', 'ask'],
        );
        await assert.rejects(
          client.callTool('admin'),
          /Forbidden: the tool admin needs the scopes mcp:admin/,
        );
        await assert.rejects(client.readResource('vault://1'), /needs the scopes mcp:admin/);
        await assert.rejects(client.getPrompt('briefing'), /needs the scopes mcp:admin/);
        const who = await client.callTool('whoami');
        assert.equal((who.structuredContent as { subject: string }).subject, 'reader');
      } finally {
        await client.close();
      }
      const { client: admin } = await connect(server, {
        era,
        authInfo: { subject: 'boss', scopes: ['mcp:admin'] },
      });
      try {
        assert.deepEqual((await admin.callTool('admin')).content, [{ type: 'text', text: 'admin done' }]);
      } finally {
        await admin.close();
      }
    });
  }

  test('an unauthenticated connection is not checked', async () => {
    const { client } = await connectInMemory(protectedServer());
    try {
      assert.ok((await client.listTools()).some((t) => t.name === 'admin'));
      assert.deepEqual((await client.callTool('admin')).content, [{ type: 'text', text: 'admin done' }]);
    } finally {
      await client.close();
    }
  });
});
