// The official SDK 1.x (@modelcontextprotocol/sdk) under test: the same `echo` tool over stdio.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-official-v1', version: '1.0.0' });

server.registerTool(
  'echo',
  { description: 'Echoes its text argument.', inputSchema: z.object({ text: z.string() }) },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);

await server.connect(new StdioServerTransport());
