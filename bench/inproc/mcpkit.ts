// mcpkit's in-process adapter: server construction, its stdio transport on in-memory streams, and its client
// against a scripted responder.
import type { Readable, Writable } from 'node:stream';
import { Client, type JsonRpcMessage, McpServer, type Transport, type TransportReceiver } from 'mcpkit';
import { StdioServerTransport } from 'mcpkit/stdio';
import { searchResult, type ToolSpec } from './fixtures.js';
import type { InprocAdapter } from './harness.js';

function handlerFor(name: string) {
  if (name === 'echo')
    return ({ text }: { text: string }) => ({ content: [{ type: 'text' as const, text }] });
  const structured = searchResult(name);
  return () => ({
    content: [{ type: 'text' as const, text: JSON.stringify(structured) }],
    structuredContent: structured,
  });
}

class ScriptedTransport implements Transport {
  #receiver: TransportReceiver | undefined;
  readonly #respond: (message: unknown) => object | undefined;

  constructor(respond: (message: unknown) => object | undefined) {
    this.#respond = respond;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    this.#receiver = receiver;
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const reply = this.#respond(message);
    if (reply !== undefined) queueMicrotask(() => this.#receiver?.onmessage(reply as JsonRpcMessage));
  }

  async close(): Promise<void> {
    const receiver = this.#receiver;
    this.#receiver = undefined;
    receiver?.onclose();
  }
}

export const adapter: InprocAdapter = {
  build(tools: ToolSpec[]) {
    const server = new McpServer({ name: 'bench-mcpkit', version: '1.0.0' });
    for (const t of tools) {
      const config =
        t.outputSchema === undefined
          ? { description: t.description, inputSchema: t.inputSchema }
          : { description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema };
      server.tool(t.name, config, handlerFor(t.name) as never);
    }
    return server;
  },

  async serve(server: unknown, stdin: Readable, stdout: Writable) {
    const transport = new StdioServerTransport({ stdin, stdout });
    await (server as McpServer).connect(transport);
    return () => transport.close();
  },

  async client(respond) {
    const client = new Client({ name: 'mcpkit-bench', version: '1.0.0' });
    await client.connect(new ScriptedTransport(respond));
    return {
      listTools: async () => (await client.listTools()).length,
      close: () => client.close(),
    };
  },
};
