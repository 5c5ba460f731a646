// Checks the everything server against what MCP conformance suite 0.1.16 requires of it
// (reference/conformance.md, section 2.1), over the in-memory transport. server.test.ts covers the stdio main.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  ClientCapabilities,
  ElicitFormParams,
  ElicitParams,
  ElicitResult,
  JsonSchema,
  LoggingMessageParams,
} from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { createEverythingServer } from './everything.js';
import { PNG_BASE64 } from './media.js';

const CONFORMANCE_TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'json_schema_2020_12_tool',
  'test_reconnection',
];
const CONFORMANCE_PROMPTS = [
  'test_simple_prompt',
  'test_prompt_with_arguments',
  'test_prompt_with_embedded_resource',
  'test_prompt_with_image',
];
const SEP1330_ANSWER = {
  untitledSingle: 'option2',
  titledSingle: 'value3',
  legacyEnum: 'opt1',
  untitledMulti: ['option1', 'option3'],
  titledMulti: ['value2'],
};

/** Answers elicitations the way the conformance client does, recording what was asked. */
function answerElicitation(params: ElicitParams): ElicitResult {
  if (params.mode === 'url') return { action: 'accept' };
  const properties = params.requestedSchema.properties as Record<string, unknown>;
  if ('username' in properties)
    return { action: 'accept', content: { username: 'testuser', email: 'test@example.com' } };
  if ('untitledSingle' in properties) return { action: 'accept', content: SEP1330_ANSWER };
  return {
    action: 'accept',
    content: { name: 'Jane Smith', age: 25, score: 88, status: 'inactive', verified: false },
  };
}

/** What the conformance client declares (plus roots, for the roots tool). */
const CONFORMANCE_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: {},
  roots: { listChanged: true },
};

async function connect(capabilities = CONFORMANCE_CAPABILITIES) {
  const seen = {
    logs: [] as LoggingMessageParams[],
    elicitations: [] as ElicitParams[],
    samplings: 0,
    updated: [] as string[],
  };
  const { client } = await connectInMemory(createEverythingServer(), {
    capabilities,
    sampling: (params) => {
      seen.samplings++;
      assert.deepEqual(params.messages, [
        { role: 'user', content: { type: 'text', text: 'Test prompt for sampling' } },
      ]);
      assert.equal(params.maxTokens, 100);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'This is a test response from the client' },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    },
    elicitation: (params) => {
      seen.elicitations.push(params);
      return answerElicitation(params);
    },
    roots: [{ uri: 'file:///tmp/project', name: 'project' }],
    onlog: (log) => seen.logs.push(log),
    onResourceUpdated: (uri) => seen.updated.push(uri),
  });
  return { client, seen };
}

function text(result: { content: { type: string }[] }, index = 0): string {
  const block = result.content[index] as { type: string; text?: string } | undefined;
  assert.equal(block?.type, 'text');
  return block.text ?? '';
}

function formOf(params: ElicitParams | undefined): Record<string, JsonSchema> {
  assert.ok(params && params.mode !== 'url');
  return (params as ElicitFormParams).requestedSchema.properties as Record<string, JsonSchema>;
}

