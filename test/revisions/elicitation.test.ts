// Per revision: what a server asks of the user (`elicitation/create`) is what the client's revision defines. A
// requestedSchema written for 2025-11-25 (defaults, titled enums, `$schema`, `mode`) is fitted to 2025-06-18's
// spelling and checked with that revision's strict schema; what has no older equivalent (multi-select, URL mode)
// is refused locally and nothing is sent. The same holds for a handler in explicit multi round-trip style.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { inputRequired, McpkitError, McpServer } from '../../src/index.js';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest } from '../../src/jsonrpc/types.js';
import type { RawPeer } from '../protocol/helpers.js';
import { rawSession } from './raw-session.js';
import { SpecSchema } from './spec-schema.js';

type Json = { [key: string]: unknown };

/** Every kind of form field 2025-11-25 has a single value for. */
const RICH = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1, default: 'Ada' },
    age: { type: 'integer', minimum: 0, default: 30 },
    ok: { type: 'boolean', title: 'OK?', default: true },
    color: { type: 'string', enum: ['red', 'green'], default: 'red' },
    size: {
      type: 'string',
      title: 'Size',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
      default: 's',
    },
    legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'], default: 'a' },
  },
  required: ['name'],
} as const;

/** RICH as revisions before 2025-11-25 spell it. */
const RICH_BEFORE_2025_11_25 = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    age: { type: 'integer', minimum: 0 },
    ok: { type: 'boolean', title: 'OK?', default: true },
    color: { type: 'string', enum: ['red', 'green'] },
    size: { type: 'string', title: 'Size', enum: ['s', 'l'], enumNames: ['Small', 'Large'] },
    legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'] },
  },
  required: ['name'],
};

const MULTI = {
  type: 'object',
  properties: { tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] } } },
} as const;

const errors: Error[] = [];

function elicitingServer(): McpServer {
  const server = new McpServer({ name: 'eliciting', version: '1.0.0' }, { onerror: (e) => errors.push(e) });
  const refusal = (e: unknown) => (e instanceof McpkitError ? `${e.code}: ${e.message}` : String(e));
  server.tool('ask', { description: 'Asks with every single-value field' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Tell me', requestedSchema: RICH });
    return JSON.stringify(answer);
  });
  server.tool('ask-multi', { description: 'Asks for a multi-select' }, async (_args, ctx) => {
    try {
      return JSON.stringify(await ctx.elicit({ message: 'Pick', requestedSchema: MULTI }));
    } catch (e) {
      return refusal(e);
    }
  });
  server.tool('ask-url', { description: 'Sends the user to a URL' }, async (_args, ctx) => {
    try {
      return JSON.stringify(await ctx.elicit({ mode: 'url', message: 'Go', url: 'https://example.com/x' }));
    } catch (e) {
      return refusal(e);
    }
  });
  server.tool('explicit', { description: 'Asks in explicit multi round-trip style' }, (_args, ctx) => {
    const answer = ctx.mrtr.inputResponses.form;
    if (answer !== undefined) return JSON.stringify(answer);
    return inputRequired({
      form: {
        method: 'elicitation/create',
        params: { mode: 'form', message: 'Tell me', requestedSchema: RICH as unknown as JsonObject },
      },
    });
  });
  server.tool('explicit-url', { description: 'Asks for a URL visit in explicit style' }, (_args, ctx) => {
    if (ctx.mrtr.inputResponses.visit !== undefined) return 'visited';
    return inputRequired({
      visit: {
        method: 'elicitation/create',
        params: { mode: 'url', message: 'Go', url: 'https://example.com/x', elicitationId: 'e1' },
      },
    });
  });
  return server;
}

