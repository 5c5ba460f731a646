// elicitation/create in form and URL mode: client defaults and validation, server validation, capabilities.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ElicitationHandler,
  type ElicitFormRequest,
  type ElicitParams,
  type ElicitResult,
  type ElicitUrlRequest,
  JsonRpcError,
  McpkitError,
  McpServer,
  urlElicitationRequired,
} from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { rawClient } from './helpers.js';

const FORM: ElicitFormRequest = {
  message: 'Who are you?',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', default: 'anon' },
      age: { type: 'integer', minimum: 0 },
      subscribe: { type: 'boolean', default: false },
      color: { type: 'string', enum: ['red', 'green'], default: 'green' },
    },
    required: ['age'],
  },
};

const URL_REQUEST: ElicitUrlRequest = {
  mode: 'url',
  message: 'Please sign in to the payment provider',
  url: 'https://example.com/connect?session=abc',
};

interface Outcome {
  result?: ElicitResult;
  error?: unknown;
}

function elicitServer(request: ElicitFormRequest | ElicitUrlRequest, outcomes: Outcome[]): McpServer {
  const server = new McpServer({ name: 'elicit', version: '1' });
  server.tool('ask', {}, async (_args, ctx) => {
    try {
      outcomes.push({ result: await ctx.elicit(request) });
    } catch (error) {
      outcomes.push({ error });
    }
    return 'done';
  });
  return server;
}

function answering(result: ElicitResult, seen: ElicitParams[] = []): ElicitationHandler {
  return (params) => {
    seen.push(params);
    return result;
  };
}

test('form elicitation: the client fills schema defaults into an accepted answer', async () => {
  const outcomes: Outcome[] = [];
  const seen: ElicitParams[] = [];
  const { client } = await connectInMemory(elicitServer(FORM, outcomes), {
    elicitation: answering({ action: 'accept', content: { age: 36 } }, seen),
  });
  await client.callTool('ask');
  assert.deepEqual(outcomes, [
    { result: { action: 'accept', content: { age: 36, name: 'anon', subscribe: false, color: 'green' } } },
  ]);
  assert.equal(seen[0]?.mode, 'form', '2025-11-25 sends mode: "form"');
  assert.equal(seen[0]?.message, 'Who are you?');
  await client.close();
});

test('form elicitation without applying defaults returns what the user gave', async () => {
  const outcomes: Outcome[] = [];
  const { client } = await connectInMemory(elicitServer(FORM, outcomes), {
    applyElicitationDefaults: false,
    elicitation: answering({ action: 'accept', content: { age: 5, name: 'Bo' } }),
  });
  await client.callTool('ask');
  assert.deepEqual(outcomes[0]?.result, { action: 'accept', content: { age: 5, name: 'Bo' } });
  await client.close();
});

test('decline and cancel pass through untouched', async () => {
  for (const action of ['decline', 'cancel'] as const) {
    const outcomes: Outcome[] = [];
    const { client } = await connectInMemory(elicitServer(FORM, outcomes), {
      elicitation: answering({ action }),
    });
    await client.callTool('ask');
    assert.deepEqual(outcomes[0]?.result, { action });
    await client.close();
  }
});

test('the client validates an accepted answer before sending it', async () => {
  for (const content of [{ age: -1 }, { age: 'old' }, { name: 'x' }, { age: 3, color: 'blue' }]) {
    const outcomes: Outcome[] = [];
    const { client } = await connectInMemory(elicitServer(FORM, outcomes), {
      elicitation: answering({ action: 'accept', content: content as ElicitResult['content'] & object }),
    });
    await client.callTool('ask');
    const error = outcomes[0]?.error;
    assert.ok(error instanceof JsonRpcError, `${JSON.stringify(content)}: ${String(error)}`);
    assert.equal(error.code, -32603);
    assert.match(error.message, /does not match/);
    await client.close();
  }
});

test('before 2025-11-25 the form request carries no mode field', async () => {
  const outcomes: Outcome[] = [];
  const seen: ElicitParams[] = [];
  const { client } = await connectInMemory(elicitServer(FORM, outcomes), {
    protocolVersion: '2025-06-18',
    elicitation: answering({ action: 'decline' }, seen),
  });
  await client.callTool('ask');
  assert.equal(seen.length, 1);
  assert.equal('mode' in (seen[0] ?? {}), false);
  await client.close();
});

