// The official SDK 1.x in-process adapter.
import type { Readable, Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ToolSpec } from './fixtures.js';
import type { InprocAdapter } from './harness.js';
import { officialHandler, ScriptedOfficialTransport } from './official.js';

export const adapter: InprocAdapter = {
  build(tools: ToolSpec[]) {
    const server = new McpServer({ name: 'bench-official-v1', version: '1.0.0' });
    for (const t of tools) {
      const config =
        t.outputSchema === undefined
          ? { description: t.description, inputSchema: t.inputSchema }
          : { description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema };
      server.registerTool(t.name, config, officialHandler(t.name) as never);
    }
    return server;
  },

  async serve(server: unknown, stdin: Readable, stdout: Writable) {
    const transport = new StdioServerTransport(stdin, stdout);
    await (server as McpServer).connect(transport);
    return () => (server as McpServer).close();
  },

  async client(respond) {
    const client = new Client({ name: 'mcpkit-bench', version: '1.0.0' });
    await client.connect(new ScriptedOfficialTransport(respond) as never);
    return {
      listTools: async () => (await client.listTools()).tools.length,
      close: () => client.close(),
    };
  },
};