const servers: McpServer[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function connect(revision: string, elicitation: Json) {
  const server = elicitingServer();
  servers.push(server);
  const { raw } = await rawSession(server, revision, { elicitation } as JsonObject, (request) =>
    request.method === 'elicitation/create'
      ? { result: { action: 'accept', content: { name: 'Bo', size: 'l' } } }
      : { result: {} },
  );
  return raw;
}

function text(response: JsonRpcMessage): string {
  assert.ok('result' in response, `a result, not ${JSON.stringify(response)}`);
  return String(((response.result as Json).content as Json[])[0]?.text);
}

async function call(raw: RawPeer, name: string) {
  const seen = raw.messages.length;
  const response = await raw.request('tools/call', { name, arguments: {} });
  const asked = raw.messages
    .slice(seen)
    .filter((m): m is JsonRpcRequest => 'method' in m && m.method === 'elicitation/create');
  return { response, asked };
}

const strict0618 = new SpecSchema('2025-06-18');

for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18'] as const) {
  describe(`elicitation to a ${revision} client`, () => {
    for (const tool of ['ask', 'explicit']) {
      test(`${tool}: the form is spelled the way the revision defines it, and the answer still checks`, async () => {
        const raw = await connect(revision, {});
        const { response, asked } = await call(raw, tool);
        assert.equal(asked.length, 1);
        const request = asked[0] as JsonRpcRequest;
        // Before 2025-06-18 there is no elicitation at all (a client that declares it is taken at its word and
        // given 2025-06-18's form); 2025-06-18 itself is checked against its strict schema.
        assert.deepEqual(strict0618.messageProblems('ElicitRequest', request), []);
        assert.deepEqual(request.params, { message: 'Tell me', requestedSchema: RICH_BEFORE_2025_11_25 });
        assert.deepEqual(JSON.parse(text(response)), {
          action: 'accept',
          content: { name: 'Bo', size: 'l' },
        });
      });
    }

    test('a multi-select has no equivalent: refused before sending, with a typed error', async () => {
      const raw = await connect(revision, {});
      const { response, asked } = await call(raw, 'ask-multi');
      assert.equal(asked.length, 0, 'nothing was sent');
      assert.match(text(response), /^INVALID_SCHEMA: .*"tags" is a multi-select .*revision/);
      assert.match(text(response), new RegExp(revision));
    });

    test('URL mode is never sent, through the context or in explicit style', async () => {
      const raw = await connect(revision, { url: {} });
      const viaContext = await call(raw, 'ask-url');
      assert.equal(viaContext.asked.length, 0);
      assert.match(text(viaContext.response), /^CAPABILITY_MISSING: /);
      errors.length = 0;
      const explicit = await call(raw, 'explicit-url');
      assert.equal(explicit.asked.length, 0, 'nothing was sent');
      assert.ok('error' in explicit.response, 'the request fails');
      const reported = errors.find((e) => e instanceof McpkitError);
      assert.ok(reported instanceof McpkitError, errors.map((e) => e.message).join('; '));
      assert.equal(reported.code, 'CAPABILITY_MISSING');
      assert.match(reported.message, new RegExp(`${revision} has no URL-mode elicitation`));
    });
  });
}

describe('elicitation to a 2025-11-25 client', () => {
  const strict = new SpecSchema('2025-11-25');

  test('the form goes as written, mode included, and is valid for the revision', async () => {
    const raw = await connect('2025-11-25', {});
    for (const tool of ['ask', 'explicit']) {
      const { asked } = await call(raw, tool);
      const request = asked[0] as JsonRpcRequest;
      assert.deepEqual(strict.messageProblems('ElicitRequest', request), []);
      assert.deepEqual(request.params, { mode: 'form', message: 'Tell me', requestedSchema: RICH });
    }
  });

  test('the strict 2025-06-18 check can fail: the unfitted request is not valid there', async () => {
    const raw = await connect('2025-11-25', {});
    const { asked } = await call(raw, 'ask');
    const problems = strict0618.messageProblems('ElicitRequest', asked[0]);
    assert.ok(problems.length > 0);
  });

  test('a multi-select is sent', async () => {
    const raw = await connect('2025-11-25', {});
    const { asked } = await call(raw, 'ask-multi');
    assert.equal(asked.length, 1);
    assert.deepEqual(strict.messageProblems('ElicitRequest', asked[0]), []);
  });

  test('form mode is refused in explicit style to a client that declared URL mode only', async () => {
    const raw = await connect('2025-11-25', { url: {} });
    errors.length = 0;
    const { response, asked } = await call(raw, 'explicit');
    assert.equal(asked.length, 0);
    assert.ok('error' in response);
    const reported = errors.find((e) => e instanceof McpkitError);
    assert.ok(reported instanceof McpkitError);
    assert.match(reported.message, /elicitation\.form/);
  });
});