test('an invalid requestedSchema is refused before anything is sent', async () => {
  const outcomes: Outcome[] = [];
  const seen: ElicitParams[] = [];
  const nested: ElicitFormRequest = {
    message: 'nested',
    requestedSchema: { type: 'object', properties: { address: { type: 'object', properties: {} } } },
  };
  const { client } = await connectInMemory(elicitServer(nested, outcomes), {
    elicitation: answering({ action: 'decline' }, seen),
  });
  await client.callTool('ask');
  assert.ok(outcomes[0]?.error instanceof McpkitError);
  assert.equal((outcomes[0]?.error as McpkitError | undefined)?.code, 'INVALID_SCHEMA');
  assert.equal(seen.length, 0);
  await client.close();
});

// A raw client that answers elicitation/create with whatever the test says: the server must check it.
async function serverCheck(answer: Record<string, unknown>): Promise<Outcome> {
  const outcomes: Outcome[] = [];
  const { raw } = await rawClient(elicitServer(FORM, outcomes), {
    capabilities: { elicitation: { form: {} } },
  });
  raw.answer = (request) => (request.method === 'elicitation/create' ? { result: answer } : { result: {} });
  await raw.request('tools/call', { name: 'ask' });
  await raw.transport.close();
  const outcome = outcomes[0];
  assert.ok(outcome);
  return outcome;
}

test('the server validates the answer: content that does not match the schema is INVALID_RESULT', async () => {
  for (const content of [{ age: -1 }, { age: 'x' }, { name: 'no age' }]) {
    const outcome = await serverCheck({ action: 'accept', content });
    assert.ok(outcome.error instanceof McpkitError, `${JSON.stringify(content)}: ${String(outcome.error)}`);
    assert.equal(outcome.error.code, 'INVALID_RESULT');
  }
  const ok = await serverCheck({ action: 'accept', content: { age: 1 } });
  assert.deepEqual(ok.result, { action: 'accept', content: { age: 1 } });
});

test('the server refuses an accepted form answer without content when fields are required', {}, async () => {
  const outcome = await serverCheck({ action: 'accept' });
  assert.ok(outcome.error instanceof McpkitError, `got ${JSON.stringify(outcome.result)}`);
  assert.equal(outcome.error.code, 'INVALID_RESULT');
});

test('the server refuses an answer whose action is not accept, decline or cancel', {}, async () => {
  const outcome = await serverCheck({ action: 'yes', content: { age: 1 } });
  assert.ok(outcome.error instanceof McpkitError, `got ${JSON.stringify(outcome.result)}`);
  assert.equal(outcome.error.code, 'INVALID_RESULT');
});

test('URL elicitation reaches a client that declared elicitation.url, with a generated elicitationId', async () => {
  const outcomes: Outcome[] = [];
  const seen: ElicitParams[] = [];
  const { client } = await connectInMemory(elicitServer(URL_REQUEST, outcomes), {
    capabilities: { elicitation: { form: {}, url: {} } },
    elicitation: answering({ action: 'accept' }, seen),
  });
  await client.callTool('ask');
  assert.deepEqual(outcomes[0]?.result, { action: 'accept' });
  const params = seen[0];
  assert.ok(params?.mode === 'url');
  assert.equal(params.url, URL_REQUEST.url);
  assert.equal(params.message, URL_REQUEST.message);
  assert.equal(typeof params.elicitationId, 'string');
  assert.ok(params.elicitationId.length > 0);
  await client.close();
});

test('URL elicitation keeps a given elicitationId', async () => {
  const outcomes: Outcome[] = [];
  const seen: ElicitParams[] = [];
  const { client } = await connectInMemory(
    elicitServer({ ...URL_REQUEST, elicitationId: 'el-42' }, outcomes),
    {
      capabilities: { elicitation: { url: {} } },
      elicitation: answering({ action: 'decline' }, seen),
    },
  );
  await client.callTool('ask');
  assert.equal(seen[0]?.mode === 'url' ? seen[0].elicitationId : undefined, 'el-42');
  await client.close();
});

test('URL elicitation completes out of band: notifications/elicitation/complete, even after the call ended', async () => {
  const server = new McpServer({ name: 'elicit', version: '1' });
  let later: (() => Promise<void>) | undefined;
  server.tool('connect', {}, async (_args, ctx) => {
    const result = await ctx.elicit({ ...URL_REQUEST, elicitationId: 'pay-1' });
    later = () => ctx.elicitationComplete('pay-1');
    return result.action;
  });
  const completed: unknown[] = [];
  const { client } = await connectInMemory(server, {
    capabilities: { elicitation: { url: {} } },
    elicitation: () => ({ action: 'accept' }),
    onnotification: (n) => {
      if (n.method === 'notifications/elicitation/complete') completed.push(n.params);
    },
  });
  assert.deepEqual((await client.callTool('connect')).content, [{ type: 'text', text: 'accept' }]);
  await later?.();
  await client.ping(); // everything sent before the ping's answer has arrived
  assert.deepEqual(completed, [{ elicitationId: 'pay-1' }]);
  await client.close();
});

