// The official SDK 1.x client, pinned to each older revision (its initialize rewritten to ask for it), against a
// server using every content type and field: it negotiates that revision, and lists and calls everything. What it
// reads is what the revision defines (the fitting), and the SDK accepts all of it.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { serve } from '../../src/node.js';
import { everythingServer } from './everything-server.js';

/** The SDK's HTTP transport, with the revision its initialize asks for rewritten to `revision`. */
class PinnedTransport implements SdkTransport {
  readonly inner: StreamableHTTPClientTransport;
  readonly received: JSONRPCMessage[] = [];
  readonly #revision: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(url: string, revision: string) {
    this.inner = new StreamableHTTPClientTransport(new URL(url));
    this.#revision = revision;
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    this.inner.onmessage = (message: JSONRPCMessage) => {
      this.received.push(message);
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: { resumptionToken?: string }): Promise<void> {
    const out =
      'method' in message && message.method === 'initialize'
        ? ({ ...message, params: { ...message.params, protocolVersion: this.#revision } } as JSONRPCMessage)
        : message;
    return this.inner.send(
      out,
      options?.resumptionToken === undefined ? undefined : { resumptionToken: options.resumptionToken },
    );
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const server = everythingServer();
const running = await serve(server, { port: 0 });
after(() => running.close());

const CALL = { timeout: 5_000 };

describe('the official SDK 1.x client pinned to an older revision', { timeout: 60_000 }, () => {
  for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18'] as const) {
    test(`${revision}: negotiated, and every list and call succeeds`, async () => {
      const transport = new PinnedTransport(running.url, revision);
      const client = new SdkClient(
        { name: 'official', version: '1.0.0' },
        { capabilities: { sampling: {} } },
      );
      const errors: Error[] = [];
      client.onerror = (e) => errors.push(e);
      client.setRequestHandler(CreateMessageRequestSchema, (request) => {
        const types = request.params.messages.map((m) =>
          Array.isArray(m.content) ? 'array' : m.content.type,
        );
        return { role: 'assistant', content: { type: 'text', text: types.join(',') }, model: 'm' };
      });
      await client.connect(transport, CALL);
      try {
        const init = transport.received.find((m) => 'result' in m && 'protocolVersion' in m.result);
        assert.ok(init && 'result' in init);
        assert.equal(init.result.protocolVersion, revision);
        const old = revision === '2024-11-05';
        const before0618 = revision !== '2025-06-18';

        const { tools } = await client.listTools(undefined, CALL);
        assert.deepEqual(tools.map((t) => t.name).sort(), ['everything', 'plain', 'progress', 'sample']);
        const everything = tools.find((t) => t.name === 'everything');
        assert.equal(everything?.title, before0618 ? undefined : 'Everything tool');
        assert.equal(everything?.outputSchema === undefined, before0618);
        assert.equal(everything?.annotations === undefined, old);
        assert.equal(everything?.icons, undefined);

        const called = await client.callTool(
          { name: 'everything', arguments: {} },
          CallToolResultSchema,
          CALL,
        );
        const types = (called.content as { type: string }[]).map((c) => c.type);
        assert.deepEqual(types, [
          'text',
          'image',
          old ? 'text' : 'audio',
          before0618 ? 'text' : 'resource_link',
          'resource',
        ]);
        assert.deepEqual(called.structuredContent, before0618 ? undefined : { n: 1 });
        const plain = await client.callTool(
          { name: 'plain', arguments: { x: 'y' } },
          CallToolResultSchema,
          CALL,
        );
        assert.deepEqual(plain.content, [{ type: 'text', text: 'plain' }]);

        const progress: unknown[] = [];
        await client.callTool({ name: 'progress', arguments: {} }, CallToolResultSchema, {
          ...CALL,
          onprogress: (p) => progress.push(p),
        });
        assert.equal(progress.length, 1);
        assert.equal((progress[0] as { message?: string }).message, old ? undefined : 'half way');
        const sampled = await client.callTool({ name: 'sample', arguments: {} }, CallToolResultSchema, CALL);
        assert.deepEqual(sampled.content, [{ type: 'text', text: old ? 'text,text' : 'text,audio' }]);

        const { resources } = await client.listResources(undefined, CALL);
        assert.deepEqual(
          resources.map((r) => [r.uri, r.title]),
          [['test://r', before0618 ? undefined : 'Resource R']],
        );
        const read = await client.readResource({ uri: 'test://r' }, CALL);
        assert.deepEqual(read.contents, [{ uri: 'test://r', mimeType: 'text/plain', text: 'text' }]);
        const { resourceTemplates } = await client.listResourceTemplates(undefined, CALL);
        assert.equal(resourceTemplates[0]?.uriTemplate, 'test://t/{id}');
        assert.equal((await client.readResource({ uri: 'test://t/7' }, CALL)).contents.length, 1);

        const { prompts } = await client.listPrompts(undefined, CALL);
        assert.equal(prompts[0]?.name, 'p');
        assert.equal(prompts[0]?.title, before0618 ? undefined : 'Prompt P');
        const prompt = await client.getPrompt({ name: 'p', arguments: { name: 'Ada' } }, CALL);
        assert.equal(prompt.messages.length, 5);
        const completion = await client.complete(
          { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'name', value: 'A' } },
          CALL,
        );
        assert.deepEqual(completion.completion.values, ['Ada']);
        await client.setLoggingLevel('debug', CALL);
        await client.ping(CALL);
        assert.deepEqual(errors, []);
      } finally {
        await client.close();
      }
    });
  }
});
