// prompts/list and prompts/get over the in-memory transport, with argument errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonRpcError, McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';

function promptServer(errors: Error[] = []): McpServer {
  const server = new McpServer({ name: 'prompts', version: '1' }, { onerror: (e) => errors.push(e) });
  server.prompt(
    'greet',
    {
      title: 'Greeting',
      description: 'Greets someone.',
      arguments: { name: { required: true, description: 'Who' }, mood: { title: 'Mood' } },
    },
    ({ name, mood }) => `Hello, ${name}${mood ? ` (${mood})` : ''}!`,
  );
  server.prompt('conversation', {}, () => [
    { role: 'user', content: { type: 'text', text: 'hi' } },
    { role: 'assistant', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } },
    {
      role: 'user',
      content: { type: 'resource', resource: { uri: 'test://doc', mimeType: 'text/plain', text: 'doc' } },
    },
  ]);
  server.prompt('full', {}, () => ({
    description: 'a full result',
    messages: [{ role: 'user', content: { type: 'text', text: 'full' } }],
  }));
  server.prompt('broken', {}, () => {
    throw new Error('secret path /srv/prompts.db');
  });
  return server;
}

test('prompts/list describes prompts and their arguments', async () => {
  const { client } = await connectInMemory(promptServer());
  const prompts = await client.listPrompts();
  assert.deepEqual(
    prompts.map((p) => p.name),
    ['greet', 'conversation', 'full', 'broken'],
  );
  assert.deepEqual(prompts[0], {
    name: 'greet',
    title: 'Greeting',
    description: 'Greets someone.',
    arguments: [
      { name: 'name', description: 'Who', required: true },
      { name: 'mood', title: 'Mood' },
    ],
  });
  assert.deepEqual(prompts[1], { name: 'conversation' });
  await client.close();
});

test('prompts/get fills in arguments; all return shapes are normalised', async () => {
  const { client } = await connectInMemory(promptServer());
  assert.deepEqual(await client.getPrompt('greet', { name: 'Ada' }), {
    messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }],
  });
  assert.deepEqual(await client.getPrompt('greet', { name: 'Ada', mood: 'cheerful' }), {
    messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada (cheerful)!' } }],
  });
  const conversation = await client.getPrompt('conversation');
  assert.equal(conversation.messages.length, 3);
  assert.equal(conversation.messages[1]?.content.type, 'image');
  assert.deepEqual(await client.getPrompt('full'), {
    description: 'a full result',
    messages: [{ role: 'user', content: { type: 'text', text: 'full' } }],
  });
  await client.close();
});

test('missing required arguments, non-string arguments and unknown prompts are -32602', async () => {
  const { client } = await connectInMemory(promptServer());
  const cases: [string, Record<string, unknown> | undefined, RegExp][] = [
    ['greet', undefined, /name/],
    ['greet', {}, /name/],
    ['greet', { mood: 'sad' }, /name/],
    ['greet', { name: 5 }, /name/],
    ['nope', {}, /nope/],
  ];
  for (const [name, args, pattern] of cases) {
    const params: Record<string, unknown> = args === undefined ? { name } : { name, arguments: args };
    await assert.rejects(
      () => client.request('prompts/get', params),
      (error: unknown) => {
        assert.ok(error instanceof JsonRpcError, String(error));
        assert.equal(error.code, -32602, `${name} ${JSON.stringify(args)}`);
        assert.match(error.message, pattern);
        return true;
      },
    );
  }
  await assert.rejects(
    () => client.request('prompts/get', { name: 'greet', arguments: ['Ada'] }),
    (e: unknown) => e instanceof JsonRpcError && e.code === -32602,
  );
  await client.close();
});

test('a prompt handler that throws is -32603 without leaking the message', async () => {
  const errors: Error[] = [];
  const { client } = await connectInMemory(promptServer(errors));
  await assert.rejects(
    () => client.getPrompt('broken'),
    (error: unknown) => {
      assert.ok(error instanceof JsonRpcError);
      assert.equal(error.code, -32603);
      assert.equal(error.message, 'Internal error');
      assert.equal(error.data, undefined);
      return true;
    },
  );
  assert.ok(
    errors.some((e) => e.message.includes('secret path')),
    'reported locally',
  );
  await client.close();
});