test('urlElicitationRequired() answers with -32042 and the elicitations the client should present', async () => {
  const server = new McpServer({ name: 'elicit', version: '1' });
  server.tool('pay', {}, () => {
    throw urlElicitationRequired([
      { mode: 'url', elicitationId: 'pay-2', url: 'https://example.com/pay', message: 'Pay first' },
    ]);
  });
  const { client } = await connectInMemory(server, { capabilities: { elicitation: { url: {} } } });
  await assert.rejects(client.callTool('pay'), (e: unknown) => {
    assert.ok(e instanceof JsonRpcError);
    assert.equal(e.code, -32042);
    assert.deepEqual(
      (e.data as { elicitations: { elicitationId: string }[] }).elicitations[0]?.elicitationId,
      'pay-2',
    );
    return true;
  });
  await client.close();
});

test('a client with only an elicitation handler declares form mode alone, so URL mode is refused', async () => {
  const outcomes: Outcome[] = [];
  const { client } = await connectInMemory(elicitServer(URL_REQUEST, outcomes), {
    elicitation: answering({ action: 'accept' }),
  });
  assert.deepEqual(client.capabilities.elicitation, { form: {} });
  await client.callTool('ask');
  assert.equal((outcomes[0]?.error as McpkitError | undefined)?.code, 'CAPABILITY_MISSING');
  await client.close();
});

for (const elicitation of [{}, { form: {} }]) {
  test(`URL elicitation to a client declaring elicitation ${JSON.stringify(elicitation)} throws CAPABILITY_MISSING`, async () => {
    const outcomes: Outcome[] = [];
    const seen: ElicitParams[] = [];
    const { client } = await connectInMemory(elicitServer(URL_REQUEST, outcomes), {
      capabilities: { elicitation },
      elicitation: answering({ action: 'accept' }, seen),
    });
    await client.callTool('ask');
    assert.ok(outcomes[0]?.error instanceof McpkitError, String(outcomes[0]?.error));
    assert.equal((outcomes[0]?.error as McpkitError | undefined)?.code, 'CAPABILITY_MISSING');
    assert.equal(seen.length, 0);
    await client.close();
  });
}

test('form elicitation to a client that declared only URL mode throws CAPABILITY_MISSING', async () => {
  const outcomes: Outcome[] = [];
  const { client } = await connectInMemory(elicitServer(FORM, outcomes), {
    capabilities: { elicitation: { url: {} } },
    elicitation: answering({ action: 'accept', content: { age: 1 } }),
  });
  await client.callTool('ask');
  assert.equal((outcomes[0]?.error as McpkitError | undefined)?.code, 'CAPABILITY_MISSING');
  await client.close();
});

test('elicitation to a client without the capability throws CAPABILITY_MISSING', async () => {
  const outcomes: Outcome[] = [];
  const { client } = await connectInMemory(elicitServer(FORM, outcomes));
  await client.callTool('ask');
  assert.equal((outcomes[0]?.error as McpkitError | undefined)?.code, 'CAPABILITY_MISSING');
  await client.close();
});

test('the client refuses a mode it did not declare with -32602', async () => {
  const server = new McpServer({ name: 'rogue', version: '1' });
  const seen: ElicitParams[] = [];
  const { client, session } = await connectInMemory(server, {
    capabilities: { elicitation: { form: {} } },
    elicitation: answering({ action: 'accept' }, seen),
  });
  const urlParams = { mode: 'url', message: 'm', url: 'https://example.com', elicitationId: 'x' };
  // The session itself refuses it locally; a rogue server going around it to the peer meets the client's refusal.
  await assert.rejects(
    () => session.request('elicitation/create', urlParams),
    (error: unknown) => error instanceof McpkitError && error.code === 'CAPABILITY_MISSING',
  );
  await assert.rejects(
    () => session.peer.request('elicitation/create', urlParams),
    (error: unknown) => error instanceof JsonRpcError && error.code === -32602,
  );
  assert.equal(seen.length, 0);
  await client.close();
});