describe('everything server: conformance scenarios (section 2.1)', { timeout: 10_000 }, () => {
  it('server-initialize, ping, logging-set-level, completion-complete', async () => {
    const { client } = await connect();
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.deepEqual(client.serverCapabilities, {
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      // The skills extension: under `experimental` for this revision (it has no `extensions`).
      experimental: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
    });
    assert.deepEqual(await client.request('ping'), {});
    assert.deepEqual(await client.request('logging/setLevel', { level: 'info' }), {});
    const completion = await client.complete(
      { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      { name: 'arg1', value: 'test' },
    );
    assert.ok(Array.isArray(completion.values));
    await client.close();
  });

  it('tools-list: every tool has a name, a description and an object inputSchema', async () => {
    const { client } = await connect();
    const tools = await client.listTools();
    for (const tool of tools) {
      assert.ok(tool.name && tool.description, `${tool.name} needs a description`);
      assert.equal(tool.inputSchema.type, 'object', `${tool.name} inputSchema`);
    }
    const names = new Set(tools.map((t) => t.name));
    for (const name of CONFORMANCE_TOOLS) assert.ok(names.has(name), `missing tool ${name}`);
    await client.close();
  });

  it('json-schema-2020-12: the inputSchema is emitted verbatim', async () => {
    const { client } = await connect();
    const tool = (await client.listTools()).find((t) => t.name === 'json_schema_2020_12_tool');
    assert.equal(
      JSON.stringify(tool?.inputSchema),
      '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}',
    );
    const ok = await client.callTool('json_schema_2020_12_tool', {
      name: 'Ada',
      address: { city: 'London' },
    });
    assert.equal(ok.isError, undefined);
    const bad = await client.callTool('json_schema_2020_12_tool', { name: 'Ada', extra: 1 });
    assert.equal(bad.isError, true);
    await client.close();
  });

  it('tools-call-simple-text, -image, -audio, -embedded-resource, -mixed-content, -error', async () => {
    const { client } = await connect();
    assert.equal(
      text(await client.callTool('test_simple_text')),
      'This is a simple text response for testing.',
    );
    assert.deepEqual((await client.callTool('test_image_content', {})).content, [
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
    ]);
    const [audio] = (await client.callTool('test_audio_content', {})).content;
    assert.ok(audio?.type === 'audio' && audio.data && audio.mimeType === 'audio/wav');
    const [embedded] = (await client.callTool('test_embedded_resource', {})).content;
    assert.ok(embedded?.type === 'resource');
    assert.deepEqual(embedded.resource, {
      uri: 'test://embedded-resource',
      mimeType: 'text/plain',
      text: 'This is an embedded resource content.',
    });
    const mixed = await client.callTool('test_multiple_content_types', {});
    assert.deepEqual(
      mixed.content.map((c) => c.type),
      ['text', 'image', 'resource'],
    );
    const error = await client.callTool('test_error_handling', {});
    assert.equal(error.isError, true);
    assert.equal(text(error), 'This tool intentionally returns an error for testing');
    await client.close();
  });

  it('tools-call-with-logging: three info messages after setLevel debug', async () => {
    const { client, seen } = await connect();
    await client.setLoggingLevel('debug');
    await client.callTool('test_tool_with_logging', {});
    assert.deepEqual(
      seen.logs.map((l) => [l.level, l.data]),
      [
        ['info', 'Tool execution started'],
        ['info', 'Tool processing data'],
        ['info', 'Tool execution completed'],
      ],
    );
    await client.close();
  });

  it('tools-call-with-progress: 0, 50, 100 of 100 with the request token', async () => {
    const { client } = await connect();
    const progress: { progress: number; total?: number; progressToken: unknown }[] = [];
    await client.callTool('test_tool_with_progress', {}, { onprogress: (p) => progress.push(p) });
    assert.deepEqual(
      progress.map((p) => [p.progress, p.total]),
      [
        [0, 100],
        [50, 100],
        [100, 100],
      ],
    );
    assert.ok(
      progress.every((p) => p.progressToken === progress[0]?.progressToken && p.progressToken !== undefined),
    );
    await client.close();
  });

  it('tools-call-sampling and tools-call-elicitation', async () => {
    const { client, seen } = await connect();
    const sampled = await client.callTool('test_sampling', { prompt: 'Test prompt for sampling' });
    assert.equal(seen.samplings, 1);
    assert.equal(text(sampled), 'LLM response: This is a test response from the client');
    const elicited = await client.callTool('test_elicitation', {
      message: 'Please provide your information',
    });
    assert.equal(seen.elicitations.length, 1);
    assert.equal(seen.elicitations[0]?.message, 'Please provide your information');
    assert.match(text(elicited), /^User response: action=accept, content=.*testuser/);
    await client.close();
  });

  it('elicitation-sep1034-defaults: five primitives with defaults', async () => {
    const { client, seen } = await connect();
    const result = await client.callTool('test_elicitation_sep1034_defaults', {});
    const p = formOf(seen.elicitations[0]);
    assert.deepEqual([p.name?.type, p.name?.default], ['string', 'John Doe']);
    assert.deepEqual([p.age?.type, p.age?.default], ['integer', 30]);
    assert.deepEqual([p.score?.type, p.score?.default], ['number', 95.5]);
    assert.equal(p.status?.type, 'string');
    assert.ok(Array.isArray(p.status?.enum) && p.status.enum.includes(p.status.default));
    assert.equal(p.status.default, 'active');
    assert.deepEqual([p.verified?.type, p.verified?.default], ['boolean', true]);
    assert.match(text(result), /^Elicitation completed: action=accept, content=.*Jane Smith/);
    await client.close();
  });

  it('elicitation-sep1330-enums: the five enum shapes', async () => {
    const { client, seen } = await connect();
    const result = await client.callTool('test_elicitation_sep1330_enums', {});
    const p = formOf(seen.elicitations[0]);
    const isTitled = (list: unknown) =>
      Array.isArray(list) &&
      list.length > 0 &&
      list.every((o) => typeof o.const === 'string' && typeof o.title === 'string');
    assert.ok(p.untitledSingle?.type === 'string' && Array.isArray(p.untitledSingle.enum));
    assert.ok(p.untitledSingle.oneOf === undefined && p.untitledSingle.enumNames === undefined);
    assert.ok(
      p.titledSingle?.type === 'string' &&
        isTitled(p.titledSingle.oneOf) &&
        p.titledSingle.enum === undefined,
    );
    assert.ok(
      p.legacyEnum?.type === 'string' &&
        Array.isArray(p.legacyEnum.enum) &&
        Array.isArray(p.legacyEnum.enumNames),
    );
    assert.equal(p.legacyEnum.enum.length, p.legacyEnum.enumNames.length);
    const um = p.untitledMulti?.items as JsonSchema;
    assert.ok(
      p.untitledMulti?.type === 'array' &&
        um.type === 'string' &&
        Array.isArray(um.enum) &&
        um.anyOf === undefined,
    );
    const tm = p.titledMulti?.items as JsonSchema;
    assert.ok(p.titledMulti?.type === 'array' && isTitled(tm.anyOf) && tm.enum === undefined);
    assert.equal(
      text(result),
      `Elicitation completed: action=accept, content=${JSON.stringify(SEP1330_ANSWER)}`,
    );
    await client.close();
  });

  it('resources-list, -read-text, -read-binary, -templates-read, -subscribe, -unsubscribe', async () => {
    const { client } = await connect();
    const resources = await client.listResources();
    for (const r of resources) assert.ok(r.uri && r.name);
    const uris = resources.map((r) => r.uri);
    for (const uri of ['test://static-text', 'test://static-binary', 'test://watched-resource'])
      assert.ok(uris.includes(uri));
    assert.deepEqual((await client.readResource('test://static-text')).contents, [
      {
        uri: 'test://static-text',
        mimeType: 'text/plain',
        text: 'This is the content of the static text resource.',
      },
    ]);
    assert.deepEqual((await client.readResource('test://static-binary')).contents, [
      { uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_BASE64 },
    ]);
    const [templated] = (await client.readResource('test://template/123/data')).contents;
    assert.ok(templated && 'text' in templated && templated.uri === 'test://template/123/data');
    assert.deepEqual(JSON.parse(templated.text), { id: '123', templateTest: true, data: 'Data for ID: 123' });
    assert.deepEqual(await client.request('resources/subscribe', { uri: 'test://watched-resource' }), {});
    assert.deepEqual(await client.request('resources/unsubscribe', { uri: 'test://watched-resource' }), {});
    await client.close();
  });

  it('prompts-list, -get-simple, -get-with-args, -get-embedded-resource, -get-with-image', async () => {
    const { client } = await connect();
    const prompts = await client.listPrompts();
    for (const p of prompts) assert.ok(p.name && p.description, `${p.name} needs a description`);
    for (const name of CONFORMANCE_PROMPTS)
      assert.ok(
        prompts.some((p) => p.name === name),
        `missing prompt ${name}`,
      );
    const simple = await client.getPrompt('test_simple_prompt');
    assert.ok(simple.messages.length > 0 && simple.messages.every((m) => m.role && m.content));
    const withArgs = await client.getPrompt('test_prompt_with_arguments', {
      arg1: 'testValue1',
      arg2: 'testValue2',
    });
    assert.match(JSON.stringify(withArgs.messages), /testValue1.*testValue2/);
    const embedded = await client.getPrompt('test_prompt_with_embedded_resource', {
      resourceUri: 'test://example-resource',
    });
    const resource = embedded.messages.find((m) => m.content.type === 'resource')?.content;
    assert.ok(resource?.type === 'resource' && resource.resource.uri === 'test://example-resource');
    const image = (await client.getPrompt('test_prompt_with_image')).messages.find(
      (m) => m.content.type === 'image',
    );
    assert.ok(image?.content.type === 'image' && image.content.data && image.content.mimeType);
    await client.close();
  });
});

describe('everything server: fixture contract and handles', { timeout: 10_000 }, () => {
  it('add returns structuredContent; completions of greet and test://items/{id}', async () => {
    const { client } = await connect();
    await client.listTools();
    const sum = await client.callTool('add', { a: 2, b: 3 });
    assert.deepEqual(sum.structuredContent, { sum: 5 });
    assert.equal(text(await client.callTool('echo', { text: 'hi' })), 'echo: hi');
    const names = await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'a' });
    assert.deepEqual(names.values, ['Ada', 'Alan']);
    const ids = await client.complete(
      { type: 'ref/resource', uri: 'test://items/{id}' },
      { name: 'id', value: 'b' },
    );
    assert.deepEqual(ids.values, ['beta']);
    await client.close();
  });

  it('toggle_feature announces list_changed; update_watched notifies subscribers', async () => {
    let announced!: (names: string[]) => void;
    const changed = new Promise<string[]>((resolve) => {
      announced = resolve;
    });
    const first = await connectInMemory(createEverythingServer(), {
      onToolsChanged: (tools) => announced((tools ?? []).map((t) => t.name)),
    });
    assert.ok(!(await first.client.listTools()).some((t) => t.name === 'dynamic_tool'));
    await first.client.callTool('toggle_feature', { enabled: true });
    assert.ok((await changed).includes('dynamic_tool'));
    assert.equal(text(await first.client.callTool('dynamic_tool')), 'dynamic_tool is enabled and answering');
    await first.client.close();

    const { client, seen } = await connect();
    await client.subscribeResource('test://watched-resource');
    assert.match(text(await client.callTool('update_watched', {})), /revision 1/);
    // The notification is sent before the tool's result, and the transport keeps order.
    assert.deepEqual(seen.updated, ['test://watched-resource']);
    await client.close();
  });

  it('roots lists the client roots; url_elicitation uses URL mode', async () => {
    const { client } = await connect();
    assert.equal(text(await client.callTool('roots', {})), 'project: file:///tmp/project');
    // URL mode is opt-in: without elicitation.url the tool reports the missing capability.
    assert.match(text(await client.callTool('url_elicitation', {})), /elicitation\.url/);
    await client.close();
    const url = await connect({ ...CONFORMANCE_CAPABILITIES, elicitation: { form: {}, url: {} } });
    assert.equal(text(await url.client.callTool('url_elicitation', {})), 'URL elicitation: action=accept');
    assert.equal(url.seen.elicitations[0]?.mode, 'url');
    await url.client.close();
  });
});
