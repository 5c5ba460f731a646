// sampling/createMessage from a server handler to the client, with and without tools.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ClientCapabilities,
  type CreateMessageParams,
  type CreateMessageResult,
  JsonRpcError,
  McpkitError,
  McpServer,
  type SamplingHandler,
} from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';

const WEATHER_TOOL = {
  name: 'weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
};

interface Outcome {
  result?: CreateMessageResult;
  error?: unknown;
}

function samplingServer(params: CreateMessageParams, outcomes: Outcome[]): McpServer {
  const server = new McpServer({ name: 'sampling', version: '1' });
  server.tool('sample', {}, async (_args, ctx) => {
    try {
      outcomes.push({ result: await ctx.sample(params) });
    } catch (error) {
      outcomes.push({ error });
    }
    return 'done';
  });
  return server;
}

const PLAIN: CreateMessageParams = {
  messages: [{ role: 'user', content: { type: 'text', text: 'What is MCP?' } }],
  maxTokens: 100,
  systemPrompt: 'be brief',
  modelPreferences: { hints: [{ name: 'claude' }], speedPriority: 0.5 },
};

const WITH_TOOLS: CreateMessageParams = { ...PLAIN, tools: [WEATHER_TOOL], toolChoice: { mode: 'auto' } };

function echoSampler(seen: CreateMessageParams[]): SamplingHandler {
  return (params) => {
    seen.push(params);
    const first = params.messages[0]?.content;
    const text = first && !Array.isArray(first) && first.type === 'text' ? first.text : '?';
    if (params.tools) {
      return {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call-1', name: 'weather', input: { city: 'Paris' } }],
        model: 'test-model',
        stopReason: 'toolUse',
      };
    }
    return {
      role: 'assistant',
      content: { type: 'text', text: `sampled: ${text}` },
      model: 'test-model',
      stopReason: 'endTurn',
    };
  };
}

test('a server handler samples through the client', async () => {
  const outcomes: Outcome[] = [];
  const seen: CreateMessageParams[] = [];
  const { client } = await connectInMemory(samplingServer(PLAIN, outcomes), { sampling: echoSampler(seen) });
  assert.deepEqual(client.capabilities, { sampling: {} });
  await client.callTool('sample');
  assert.deepEqual(outcomes, [
    {
      result: {
        role: 'assistant',
        content: { type: 'text', text: 'sampled: What is MCP?' },
        model: 'test-model',
        stopReason: 'endTurn',
      },
    },
  ]);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]?.systemPrompt, 'be brief');
  assert.deepEqual(seen[0]?.modelPreferences, PLAIN.modelPreferences);
  await client.close();
});

test('sampling with tools works when the client declared sampling.tools', async () => {
  const outcomes: Outcome[] = [];
  const seen: CreateMessageParams[] = [];
  const { client } = await connectInMemory(samplingServer(WITH_TOOLS, outcomes), {
    capabilities: { sampling: { tools: {} } },
    sampling: echoSampler(seen),
  });
  await client.callTool('sample');
  assert.equal(outcomes[0]?.error, undefined);
  assert.equal(outcomes[0]?.result?.stopReason, 'toolUse');
  assert.deepEqual(seen[0]?.tools, [WEATHER_TOOL]);
  assert.deepEqual(seen[0]?.toolChoice, { mode: 'auto' });
  await client.close();
});

for (const [what, params] of [
  ['tools', { ...PLAIN, tools: [WEATHER_TOOL] }],
  ['toolChoice', { ...PLAIN, toolChoice: { mode: 'none' } }],
] as const) {
  test(`ctx.sample with ${what} to a client without sampling.tools throws CAPABILITY_MISSING`, async () => {
    const outcomes: Outcome[] = [];
    const seen: CreateMessageParams[] = [];
    const { client } = await connectInMemory(samplingServer(params as CreateMessageParams, outcomes), {
      sampling: echoSampler(seen),
    });
    await client.callTool('sample');
    const error = outcomes[0]?.error;
    assert.ok(error instanceof McpkitError, String(error));
    assert.equal(error.code, 'CAPABILITY_MISSING');
    assert.equal(seen.length, 0, 'nothing reached the client');
    await client.close();
  });
}

test('ctx.sample with includeContext needs sampling.context', async () => {
  const outcomes: Outcome[] = [];
  const seen: CreateMessageParams[] = [];
  const params: CreateMessageParams = { ...PLAIN, includeContext: 'thisServer' };
  const without = await connectInMemory(samplingServer(params, outcomes), { sampling: echoSampler(seen) });
  await without.client.callTool('sample');
  assert.ok(outcomes[0]?.error instanceof McpkitError);
  assert.equal((outcomes[0]?.error as McpkitError | undefined)?.code, 'CAPABILITY_MISSING');
  await without.client.close();
  const withContext = await connectInMemory(samplingServer(params, outcomes), {
    capabilities: { sampling: { context: {} } },
    sampling: echoSampler(seen),
  });
  await withContext.client.callTool('sample');
  assert.equal(outcomes[1]?.error, undefined);
  assert.equal(seen[0]?.includeContext, 'thisServer');
  await withContext.client.close();
});

test('ctx.sample when the client declared no sampling throws CAPABILITY_MISSING', async () => {
  const outcomes: Outcome[] = [];
  const { client } = await connectInMemory(samplingServer(PLAIN, outcomes));
  await client.callTool('sample');
  const error = outcomes[0]?.error;
  assert.ok(error instanceof McpkitError, String(error));
  assert.equal(error.code, 'CAPABILITY_MISSING');
  assert.match(error.message, /sampling/);
  await client.close();
});

test('the client refuses tools in a sampling request when it did not declare sampling.tools (-32602)', async () => {
  const server = new McpServer({ name: 'rogue', version: '1' });
  const seen: CreateMessageParams[] = [];
  const { client, session } = await connectInMemory(server, { sampling: echoSampler(seen) });
  // A server that ignores the rules: pretend the client declared sampling.tools so the server-side check lets it through.
  session.clientCapabilities = { sampling: { tools: {} } } as ClientCapabilities;
  await assert.rejects(
    () => session.request('sampling/createMessage', WITH_TOOLS as unknown as Record<string, unknown>),
    (error: unknown) => error instanceof JsonRpcError && error.code === -32602,
  );
  assert.equal(seen.length, 0);
  // Malformed sampling params are -32602 too.
  await assert.rejects(
    () => session.request('sampling/createMessage', { messages: 'hi' }),
    (error: unknown) => error instanceof JsonRpcError && error.code === -32602,
  );
  await client.close();
});

test('a sampling handler error reaches the server as a JSON-RPC error', async () => {
  const outcomes: Outcome[] = [];
  const { client } = await connectInMemory(samplingServer(PLAIN, outcomes), {
    sampling: () => {
      throw new JsonRpcError(-1, 'User rejected sampling request');
    },
  });
  await client.callTool('sample');
  const error = outcomes[0]?.error;
  assert.ok(error instanceof JsonRpcError, String(error));
  assert.equal(error.code, -1);
  assert.equal(error.message, 'User rejected sampling request');
  await client.close();
});

test('a client without a sampling handler answers sampling/createMessage with -32601', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  const { client, session } = await connectInMemory(server);
  session.clientCapabilities = { sampling: {} };
  await assert.rejects(
    () => session.request('sampling/createMessage', PLAIN as unknown as Record<string, unknown>),
    (error: unknown) => error instanceof JsonRpcError && error.code === -32601,
  );
  await client.close();
});
